import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currencies, decimalStringToMinor, minorToDecimalString } from '@opi/money';
import fc from 'fast-check';
import { currencyExponent, decimalToMinor, minorToDecimal } from './money.js';

// The SDK's amount helpers (issue 39): the platform's exponents and exact conversions, the same
// digits as @opi/money for every playable currency (fast-check over all of int64).
const playable = currencies().filter((c) => c.playable);

test('exponents as the registry has them', () => {
  for (const c of playable) assert.equal(currencyExponent(c.code), c.exponent, c.code);
  assert.equal(minorToDecimal(150_000_000n, 'BTC'), '1.50000000');
  assert.equal(minorToDecimal('150', 'EUR'), '1.50');
  assert.equal(minorToDecimal(-5, 'UDT'), '-0.000005');
  assert.equal(decimalToMinor('1.5', 'BTC'), 150_000_000n);
  assert.throws(() => decimalToMinor('0.000000001', 'BTC'), RangeError);
  assert.throws(() => decimalToMinor('1e3', 'EUR'), RangeError);
  assert.throws(() => minorToDecimal(1.5, 'EUR'), RangeError);
  assert.throws(() => currencyExponent('USDT'), RangeError);
});

test('property: the same digits as @opi/money, both ways', () => {
  fc.assert(
    fc.property(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.constantFrom(...playable.map((c) => c.code)),
      (minor, currency) => {
        const text = minorToDecimal(minor, currency);
        assert.equal(text, minorToDecimalString(minor, currency));
        assert.equal(decimalToMinor(text, currency), decimalStringToMinor(text, currency));
      },
    ),
    { numRuns: 3000 },
  );
});
