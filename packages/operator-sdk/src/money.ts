/**
 * Amounts for an operator's wallet (issue 39, docs/currencies.md): every amount the platform sends
 * is an integer of minor units (`amount_minor`), and a wallet answers its `balance` as a decimal
 * string in the currency. These helpers convert between the two exactly, digit by digit, at the
 * platform's exponent of each currency (its registry: ISO 4217's minor units, BTC 8, ETH 9, USDT as
 * `UDT` 6, ...), never through a float.
 */

/**
 * The exponents that are not 2 (every other currency the platform plays has 2): ISO 4217's 0 and 3,
 * and the crypto currencies'. The platform's test suite holds this copy equal to its registry.
 */
export const CURRENCY_EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  BTC: 8,
  ETH: 9,
  LTC: 8,
  XRP: 6,
  SOL: 9,
  TRX: 6,
  BNB: 8,
  UDT: 6,
  UDC: 6,
  XDG: 8,
};

/** The common tickers of the platform's three-letter codes that differ from them. */
export const CURRENCY_TICKERS: Readonly<Record<string, string>> = { UDT: 'USDT', UDC: 'USDC', XDG: 'DOGE' };

/** The minor-unit exponent of a currency code (`BTC` 8, `EUR` 2, `JPY` 0). */
export function currencyExponent(currency: string): number {
  if (!/^[A-Z]{3}$/.test(currency))
    throw new RangeError(`invalid currency code: ${JSON.stringify(currency)}`);
  return CURRENCY_EXPONENTS[currency] ?? 2;
}

/**
 * Minor units as the decimal string a wallet answers as `balance`: (150000000n, 'BTC') → '1.50000000',
 * ('150', 'EUR') → '1.50'. `minor` is a bigint, an integer string or a safe integer.
 */
export function minorToDecimal(minor: bigint | string | number, currency: string): string {
  const e = currencyExponent(currency);
  if (typeof minor === 'number' && !Number.isSafeInteger(minor))
    throw new RangeError(`not a safe integer: ${minor}`);
  if (typeof minor === 'string' && !/^-?[0-9]+$/.test(minor))
    throw new RangeError(`not an integer: ${minor}`);
  const v = BigInt(minor);
  const negative = v < 0n;
  const digits = (negative ? -v : v).toString();
  if (e === 0) return `${negative ? '-' : ''}${digits}`;
  const padded = digits.padStart(e + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, -e)}.${padded.slice(-e)}`;
}

/**
 * A decimal string in the currency as minor units, exactly: ('1.5', 'BTC') → 150000000n. A part of a
 * minor unit ('0.000000001' BTC), an exponent or any other form is a RangeError, never rounded.
 */
export function decimalToMinor(decimal: string, currency: string): bigint {
  const e = currencyExponent(currency);
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(decimal);
  if (!m) throw new RangeError(`not a plain decimal: ${JSON.stringify(decimal)}`);
  const fraction = m[3] ?? '';
  if (fraction.length > e) throw new RangeError(`${decimal} has more than ${e} decimals for ${currency}`);
  const v = BigInt(m[2]! + fraction.padEnd(e, '0'));
  return m[1] === '-' ? -v : v;
}
