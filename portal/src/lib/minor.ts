import { exponent } from './format';

/**
 * An amount typed by staff ("12.50", "1,000", "3") as integer minor units of the currency, exactly
 * (strings, no floating point); null when it is not an amount or has more decimals than the
 * currency's minor unit.
 */
export function toMinor(text: string, currency: string): string | null {
  const v = text.trim().replace(/[,\s_]/g, '');
  const m = /^(\d{1,13})(?:\.(\d*))?$/.exec(v);
  if (!m) return null;
  const e = exponent(currency);
  const frac = m[2] ?? '';
  if (frac.length > e) return null;
  const minor = BigInt(m[1]!) * 10n ** BigInt(e) + BigInt(frac.padEnd(e, '0') || '0');
  return minor.toString();
}
