import { isPlayableCurrency } from '@opi/money';
import { z } from 'zod';

/** ISO-style currency code: exactly three upper-case ASCII letters (`USD`, `EUR`). */
export const CurrencyCode = z.string().regex(/^[A-Z]{3}$/, 'a three-letter upper-case currency code');
export type CurrencyCode = z.infer<typeof CurrencyCode>;

/**
 * A currency an operator may enable: a code of the currency registry (docs/currencies.md) that is
 * a fiat currency of ISO 4217 or one of the registry's crypto currencies (`BTC`, `ETH`, `UDT` for
 * USDT, ...); not a fund, metal or testing code, and no code the registry does not list.
 */
export const PlayableCurrencyCode = CurrencyCode.refine(
  (code) => isPlayableCurrency(code),
  'a currency of the registry an operator can enable (ISO 4217 fiat or a listed crypto currency; docs/currencies.md)',
);

/**
 * A display unit of the session currency (`mBTC`, `uBTC`, `sat`, `gwei`, `EUR`): ASCII letters,
 * 1 to 8. Which units a currency has is the registry's (docs/currencies.md); another is 422.
 */
export const DisplayUnitId = z.string().regex(/^[A-Za-z]{1,8}$/, 'a display unit id: 1 to 8 ASCII letters');

/** SHA-256 of a wallet request, 64 lower-case hex characters. */
export const RequestHash = z.string().regex(/^[a-f0-9]{64}$/, '64 lower-case hex characters');
export type RequestHash = z.infer<typeof RequestHash>;

/**
 * The operator's player id: 1 to 64 characters (Unicode code points, not UTF-16 units) with no
 * surrounding whitespace. Stable, globally unique and operator-prefixed by convention; sent unchanged
 * to the wallet as `player_id`.
 */
export const ExternalPlayerId = z
  .string()
  .min(1, 'at least 1 character')
  .refine((s) => [...s].length <= 64, 'at most 64 characters')
  .refine((s) => s === s.trim(), 'no leading or trailing whitespace');
export type ExternalPlayerId = z.infer<typeof ExternalPlayerId>;

/**
 * The instants a date-time parameter may name, inclusive, in UTC: the Unix epoch to the last
 * microsecond of year 9999. Every one of them is a `timestamptz` PostgreSQL takes.
 */
export const INSTANT_MIN = '1970-01-01T00:00:00Z';
export const INSTANT_MAX = '9999-12-31T23:59:59.999999Z';
/** INSTANT_MAX in whole microseconds since the epoch (keyset cursors carry microseconds). */
export const INSTANT_MAX_MICROS = 253_402_300_799_999_999n;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;
const LAST_SECOND_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/**
 * An RFC 3339 date-time (as `z.iso.datetime({ offset: true })` accepts it: any offset up to
 * ±23:59, any number of fraction digits) as the same instant in UTC, `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`:
 * the offset applied, the fraction cut to microseconds (PostgreSQL's precision) and its trailing
 * zeros dropped. Null when the text is not of that form or the instant lies outside
 * [INSTANT_MIN, INSTANT_MAX]. The result never depends on PostgreSQL's own limits (offsets within
 * ±15:59, years from 4713 BC, no year 0).
 */
export function instantToUtc(text: string): string | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const n = (i: number) => Number(m[i] ?? '0');
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999.
  const d = new Date(0);
  d.setUTCFullYear(n(1), n(2) - 1, n(3));
  d.setUTCHours(n(4), n(5), n(6), 0);
  const sign = m[8] === '-' ? -1 : 1;
  const ms = d.getTime() - sign * (n(9) * 60 + n(10)) * 60_000;
  if (!Number.isFinite(ms) || ms < 0 || ms > LAST_SECOND_MS) return null;
  const fraction = (m[7] ?? '').slice(0, 6).replace(/0+$/, '');
  return `${new Date(ms).toISOString().slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

/**
 * A date-time parameter (the audit and staff time windows): RFC 3339 with `Z` or a numeric offset
 * (any the RFC allows, up to ±23:59), naming an instant from INSTANT_MIN to INSTANT_MAX. Parsed to
 * that instant in UTC (`instantToUtc`), which is what the service uses and answers; anything else
 * is a validation error at the parameter, never a database error.
 */
export const Instant = z.iso.datetime({ offset: true }).transform((text, ctx) => {
  const utc = instantToUtc(text);
  if (utc !== null) return utc;
  ctx.issues.push({
    code: 'custom',
    input: text,
    message: `an instant from ${INSTANT_MIN} to ${INSTANT_MAX}`,
  });
  return z.NEVER;
});

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * A signed 64-bit integer amount in minor units: a JS safe integer `number` or a `bigint` in
 * [-2^63, 2^63 - 1]. Floats, NaN, Infinity and strings are rejected.
 *
 * JSON numbers beyond 2^53 cannot be represented exactly by `JSON.parse`; such a value arrives as an
 * unsafe number and is rejected (fail closed) rather than silently rounded. Code that needs the full
 * int64 range in memory (e.g. from a database driver) passes a `bigint`. No decimal-string form is
 * accepted here: JSON amounts are numbers.
 */
export const MinorAmount = z.union([z.int(), z.int64()]);
export type MinorAmount = z.infer<typeof MinorAmount>;

/**
 * An integer amount in minor units written as a decimal string (bet limits in the operator contract):
 * optional minus, no leading zeros, no exponent, within int64.
 */
const DECIMAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;
export const MinorAmountString = z
  .string()
  .regex(DECIMAL_INTEGER, 'an integer in minor units written in decimal')
  .refine((s) => {
    if (!DECIMAL_INTEGER.test(s)) return true; // reported by the regex above
    const v = BigInt(s);
    return v >= INT64_MIN && v <= INT64_MAX;
  }, 'within the signed 64-bit range');
export type MinorAmountString = z.infer<typeof MinorAmountString>;

/**
 * A decimal number as a string, as the operator wallet returns `balance`: optional minus, digits,
 * optional fraction (`10.00`, `-3.5`, `0`). No exponent, sign `+`, spaces or bare dot.
 */
export const DecimalString = z.string().regex(/^-?[0-9]+(?:\.[0-9]+)?$/, 'a decimal number such as 10.00');
export type DecimalString = z.infer<typeof DecimalString>;

/** Wallet callback nonce (`x-pp-nonce` from the service): 32 lower-case hex characters. */
export const CallbackNonce = z.string().regex(/^[a-f0-9]{32}$/, '32 lower-case hex characters');
export type CallbackNonce = z.infer<typeof CallbackNonce>;

/**
 * Operator request nonce (`x-pp-nonce` to the service): 16 to 128 characters, single use. Restricted
 * to visible ASCII (as `@opi/signing` verifies) since the nonce is one line of the signed string.
 */
export const OperatorNonce = z.string().regex(/^[\x21-\x7e]{16,128}$/, '16 to 128 visible ASCII characters');
export type OperatorNonce = z.infer<typeof OperatorNonce>;

/** An array of objects whose fields the spec does not show (history stages, ledger, wallet entries). */
export const OpaqueObject = z.record(z.string(), z.unknown());
export type OpaqueObject = z.infer<typeof OpaqueObject>;

/** `{success: true, data}`: the envelope of most service 200 responses. */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}
