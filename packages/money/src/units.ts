/**
 * Amounts in a display unit (issue 39 point 2): BTC, mBTC, µBTC, sat; ETH, mETH, gwei; ... Every
 * conversion is digit work on integer strings: an amount of minor units is never divided, rounded
 * or put through a float. docs/currencies.md "Display units".
 */

import { currencyInfo, type DisplayUnit, displayUnit } from './registry.js';

/** What a page needs to show amounts in a unit (`GET /api/runtime/session`'s `display`). */
export interface UnitFacts {
  currency: string;
  /** The unit's id (`mBTC`). */
  unit: string;
  /** The text before an amount (`mBTC`, `µBTC`, `EUR`). */
  label: string;
  /** Fraction digits always shown. */
  precision: number;
  /** The unit's exact digits: exponent − shift (an amount of minor units has at most these). */
  digits: number;
}

function exponentOf(currency: string): number {
  return currencyInfo(currency)?.exponent ?? 2;
}

function resolve(currency: string, unitId?: string | null): DisplayUnit {
  const unit = displayUnit(currency, unitId);
  if (!unit) throw new RangeError(`${currency} has no display unit ${JSON.stringify(unitId)}`);
  return unit;
}

/** The facts of `unitId` (default: the currency's first unit) for `currency`. RangeError if unknown. */
export function unitFacts(currency: string, unitId?: string | null): UnitFacts {
  const unit = resolve(currency, unitId);
  const digits = exponentOf(currency) - unit.shift;
  if (digits < 0) throw new RangeError(`${unit.id} is smaller than ${currency}'s minor unit`);
  return { currency, unit: unit.id, label: unit.label, precision: unit.precision, digits };
}

function toDigits(minor: bigint | number | string): { negative: boolean; digits: string } {
  let value: bigint;
  if (typeof minor === 'bigint') value = minor;
  else if (typeof minor === 'number') {
    if (!Number.isSafeInteger(minor)) throw new RangeError(`not a safe integer: ${String(minor)}`);
    value = BigInt(minor);
  } else {
    if (!/^-?[0-9]+$/.test(minor)) throw new RangeError(`not an integer: ${JSON.stringify(minor)}`);
    value = BigInt(minor);
  }
  const negative = value < 0n;
  return { negative, digits: (negative ? -value : value).toString() };
}

/**
 * The exact decimal of `minor` (minor units of `currency`) in a unit with `digits` exact fraction
 * digits, showing at least `precision` of them: trailing zeros beyond `precision` are dropped, a
 * non-zero digit never is. (BTC 123456 sat in mBTC: digits 5, precision 2 → '1.23456'; 100000 sat
 * → '1.00'.)
 */
export function minorToUnitDecimal(
  minor: bigint | number | string,
  digits: number,
  precision: number,
): string {
  const { negative, digits: d } = toDigits(minor);
  let whole: string;
  let fraction: string;
  if (digits === 0) {
    whole = d;
    fraction = '';
  } else {
    const padded = d.padStart(digits + 1, '0');
    whole = padded.slice(0, padded.length - digits);
    fraction = padded.slice(padded.length - digits);
  }
  let keep = fraction.length;
  while (keep > precision && fraction[keep - 1] === '0') keep--;
  fraction = fraction.slice(0, keep);
  const zero = /^0*$/.test(d);
  return `${negative && !zero ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** `minor` minor units of `currency` as the decimal of a display unit (default the first): exact. */
export function minorToUnitString(
  minor: bigint | number | string,
  currency: string,
  unitId?: string | null,
): string {
  const f = unitFacts(currency, unitId);
  return minorToUnitDecimal(minor, f.digits, f.precision);
}

/** `minor` as shown on the pages: `mBTC 1.23456`, `EUR 1.50`, `sat 1500`. */
export function formatMinor(
  minor: bigint | number | string,
  currency: string,
  unitId?: string | null,
): string {
  const f = unitFacts(currency, unitId);
  return `${f.label} ${minorToUnitDecimal(minor, f.digits, f.precision)}`;
}

const DECIMAL = /^(-?)([0-9]+)(?:\.([0-9]+))?$/;

/**
 * A decimal in a display unit back to minor units of the currency, exactly: '1.5' mBTC → 150000n.
 * RangeError for more fraction digits than the unit has (a part of a minor unit) or a malformed string.
 */
export function unitStringToMinor(text: string, currency: string, unitId?: string | null): bigint {
  const f = unitFacts(currency, unitId);
  const m = typeof text === 'string' ? DECIMAL.exec(text) : null;
  if (!m) throw new RangeError(`not a plain decimal amount: ${JSON.stringify(text)}`);
  const [, sign, whole = '', frac = ''] = m;
  if (frac.length > f.digits) {
    throw new RangeError(`${JSON.stringify(text)} has more than ${f.digits} fraction digits in ${f.unit}`);
  }
  const minor = BigInt(whole + frac.padEnd(f.digits, '0'));
  return sign === '-' ? -minor : minor;
}
