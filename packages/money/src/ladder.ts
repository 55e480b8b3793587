/**
 * Stake ladders by rate (issue 39 point 3; docs/currencies.md "Stake ladders"): a reference ladder
 * in EUR converted at an exact rate and snapped to "nice" values. Pure integer arithmetic on
 * bigint minor units and rational rates; no float anywhere.
 *
 * Nice values are 1, 2 and 5 times a power of ten of the currency's minor unit. Every display
 * unit of a currency is a power of ten of its minor unit (mBTC = 10^5 sat), so a value nice in one
 * unit is nice in all of them: 0.5 mBTC = 50 µBTC = 50,000 sat.
 */

/** A positive exact rate as a fraction: `num / den` units of the target per unit of the source (major units). */
export interface Ratio {
  num: bigint;
  den: bigint;
}

/** A decimal rate string (`98765.12`) as a fraction. RangeError for anything else or zero. */
export function decimalRatio(rate: string): Ratio {
  const m = /^([0-9]+)(?:\.([0-9]+))?$/.exec(rate);
  if (!m) throw new RangeError(`not a decimal rate: ${JSON.stringify(rate)}`);
  const frac = m[2] ?? '';
  const num = BigInt(m[1]! + frac);
  if (num === 0n) throw new RangeError('a rate is greater than zero');
  return { num, den: 10n ** BigInt(frac.length) };
}

/** 1 / r. */
export function invertRatio(r: Ratio): Ratio {
  return { num: r.den, den: r.num };
}

/**
 * `minor` (minor units of a currency with `fromExponent`) converted at `rate` (target major units
 * per source major unit) to minor units of a currency with `toExponent`, rounded half away from
 * zero. Exact: minor × num × 10^to / (den × 10^from).
 */
export function convertAtRatio(minor: bigint, rate: Ratio, fromExponent: number, toExponent: number): bigint {
  let n = minor * rate.num;
  let d = rate.den;
  if (toExponent >= fromExponent) n *= 10n ** BigInt(toExponent - fromExponent);
  else d *= 10n ** BigInt(fromExponent - toExponent);
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = an / ad;
  const r = an % ad;
  const rounded = 2n * r >= ad ? q + 1n : q;
  return negative ? -rounded : rounded;
}

/**
 * The nice value (1, 2 or 5 × 10^k, k ≥ 0, in minor units) nearest to `minor` on a ratio scale:
 * between two neighbours a < v < b, a when v² ≤ a·b (v is no further from a than from b by
 * ratio), else b. Values below 1 minor unit snap to 1.
 */
export function snapNice(minor: bigint): bigint {
  if (minor <= 1n) return 1n;
  let decade = 1n;
  while (decade * 10n <= minor) decade *= 10n;
  const steps = [decade, 2n * decade, 5n * decade, 10n * decade];
  for (let i = 0; i < steps.length - 1; i++) {
    const a = steps[i]!;
    const b = steps[i + 1]!;
    if (minor === a) return a;
    if (minor > a && minor < b) return minor * minor <= a * b ? a : b;
  }
  return steps[steps.length - 1]!;
}

/** Whether `minor` is 1, 2 or 5 × 10^k minor units. */
export function isNice(minor: bigint): boolean {
  if (minor < 1n) return false;
  const s = minor.toString();
  return /^[125]0*$/.test(s);
}

/**
 * A reference ladder (minor units of the reference currency, ascending) converted at `rate`
 * (target per reference, major units) and snapped to nice values of the target's minor unit;
 * ascending, without repeats (two steps that snap to one value are one stake).
 */
export function convertLadder(
  reference: readonly bigint[],
  rate: Ratio,
  referenceExponent: number,
  targetExponent: number,
): bigint[] {
  const out: bigint[] = [];
  for (const step of reference) {
    const v = snapNice(convertAtRatio(step, rate, referenceExponent, targetExponent));
    if (out.length === 0 || v > out[out.length - 1]!) out.push(v);
  }
  return out;
}

/**
 * Whether `now` differs from `then` by more than `bandPpm` millionths of `then`:
 * |now − then| × 10^6 > then × bandPpm, exactly.
 */
export function driftedPast(now: Ratio, then: Ratio, bandPpm: bigint): boolean {
  // now = a/b, then = c/d: |a·d − c·b| / (b·d) compared with (c/d)·band/10^6.
  const diff = now.num * then.den - then.num * now.den;
  const absDiff = diff < 0n ? -diff : diff;
  return absDiff * 1_000_000n > then.num * now.den * bandPpm;
}

/**
 * The step of `ladder` (positive minor units, ascending) nearest to `minor` on a ratio scale, as
 * `snapNice` chooses between neighbours: below the first step the first, above the last the last,
 * between a < v < b a when v² ≤ a·b, else b. `minor` itself when it is a step. RangeError for an
 * empty ladder. Issue 39: a free-round campaign's stake played on a session's frozen ladder.
 */
export function snapToLadder(minor: bigint, ladder: readonly bigint[]): bigint {
  if (ladder.length === 0) throw new RangeError('an empty ladder');
  const first = ladder[0]!;
  if (minor <= first) return first;
  for (let i = 0; i < ladder.length - 1; i++) {
    const a = ladder[i]!;
    const b = ladder[i + 1]!;
    if (minor === a) return a;
    if (minor > a && minor < b) return minor * minor <= a * b ? a : b;
  }
  return ladder[ladder.length - 1]!;
}
