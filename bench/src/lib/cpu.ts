import { readdirSync, readFileSync } from 'node:fs';

/**
 * Where the CPU goes during a measurement: user+system seconds per part of the stack, read from
 * /proc (Linux; elsewhere the snapshot is empty). Processes are grouped by what they run.
 */
export type CpuSnapshot = Map<string, number>;

const TICKS_PER_SECOND = 100;

function labelOf(pid: string): string | undefined {
  if (Number(pid) === process.pid) return 'bench client';
  let cmd: string;
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
  if (/\btemporal\b.*server/.test(cmd)) return 'temporal dev server';
  if (/postgres/.test(cmd)) return 'postgresql';
  if (cmd.includes('services/worker/')) return 'worker';
  if (cmd.includes('services/wallet-sandbox/')) return 'wallet sandbox';
  if (cmd.includes('services/api/')) return 'api';
  return undefined;
}

export function cpuSnapshot(): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p));
  } catch {
    return out;
  }
  for (const pid of pids) {
    const label = labelOf(pid);
    if (!label) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the parenthesised command name: utime is field 14, stime 15 (1-based).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      out.set(label, (out.get(label) ?? 0) + ticks / TICKS_PER_SECOND);
    } catch {
      // The process ended between listing and reading.
    }
  }
  return out;
}

/** CPU seconds spent per part between two snapshots, divided by `units` (say, per round, in ms). */
export function cpuPerUnit(before: CpuSnapshot, after: CpuSnapshot, units: number): [string, number][] {
  return [...after.entries()]
    .map(([label, s]): [string, number] => [label, ((s - (before.get(label) ?? 0)) * 1000) / units])
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1]);
}
