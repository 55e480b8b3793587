// The platform's own definition (@opi/signing), bundled into dist/index.js like the signing code.
import { roundSetHash as platformRoundSetHash } from '@opi/signing';

/**
 * An invoice line's `round_set_hash` (definition `opi-invoice/2`) from the round ids you hold for
 * the line (its currency and title group, the month's rounds with a successful debit or credit),
 * in any order: the XOR of every id's SHA-256 (UTF-8), as 64 lower-case hex digits (64 zeros for
 * none). Equal to the line's hash when your ledger holds the same rounds; when it does not,
 * `findLedgerDifferences` finds which.
 */
export function roundSetHash(roundIds: Iterable<string>): string {
  return platformRoundSetHash(roundIds);
}
