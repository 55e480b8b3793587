import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  CRYPTO_CODES,
  currencies,
  currencyExponent,
  currencyInfo,
  decimalStringToMinor,
  displayUnit,
  formatMinor,
  ISO_4217_CURRENT,
  ISO_4217_WITHDRAWN,
  isCryptoCurrency,
  isPlayableCurrency,
  minorToDecimalString,
  minorToUnitDecimal,
  minorToUnitString,
  unitFacts,
  unitStringToMinor,
} from './index.js';

const INT64_MAX = 2n ** 63n - 1n;

describe('the registry', () => {
  test('every code is three upper-case letters, listed once', () => {
    const codes = currencies().map((c) => c.code);
    assert.equal(new Set(codes).size, codes.length);
    for (const c of codes) assert.match(c, /^[A-Z]{3}$/);
  });

  test('no crypto code is an ISO 4217 code, current or withdrawn', () => {
    assert.deepEqual([...CRYPTO_CODES].sort(), [
      'BNB',
      'BTC',
      'ETH',
      'LTC',
      'SOL',
      'TRX',
      'UDC',
      'UDT',
      'XDG',
      'XRP',
    ]);
    const iso = new Set([...ISO_4217_CURRENT, ...ISO_4217_WITHDRAWN]);
    for (const c of CRYPTO_CODES) assert.ok(!iso.has(c), `${c} collides with ISO 4217`);
    // The withdrawn list is not the current one.
    for (const c of ISO_4217_WITHDRAWN) assert.ok(!ISO_4217_CURRENT.includes(c), c);
  });

  test('ISO 4217 exponents as before the registry, and the ones it corrects', () => {
    for (const c of ['JPY', 'KRW', 'CLP', 'ISK', 'VND', 'XAF', 'XOF', 'XPF', 'UGX'])
      assert.equal(currencyExponent(c), 0, c);
    for (const c of ['BHD', 'KWD', 'OMR', 'JOD', 'IQD', 'LYD', 'TND'])
      assert.equal(currencyExponent(c), 3, c);
    for (const c of ['EUR', 'USD', 'GBP', 'CHF', 'IDR']) assert.equal(currencyExponent(c), 2, c);
    // A well-formed code outside the registry keeps exponent 2 (it cannot be enabled).
    assert.equal(currencyExponent('QQQ'), 2);
    assert.equal(isPlayableCurrency('QQQ'), false);
  });

  test('crypto exponents', () => {
    const want: Record<string, number> = {
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
    for (const [c, e] of Object.entries(want)) {
      assert.equal(currencyExponent(c), e, c);
      assert.ok(isCryptoCurrency(c) && isPlayableCurrency(c), c);
    }
    assert.equal(currencyInfo('UDT')?.ticker, 'USDT');
    assert.equal(currencyInfo('UDC')?.ticker, 'USDC');
    assert.equal(currencyInfo('XDG')?.ticker, 'DOGE');
    assert.equal(isCryptoCurrency('EUR'), false);
  });

  test('int64 headroom: a capped supply fits whole; every crypto holds a billion units at least', () => {
    for (const c of currencies().filter((x) => x.kind === 'crypto')) {
      const scale = 10n ** BigInt(c.exponent);
      if (c.supply != null) assert.ok(c.supply * scale <= INT64_MAX, `${c.code}: supply overflows int64`);
      assert.ok(1_000_000_000n * scale <= INT64_MAX, `${c.code}: int64 holds under 10^9 units`);
    }
    // ETH in gwei: 9.2 × 10^9 ETH, about 77 times all there is (about 120.7 million).
    assert.ok(121_000_000n * 10n ** 9n * 70n < INT64_MAX);
    // SOL in lamports: 9.2 × 10^9 SOL, over 15 times the supply (about 600 million).
    assert.ok(600_000_000n * 10n ** 9n * 15n < INT64_MAX);
  });

  test('funds, metals and testing codes are listed but not playable', () => {
    for (const c of ['XAU', 'XAG', 'XTS', 'XXX', 'XDR', 'CHE', 'CLF', 'USN', 'UYI']) {
      assert.ok(currencyInfo(c), c);
      assert.equal(isPlayableCurrency(c), false, c);
    }
    assert.equal(currencyExponent('CLF'), 4);
  });

  test('display units: default first; each unit within the minor unit and its precision within its digits', () => {
    for (const c of currencies()) {
      assert.ok(c.units.length >= 1, c.code);
      for (const unit of c.units) {
        assert.match(unit.id, /^[A-Za-z]{1,8}$/, `${c.code} ${unit.id}`);
        assert.ok(unit.shift >= 0 && unit.shift <= c.exponent, `${c.code} ${unit.id} shift`);
        assert.ok(unit.precision >= 0 && unit.precision <= c.exponent - unit.shift, `${c.code} ${unit.id}`);
      }
    }
    assert.deepEqual(
      currencyInfo('BTC')!.units.map((x) => [x.id, x.label, x.shift]),
      [
        ['BTC', 'BTC', 0],
        ['mBTC', 'mBTC', 3],
        ['uBTC', 'µBTC', 6],
        ['sat', 'sat', 8],
      ],
    );
    assert.deepEqual(
      currencyInfo('ETH')!.units.map((x) => [x.id, x.shift]),
      [
        ['ETH', 0],
        ['mETH', 3],
        ['gwei', 9],
      ],
    );
    assert.equal(displayUnit('BTC')?.id, 'BTC');
    assert.equal(displayUnit('BTC', 'sat')?.shift, 8);
    assert.equal(displayUnit('BTC', 'gwei'), null);
    assert.equal(displayUnit('EUR', 'mBTC'), null);
    assert.equal(displayUnit('EUR')?.precision, 2);
  });
});

describe('amounts in a display unit', () => {
  const cases: Array<[bigint, string, string | null, string]> = [
    [100_000n, 'BTC', 'mBTC', 'mBTC 1.00'],
    [123_456n, 'BTC', 'mBTC', 'mBTC 1.23456'],
    [100_000n, 'BTC', null, 'BTC 0.00100000'],
    [100_000n, 'BTC', 'uBTC', 'µBTC 1000.00'],
    [1n, 'BTC', 'uBTC', 'µBTC 0.01'],
    [1_500n, 'BTC', 'sat', 'sat 1500'],
    [-5n, 'BTC', 'mBTC', 'mBTC -0.00005'],
    [0n, 'BTC', 'mBTC', 'mBTC 0.00'],
    [1_000_000_000n, 'ETH', null, 'ETH 1.000000'],
    [1n, 'ETH', null, 'ETH 0.000000001'],
    [21n, 'ETH', 'gwei', 'gwei 21'],
    [1_500_000n, 'ETH', 'mETH', 'mETH 1.500'],
    [1_000_000n, 'UDT', null, 'USDT 1.00'],
    [1_234_567n, 'UDC', null, 'USDC 1.234567'],
    [150n, 'EUR', null, 'EUR 1.50'],
    [150n, 'JPY', null, 'JPY 150'],
    [1n, 'BHD', null, 'BHD 0.001'],
  ];
  for (const [minor, cur, unit, text] of cases) {
    test(`${minor} ${cur} in ${unit ?? 'the default unit'} → ${text}`, () => {
      assert.equal(formatMinor(minor, cur, unit), text);
    });
  }
  test('unknown units are RangeErrors', () => {
    assert.throws(() => formatMinor(1n, 'BTC', 'gwei'), RangeError);
    assert.throws(() => unitFacts('EUR', 'mBTC'), RangeError);
  });
  test('facts', () => {
    assert.deepEqual(unitFacts('BTC', 'mBTC'), {
      currency: 'BTC',
      unit: 'mBTC',
      label: 'mBTC',
      precision: 2,
      digits: 5,
    });
    assert.deepEqual(unitFacts('EUR'), {
      currency: 'EUR',
      unit: 'EUR',
      label: 'EUR',
      precision: 2,
      digits: 2,
    });
  });
});

// Property tests (issue 39 point 4): every conversion over random amounts and precisions.
const anyMinor = fc.bigInt({ min: -INT64_MAX - 1n, max: INT64_MAX });
const playable = currencies().filter((c) => c.playable);
const anyCurrency = fc.constantFrom(...playable.map((c) => c.code));
const anyCurrencyAndUnit = fc.constantFrom(
  ...playable.flatMap((c) => c.units.map((unit) => [c.code, unit.id] as const)),
);

describe('properties', () => {
  test('minor → decimal → minor is the identity, for every currency', () => {
    fc.assert(
      fc.property(anyMinor, anyCurrency, (minor, cur) => {
        const text = minorToDecimalString(minor, cur);
        assert.equal(decimalStringToMinor(text, cur), minor);
        const frac = text.split('.')[1] ?? '';
        assert.equal(frac.length, currencyExponent(cur));
      }),
      { numRuns: 2000 },
    );
  });

  test('minor → unit decimal → minor is the identity, for every unit of every currency', () => {
    fc.assert(
      fc.property(anyMinor, anyCurrencyAndUnit, (minor, [cur, unit]) => {
        const text = minorToUnitString(minor, cur, unit);
        assert.equal(unitStringToMinor(text, cur, unit), minor);
        const f = unitFacts(cur, unit);
        const frac = text.split('.')[1] ?? '';
        assert.ok(frac.length >= f.precision && frac.length <= f.digits, `${text} in ${unit}`);
      }),
      { numRuns: 3000 },
    );
  });

  test('any exponent and precision: the unit decimal is the exact value with trailing zeros trimmed to the precision', () => {
    fc.assert(
      fc.property(
        anyMinor,
        fc
          .integer({ min: 0, max: 18 })
          .chain((digits) => fc.tuple(fc.constant(digits), fc.integer({ min: 0, max: digits }))),
        (minor, [digits, precision]) => {
          const text = minorToUnitDecimal(minor, digits, precision);
          const m = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(text);
          assert.ok(m, text);
          const frac = m[3] ?? '';
          // Back to an integer at `digits` places: the same amount.
          const back = BigInt(m[2]! + frac.padEnd(digits, '0')) * (m[1] === '-' ? -1n : 1n);
          assert.equal(back, minor);
          assert.ok(frac.length >= precision && frac.length <= digits);
          if (frac.length > precision) assert.notEqual(frac.at(-1), '0');
        },
      ),
      { numRuns: 3000 },
    );
  });

  test('unit decimals with more digits than the unit has are refused, never rounded', () => {
    fc.assert(
      fc.property(anyCurrencyAndUnit, fc.integer({ min: 1, max: 9 }), ([cur, unit], digit) => {
        const f = unitFacts(cur, unit);
        const text = `1.${'0'.repeat(f.digits)}${digit}`;
        assert.throws(() => unitStringToMinor(text, cur, unit), RangeError);
      }),
    );
  });
});
