/**
 * Exact non-negative rationals over bigint: the native titles' multipliers are ratios of
 * integers (return factor over a survival probability), kept exact from the engine to the payout.
 */
export interface Ratio {
  /** numerator, >= 0 */
  readonly n: bigint;
  /** denominator, > 0, coprime with n */
  readonly d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

export function ratio(n: bigint | number, d: bigint | number = 1n): Ratio {
  const nn = BigInt(n);
  const dd = BigInt(d);
  if (dd <= 0n) throw new RangeError('the denominator must be positive');
  if (nn < 0n) throw new RangeError('native multipliers are never negative');
  const g = gcd(nn, dd) || 1n;
  return { n: nn / g, d: dd / g };
}

export const ZERO: Ratio = ratio(0);
export const ONE: Ratio = ratio(1);

export const mul = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.n, a.d * b.d);
export const div = (a: Ratio, b: Ratio): Ratio => {
  if (b.n === 0n) throw new RangeError('division by zero');
  return ratio(a.n * b.d, a.d * b.n);
};
export const add = (a: Ratio, b: Ratio): Ratio => ratio(a.n * b.d + b.n * a.d, a.d * b.d);
export const eq = (a: Ratio, b: Ratio): boolean => a.n === b.n && a.d === b.d;
/** a <= b */
export const lte = (a: Ratio, b: Ratio): boolean => a.n * b.d <= b.n * a.d;

/** floor(amount x r): a payout in minor units (the fraction of a minor unit is never paid). */
export function applyTo(amountMinor: bigint, r: Ratio): bigint {
  return (amountMinor * r.n) / r.d;
}

/** Truncated decimal string with `places` digits (the display and the stage record). */
export function toDecimal(r: Ratio, places = 8): string {
  const scale = 10n ** BigInt(places);
  const scaled = (r.n * scale) / r.d;
  if (places === 0) return scaled.toString();
  const s = scaled.toString().padStart(places + 1, '0');
  return `${s.slice(0, -places)}.${s.slice(-places)}`;
}

/** Nearest double (simulation only: never used for money). */
export function toNumber(r: Ratio): number {
  // Scale so that both parts fit comfortably in a double before dividing.
  return Number((r.n * 10n ** 18n) / r.d) / 1e18;
}

/** `n/d` text form, as stored with a stage. */
export const toFractionString = (r: Ratio): string => `${r.n}/${r.d}`;
