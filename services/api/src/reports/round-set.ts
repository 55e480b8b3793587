import { createHash } from 'node:crypto';

/** The fingerprint of no rounds. */
export const EMPTY_SET = '0'.repeat(64);

/**
 * An invoice line's `round_set_hash` (opi-invoice/2) from its round ids, in any order: the XOR of
 * every id's SHA-256 (UTF-8), as 64 lower-case hex digits. What an operator computes from its own
 * ledger to check a line, and what the rollup keeps per day.
 */
export function roundSetHash(roundIds: Iterable<string>): string {
  const acc = Buffer.alloc(32);
  for (const id of roundIds) {
    const h = createHash('sha256').update(id, 'utf8').digest();
    for (let i = 0; i < 32; i++) acc[i] = (acc[i] ?? 0) ^ (h[i] ?? 0);
  }
  return acc.toString('hex');
}
