import { readFileSync } from 'node:fs';
import type { WireRecord } from '@opi/wallet-sandbox';

/** Every request the sandbox wallet received, in arrival order (its wire log). */
export function readWireLog(file: string): WireRecord[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: WireRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as WireRecord);
    } catch {
      // A line being written right now: the next read has it.
    }
  }
  return out;
}
