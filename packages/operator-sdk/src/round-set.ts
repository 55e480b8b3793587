import { createHash } from 'node:crypto';

/**
 * An invoice line's `round_set_hash` (definition `opi-invoice/2`) from the round ids you hold for
 * the line (its currency and title group, the month's rounds with a successful debit or credit),
 * in any order: the XOR of every id's SHA-256 (UTF-8), as 64 lower-case hex digits (64 zeros for
 * none). Equal to the line's hash when your ledger holds the same rounds; when it does not,
 * `findLedgerDifferences` finds which.
 */
export function roundSetHash(roundIds: Iterable<string>): string {
  const acc = Buffer.alloc(32);
  for (const id of roundIds) {
    const h = createHash('sha256').update(id, 'utf8').digest();
    for (let i = 0; i < 32; i++) acc[i] = (acc[i] ?? 0) ^ (h[i] ?? 0);
  }
  return acc.toString('hex');
}
