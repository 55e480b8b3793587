import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import vm from 'node:vm';
import { currencies, minorToUnitDecimal, unitFacts } from '@opi/money';
import fc from 'fast-check';
import { displayFacts } from './display.js';

// The pages' money formatting in a display unit (static/money.js, issue 39), run as the browser
// runs it (a plain script that sets window.UnitMoney): the same digits as @opi/money's
// minorToUnitDecimal for any amount and unit, grouped by thousands, never through a float.
const source = readFileSync(new URL('./static/money.js', import.meta.url), 'utf8');

interface UnitMoney {
  create(display: unknown): {
    label: string;
    decimal(minor: string): string | null;
    format(minor: string): string;
  };
  applies(display: unknown, currency: string): boolean;
}
function load(): UnitMoney {
  const window: { UnitMoney?: UnitMoney } = {};
  vm.runInNewContext(source, { window });
  return window.UnitMoney!;
}

test('amounts in mBTC, sat, gwei and USDT', () => {
  const m = load();
  const btc = m.create(displayFacts({ currency: 'BTC', display_unit: 'mBTC' }));
  assert.equal(btc.format('100000'), 'mBTC 1.00');
  assert.equal(btc.format('123456'), 'mBTC 1.23456');
  assert.equal(btc.format('123456789000'), 'mBTC 1,234,567.89');
  assert.equal(btc.format('-5'), 'mBTC -0.00005');
  assert.equal(btc.format('0'), 'mBTC 0.00');
  assert.equal(btc.format('-0'), 'mBTC 0.00');
  assert.equal(m.create(displayFacts({ currency: 'BTC', display_unit: 'sat' })).format('1500'), 'sat 1,500');
  assert.equal(m.create(displayFacts({ currency: 'BTC', display_unit: 'uBTC' })).format('1'), 'µBTC 0.01');
  assert.equal(m.create(displayFacts({ currency: 'ETH', display_unit: 'gwei' })).format('21'), 'gwei 21');
  assert.equal(m.create(displayFacts({ currency: 'UDT' })).format('1500000'), 'USDT 1.50');
  // Beyond a double's exact integers: still every digit.
  assert.equal(btc.format('9223372036854775807'), 'mBTC 92,233,720,368,547.75807');
  assert.equal(btc.decimal('1.5'), null);
});

test('which sessions the pages format themselves: crypto, or a unit other than the currency', () => {
  const m = load();
  assert.equal(m.applies(displayFacts({ currency: 'EUR' }), 'EUR'), false);
  assert.equal(m.applies(displayFacts({ currency: 'BTC' }), 'BTC'), true);
  assert.equal(m.applies(displayFacts({ currency: 'UDT' }), 'UDT'), true);
  assert.equal(m.applies(undefined, 'EUR'), false);
});

test("property: the page shows exactly @opi/money's digits, for every unit of every currency", () => {
  const m = load();
  const units = currencies()
    .filter((c) => c.playable)
    .flatMap((c) => c.units.map((u) => [c.code, u.id] as const));
  fc.assert(
    fc.property(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      fc.constantFrom(...units),
      (minor, [currency, unit]) => {
        const f = unitFacts(currency, unit);
        const shown = m.create(displayFacts({ currency, display_unit: unit })).format(minor.toString());
        const exact = minorToUnitDecimal(minor, f.digits, f.precision);
        assert.equal(shown.replace(/,/g, ''), `${f.label} ${exact}`);
      },
    ),
    { numRuns: 3000 },
  );
});
