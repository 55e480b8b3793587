/**
 * Exact money arithmetic in integer minor units. Amounts are bigint (or safe-integer numbers) of
 * the currency's smallest unit; decimal strings are produced and parsed digit by digit, never
 * through floating point.
 */

import { currencyInfo } from './registry.js';

export * from './ladder.js';
export * from './registry.js';
export * from './units.js';

const CURRENCY_CODE = /^[A-Z]{3}$/;

/** A minor-unit exponent: 0 (JPY), 2 (EUR), 3 (BHD), 4 (CLF), 6 (XRP), 8 (BTC), 9 (ETH). */
export type CurrencyExponent = number;

/** Whether `code` has the shape of a currency code (three upper-case letters). */
export function isCurrencyCode(code: unknown): code is string {
  return typeof code === 'string' && CURRENCY_CODE.test(code);
}

/**
 * The minor-unit exponent of a currency, from the registry (`registry.ts`: ISO 4217's minor unit
 * column, the crypto currencies' chosen units): JPY 0, EUR 2, BHD 3, BTC 8, ETH 9. A well-formed
 * code the registry does not list is 2 (as before the registry; an operator cannot enable one).
 * Throws RangeError for anything that is not `^[A-Z]{3}$`.
 */
export function currencyExponent(code: string): CurrencyExponent {
  if (!isCurrencyCode(code)) throw new RangeError(`invalid currency code: ${JSON.stringify(code)}`);
  return currencyInfo(code)?.exponent ?? 2;
}

function toBigInt(minor: bigint | number): bigint {
  if (typeof minor === 'bigint') return minor;
  if (typeof minor !== 'number' || !Number.isSafeInteger(minor)) {
    throw new RangeError(`minor amount must be a bigint or a safe integer, got ${String(minor)}`);
  }
  return BigInt(minor);
}

/**
 * The exact decimal string of a minor-unit amount at the currency's exponent:
 * EUR 150 → '1.50', JPY 150 → '150', BHD 1500 → '1.500', EUR -5 → '-0.05', BTC 1 → '0.00000001'.
 */
export function minorToDecimalString(minor: bigint | number, currency: string): string {
  const exponent = currencyExponent(currency);
  const value = toBigInt(minor);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString();
  if (exponent === 0) return (negative ? '-' : '') + digits;
  const padded = digits.padStart(exponent + 1, '0');
  const whole = padded.slice(0, padded.length - exponent);
  const fraction = padded.slice(padded.length - exponent);
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/**
 * The amount as a JS number (the callback's `amount` field): the double nearest to the exact
 * decimal. Throws when |minor| exceeds Number.MAX_SAFE_INTEGER, where the minor-unit value itself
 * could no longer be represented exactly.
 */
export function minorToDecimalNumber(minor: bigint | number, currency: string): number {
  const value = toBigInt(minor);
  const abs = value < 0n ? -value : value;
  if (abs > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`minor amount ${value} exceeds Number.MAX_SAFE_INTEGER`);
  }
  const n = Number(minorToDecimalString(value, currency));
  // Never answer -0.
  return n === 0 ? 0 : n;
}

const DECIMAL = /^(-?)([0-9]+)(?:\.([0-9]+))?$/;

/**
 * Parses a plain decimal string (`'1.5'`, `'-0.05'`, `'150'`) into minor units, exactly.
 * Rejects (RangeError) the empty string, spaces, signs other than a leading '-', exponents,
 * a bare '.', and more fraction digits than the currency's exponent ('1.005' EUR, '1.0' JPY).
 */
export function decimalStringToMinor(str: string, currency: string): bigint {
  const exponent = currencyExponent(currency);
  if (typeof str !== 'string') throw new RangeError('decimal amount must be a string');
  const match = DECIMAL.exec(str);
  if (!match) throw new RangeError(`not a plain decimal amount: ${JSON.stringify(str)}`);
  const [, sign, whole = '', fraction = ''] = match;
  if (fraction.length > exponent) {
    throw new RangeError(`${JSON.stringify(str)} has more than ${exponent} fraction digits for ${currency}`);
  }
  const minor = BigInt(whole + fraction.padEnd(exponent, '0'));
  return sign === '-' ? -minor : minor;
}
