import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { currencies, minorToDecimalString } from '@opi/money';
import fc from 'fast-check';

// The portal's own formatter, loaded from its source (the portal is no dependency of this package
// and imports no workspace code at run time; this test holds its copy to the registry's conversion).
const FORMAT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../portal/src/lib/format.ts',
);
const { decimal, exponent, money, ratioForChart } = (await import(pathToFileURL(FORMAT).href)) as {
  ratioForChart(num: number | string | bigint, den: number | string | bigint): number | null;
  decimal(minor: number | string | bigint, currency: string): string;
  exponent(currency: string): number;
  money(minor: number | string | bigint, currency: string): string;
};

// Issue 39 point 5: the staff portal shows every amount in the currency's own precision (BTC 8,
// ETH 9, UDT 6, JPY 0, BHD 3), exactly, with no float: its `decimal()` gives the digits of
// `@opi/money`'s minorToDecimalString (thousands grouped, a minus sign) for every playable
// currency over all of int64.

const group = (s: string) => {
  const [whole, frac] = s.split('.') as [string, string | undefined];
  const g = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? g : `${g}.${frac}`;
};

test('crypto amounts in the portal: their own precision, exactly', () => {
  assert.equal(money(1, 'BTC'), '0.00000001 BTC');
  assert.equal(money('2100000000000000', 'BTC'), '21,000,000.00000000 BTC');
  assert.equal(money('1234567891', 'ETH'), '1.234567891 ETH');
  assert.equal(money('9223372036854775807', 'ETH'), '9,223,372,036.854775807 ETH');
  assert.equal(money(-1_000_001, 'UDT'), '−1.000001 UDT');
  assert.equal(money(12_345_678, 'XDG'), '0.12345678 XDG');
  assert.equal(money(1000, 'JPY'), '1,000 JPY');
  assert.equal(money(1234, 'BHD'), '1.234 BHD');
  assert.equal(money(123456, 'EUR'), '1,234.56 EUR');
  // A chart's payout ratio from the integer totals (no Number() of an amount): to a millionth.
  assert.equal(ratioForChart('9223372036854775807', '9223372036854775807'), 1);
  assert.equal(ratioForChart(1, 3), 0.333333);
  assert.equal(ratioForChart(5, 0), null);
});

test('property: the portal writes the registry’s digits for every playable currency over int64', () => {
  const playable = currencies().filter((c) => c.playable);
  for (const c of playable) assert.equal(exponent(c.code), c.exponent, c.code);
  fc.assert(
    fc.property(
      fc.constantFrom(...playable.map((c) => c.code)),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      (code, minor) => {
        const exact = minorToDecimalString(minor, code);
        const want = exact.startsWith('-') ? `−${group(exact.slice(1))}` : group(exact);
        assert.equal(decimal(minor, code), want);
        assert.equal(decimal(minor.toString(), code), want);
      },
    ),
    { numRuns: 3000 },
  );
});
