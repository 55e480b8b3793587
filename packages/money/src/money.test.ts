import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  currencyExponent,
  decimalStringToMinor,
  isCurrencyCode,
  minorToDecimalNumber,
  minorToDecimalString,
} from './index.js';

describe('currencyExponent', () => {
  test('zero-decimal currencies', () => {
    for (const c of [
      'JPY',
      'KRW',
      'CLP',
      'ISK',
      'VND',
      'XAF',
      'XOF',
      'UGX',
      'PYG',
      'RWF',
      'KMF',
      'GNF',
      'VUV',
      'DJF',
      'BIF',
    ]) {
      assert.equal(currencyExponent(c), 0, c);
    }
  });
  test('three-decimal currencies', () => {
    for (const c of ['BHD', 'KWD', 'OMR', 'JOD', 'IQD', 'LYD', 'TND'])
      assert.equal(currencyExponent(c), 3, c);
  });
  test('two decimals for any other well-formed code', () => {
    for (const c of ['EUR', 'USD', 'GBP', 'CHF', 'XYZ']) assert.equal(currencyExponent(c), 2, c);
  });
  test('throws on an invalid code', () => {
    for (const c of ['eur', 'EU', 'EURO', '', ' EUR', 'EUR ', 'E1R', 'ÉUR']) {
      assert.throws(() => currencyExponent(c), RangeError, JSON.stringify(c));
    }
    assert.throws(() => currencyExponent(undefined as unknown as string), RangeError);
    assert.equal(isCurrencyCode('EUR'), true);
    assert.equal(isCurrencyCode('eur'), false);
    assert.equal(isCurrencyCode(42), false);
  });
});

describe('minorToDecimalString', () => {
  const cases: Array<[bigint | number, string, string]> = [
    [150n, 'EUR', '1.50'],
    [150, 'EUR', '1.50'],
    [0n, 'EUR', '0.00'],
    [1n, 'EUR', '0.01'],
    [10n, 'EUR', '0.10'],
    [100n, 'USD', '1.00'],
    [-5n, 'EUR', '-0.05'],
    [-150n, 'EUR', '-1.50'],
    [150n, 'JPY', '150'],
    [0n, 'JPY', '0'],
    [-7n, 'JPY', '-7'],
    [1500n, 'BHD', '1.500'],
    [1n, 'BHD', '0.001'],
    [-1n, 'KWD', '-0.001'],
    [123456789012345678901234567890n, 'EUR', '1234567890123456789012345678.90'],
    [Number.MAX_SAFE_INTEGER, 'EUR', '90071992547409.91'],
  ];
  for (const [minor, currency, expected] of cases) {
    test(`${String(minor)} ${currency} → ${expected}`, () => {
      assert.equal(minorToDecimalString(minor, currency), expected);
    });
  }
  test('negative zero number is zero', () => {
    assert.equal(minorToDecimalString(-0, 'EUR'), '0.00');
  });
  test('rejects fractional, unsafe and non-finite numbers, and bad currencies', () => {
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1]) {
      assert.throws(() => minorToDecimalString(bad, 'EUR'), RangeError, String(bad));
    }
    assert.throws(() => minorToDecimalString(1n, 'eur'), RangeError);
  });
});

describe('minorToDecimalNumber', () => {
  test('exact decimals as numbers', () => {
    assert.equal(minorToDecimalNumber(150n, 'EUR'), 1.5);
    assert.equal(minorToDecimalNumber(150, 'JPY'), 150);
    assert.equal(minorToDecimalNumber(1500n, 'BHD'), 1.5);
    assert.equal(minorToDecimalNumber(1n, 'BHD'), 0.001);
    assert.equal(minorToDecimalNumber(-5n, 'EUR'), -0.05);
    assert.equal(minorToDecimalNumber(10n, 'EUR'), 0.1);
    assert.equal(minorToDecimalNumber(30n, 'EUR'), 0.3);
    assert.ok(Object.is(minorToDecimalNumber(0n, 'EUR'), 0));
    assert.ok(Object.is(minorToDecimalNumber(-0, 'EUR'), 0));
  });
  test('round-trips through JSON as the same decimal text', () => {
    for (const [minor, cur] of [
      [123456n, 'EUR'],
      [1n, 'EUR'],
      [999999999n, 'BHD'],
      [Number.MAX_SAFE_INTEGER, 'JPY'],
    ] as const) {
      const n = minorToDecimalNumber(minor, cur);
      assert.equal(String(n), String(Number(minorToDecimalString(minor, cur))));
    }
  });
  test('throws beyond MAX_SAFE_INTEGER, in both directions', () => {
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    assert.equal(minorToDecimalNumber(max, 'JPY'), Number.MAX_SAFE_INTEGER);
    assert.equal(minorToDecimalNumber(-max, 'JPY'), -Number.MAX_SAFE_INTEGER);
    assert.throws(() => minorToDecimalNumber(max + 1n, 'JPY'), RangeError);
    assert.throws(() => minorToDecimalNumber(-max - 1n, 'EUR'), RangeError);
  });
});

describe('decimalStringToMinor', () => {
  const ok: Array<[string, string, bigint]> = [
    ['1.50', 'EUR', 150n],
    ['1.5', 'EUR', 150n],
    ['1', 'EUR', 100n],
    ['0', 'EUR', 0n],
    ['-0', 'EUR', 0n],
    ['0.01', 'EUR', 1n],
    ['-0.05', 'EUR', -5n],
    ['150', 'JPY', 150n],
    ['-150', 'JPY', -150n],
    ['1.500', 'BHD', 1500n],
    ['1.5', 'BHD', 1500n],
    ['0.001', 'KWD', 1n],
    ['007.10', 'EUR', 710n],
    ['1234567890123456789012345678.90', 'EUR', 123456789012345678901234567890n],
  ];
  for (const [str, cur, expected] of ok) {
    test(`${str} ${cur} → ${expected}`, () => {
      assert.equal(decimalStringToMinor(str, cur), expected);
    });
  }
  test('round-trips with minorToDecimalString', () => {
    for (const cur of ['EUR', 'JPY', 'BHD']) {
      for (const minor of [0n, 1n, -1n, 99n, 100n, 101n, -12345n, 10n ** 20n]) {
        assert.equal(decimalStringToMinor(minorToDecimalString(minor, cur), cur), minor);
      }
    }
  });
  test('rejects too many fraction digits for the currency', () => {
    assert.throws(() => decimalStringToMinor('1.005', 'EUR'), RangeError);
    assert.throws(() => decimalStringToMinor('1.500', 'EUR'), RangeError);
    assert.throws(() => decimalStringToMinor('1.0', 'JPY'), RangeError);
    assert.throws(() => decimalStringToMinor('1.0001', 'BHD'), RangeError);
  });
  test('rejects exponents, spaces, empty and other malformed input', () => {
    for (const bad of [
      '',
      ' ',
      '1e2',
      '1E2',
      '1.5e1',
      ' 1.50',
      '1.50 ',
      '1 000',
      '+1.50',
      '.5',
      '1.',
      '-',
      '--1',
      '1,50',
      'NaN',
      'Infinity',
      '0x10',
      '１',
    ]) {
      assert.throws(() => decimalStringToMinor(bad, 'EUR'), RangeError, JSON.stringify(bad));
    }
    assert.throws(() => decimalStringToMinor(150 as unknown as string, 'EUR'), RangeError);
    assert.throws(() => decimalStringToMinor('1.50', 'euro'), RangeError);
  });
});
