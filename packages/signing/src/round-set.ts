import { createHash } from 'node:crypto';

/** The fingerprint of no rounds (64 zeros). */
export const EMPTY_ROUND_SET = '0'.repeat(64);

/**
 * A set of rounds' fingerprint, an invoice line's `round_set_hash` (definition `opi-invoice/2`):
 * the XOR of every round id's SHA-256 (UTF-8), as 64 lower-case hex digits; the ids in any order.
 * What the rollup keeps per day, and what an operator computes from its own ledger (the operator
 * SDK bundles this one).
 */
export function roundSetHash(roundIds: Iterable<string>): string {
  const acc = Buffer.alloc(32);
  for (const id of roundIds) {
    const h = createHash('sha256').update(id, 'utf8').digest();
    for (let i = 0; i < 32; i++) acc[i] = (acc[i] ?? 0) ^ (h[i] ?? 0);
  }
  return acc.toString('hex');
}
