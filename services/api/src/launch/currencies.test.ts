import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LaunchUrlResponse } from '@opi/contract';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, assign, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';

// Issue 39 points 1, 2 and 4 at the launch: an operator enables registry currencies only (crypto
// included); a launch's display unit (checked against the registry, recorded on the session, in
// the answer and the runtime session read); GB refuses crypto currencies in every family; a coin
// in a crypto currency is exact to its minor unit. Real API, game server and PostgreSQL.
let h: Harness;
let op: { key: string };
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const native = CATALOG.find((e) => e.provider_id === 'prov_c' && e.integration_mode === 'operator-wallet')!;
const crash = CATALOG.find(
  (e) =>
    e.provider_id === 'prov_d' && e.integration_mode === 'operator-wallet' && !e.crash_currencies?.length,
);
let n = 0;
const pid = () => `cur-${process.pid}-${++n}`;
const CRYPTO = ['BTC', 'ETH', 'SOL', 'UDT', 'UDC', 'XDG', 'LTC', 'XRP', 'TRX', 'BNB'];

before(async () => {
  h = await startApi();
  op = await createOperator(h.base, 'op_cur', {
    default_currency: 'BTC',
    allowed_currencies: ['EUR', 'GBP', ...CRYPTO],
  });
  await assign(h.base, 'op_cur', [slot.symbol, native.symbol, ...(crash ? [crash.symbol] : [])]);
  // Stakes in a crypto currency come from a rate (issue 39 point 3): one for each.
  const rates = await admin('POST', '/exchange-rates', {
    rates: CRYPTO.map((quote) => ({
      base_currency: 'EUR',
      quote_currency: quote,
      rate_date: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
      rate: '1',
      source: 'test',
    })),
  });
  assert.equal(rates.status, 201, rates.text);
  for (const symbol of [native.symbol, ...(crash ? [crash.symbol] : [])]) {
    // prov_c/prov_d titles take operator-wallet launches once their per-title flag is on.
    const on = await admin('PUT', `/games/${symbol}/operator-wallet`, { enabled: true });
    assert.equal(on.status, 200, on.text);
  }
});
after(() => h.close());

const admin = (method: string, path: string, body?: unknown) =>
  call(h.base, method, `/api/admin/v1${path}`, { key: ADMIN_KEY, sign: true, body });
const launch = (body: Record<string, unknown>) =>
  call(h.base, 'POST', '/api/provider/v1/launch-url', { key: op.key, body });
const sessionsOf = async (player: string) =>
  (
    await h.db.pool.query(
      `SELECT s.display_unit, trim(s.currency) AS currency, s.coin_minor::text AS coin_minor
         FROM sessions s JOIN players p ON p.player_id = s.player_id WHERE p.external_player_id = $1`,
      [player],
    )
  ).rows;

describe('operators enable registry currencies (issue 39 point 1)', () => {
  test('crypto codes are taken; funds, metals, testing and unknown codes are 422 at the field', async () => {
    const ok = await admin('POST', '/operators', {
      operator_id: 'op_cur_ok',
      name: 'Crypto',
      default_currency: 'UDT',
      allowed_currencies: ['BTC', 'ETH', 'UDC'],
    });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual([...ok.json.data.allowed_currencies].sort(), ['BTC', 'ETH', 'UDC', 'UDT']);
    for (const [field, body] of [
      ['allowed_currencies', { allowed_currencies: ['EUR', 'XAU'] }],
      ['allowed_currencies', { allowed_currencies: ['QQQ'] }],
      ['allowed_currencies', { allowed_currencies: ['USDT'] }],
      ['default_currency', { default_currency: 'XTS' }],
      ['default_currency', { default_currency: 'CHE' }],
    ] as const) {
      const res = await admin('POST', '/operators', { operator_id: `op_cur_bad${++n}`, name: 'x', ...body });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json.detail[0].loc[1], field, res.text);
      const patch = await admin('PATCH', '/operators/op_cur_ok', body);
      assert.equal(patch.status, 422, patch.text);
    }
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM operators WHERE operator_id LIKE 'op_cur_bad%'`,
    );
    assert.equal(rows[0].n, 0);
  });
});

describe('display units at the launch (issue 39 point 2)', () => {
  test('BTC in mBTC: answered, recorded, and read by the page; the default unit without one', async () => {
    const player = pid();
    const res = await launch({
      symbol: slot.symbol,
      external_player_id: player,
      currency: 'BTC',
      display_unit: 'mBTC',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(LaunchUrlResponse.safeParse(res.json).success, true, res.text);
    assert.equal(res.json.display_unit, 'mBTC');
    assert.equal(res.json.data.display_unit, 'mBTC');
    assert.equal(res.json.amount_unit, 'minor');
    assert.deepEqual(await sessionsOf(player), [{ display_unit: 'mBTC', currency: 'BTC', coin_minor: null }]);
    const token = new URL(res.json.launch_url).searchParams.get('mgckey')!;
    const page = await call(h.game, 'GET', '/api/runtime/session', { headers: { 'x-session-token': token } });
    assert.equal(page.status, 200, page.text);
    assert.equal(page.json.currency_exponent, 8);
    assert.deepEqual(page.json.display, {
      unit: 'mBTC',
      label: 'mBTC',
      precision: 2,
      digits: 5,
      crypto: true,
    });

    // A relaunch without a unit goes back to the currency's first unit (a new launch, a new unit).
    const again = await launch({ symbol: slot.symbol, external_player_id: player, currency: 'BTC' });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.display_unit, 'BTC');
    assert.deepEqual(await sessionsOf(player), [{ display_unit: null, currency: 'BTC', coin_minor: null }]);

    const usdt = await launch({ symbol: slot.symbol, external_player_id: pid(), currency: 'UDT' });
    assert.equal(usdt.json.display_unit, 'USDT');
    const eur = await launch({ symbol: slot.symbol, external_player_id: pid(), currency: 'EUR' });
    assert.equal(eur.json.display_unit, 'EUR');
    const eurPage = await call(h.game, 'GET', '/api/runtime/session', {
      headers: { 'x-session-token': new URL(eur.json.launch_url).searchParams.get('mgckey')! },
    });
    assert.deepEqual(eurPage.json.display, {
      unit: 'EUR',
      label: 'EUR',
      precision: 2,
      digits: 2,
      crypto: false,
    });
  });

  test('a unit the currency does not have is 422 at body.display_unit, nothing written', async () => {
    for (const [currency, unit] of [
      ['BTC', 'gwei'],
      ['EUR', 'mBTC'],
      ['ETH', 'sat'],
      ['BTC', 'µBTC'],
      ['BTC', 'x'.repeat(9)],
      ['BTC', ''],
    ] as const) {
      const player = pid();
      const res = await launch({
        symbol: slot.symbol,
        external_player_id: player,
        currency,
        display_unit: unit,
      });
      assert.equal(res.status, 422, `${currency} ${unit}: ${res.text}`);
      assert.deepEqual(res.json.detail[0].loc, ['body', 'display_unit']);
      assert.deepEqual(await sessionsOf(player), []);
    }
    const notNumber = await launch({ symbol: slot.symbol, external_player_id: pid(), display_unit: 3 });
    assert.equal(notNumber.status, 422, notNumber.text);
  });

  test('every unit of every crypto currency launches', async () => {
    const units: Record<string, string[]> = {
      BTC: ['BTC', 'mBTC', 'uBTC', 'sat'],
      ETH: ['ETH', 'mETH', 'gwei'],
      SOL: ['SOL', 'lamport'],
      XDG: ['DOGE', 'koinu'],
    };
    for (const [currency, list] of Object.entries(units)) {
      for (const unit of list) {
        const res = await launch({
          symbol: slot.symbol,
          external_player_id: pid(),
          currency,
          display_unit: unit,
        });
        assert.equal(res.status, 200, `${currency} ${unit}: ${res.text}`);
        assert.equal(res.json.display_unit, unit);
      }
    }
  });
});

describe('coins in crypto currencies are exact', () => {
  test('a coin is whole minor units of the currency (BTC 8, SOL 9 digits), never rounded', async () => {
    for (const [currency, coin, minor] of [
      ['BTC', '0.00001', '1000'],
      ['BTC', 0.00000001, '1'],
      ['SOL', '0.000000001', '1'],
      ['ETH', '0.000000123', '123'],
      ['UDT', '0.01', '10000'],
    ] as const) {
      const player = pid();
      const res = await launch({ symbol: slot.symbol, external_player_id: player, currency, coin });
      assert.equal(res.status, 200, `${currency} ${coin}: ${res.text}`);
      assert.equal((await sessionsOf(player))[0]?.coin_minor, minor, `${currency} ${coin}`);
    }
    for (const [currency, coin] of [
      ['BTC', '0.000000001'],
      ['BTC', 0.000000015],
      ['SOL', '0.0000000001'],
      ['UDT', '0.0000001'],
    ] as const) {
      const player = pid();
      const res = await launch({ symbol: slot.symbol, external_player_id: player, currency, coin });
      assert.equal(res.status, 422, `${currency} ${coin}: ${res.text}`);
      assert.deepEqual(res.json.detail[0].loc, ['body', 'coin']);
      assert.deepEqual(await sessionsOf(player), []);
    }
  });
});

describe('GB: no crypto currency (issue 39 point 4)', () => {
  test('a GB launch in a crypto currency is 422 at body.currency for every family; nothing written', async () => {
    const titles = [slot.symbol, native.symbol, ...(crash ? [crash.symbol] : [])];
    for (const symbol of titles) {
      for (const currency of ['BTC', 'UDT']) {
        const player = pid();
        const res = await launch({ symbol, external_player_id: player, currency, jurisdiction: 'GB' });
        assert.equal(res.status, 422, `${symbol} ${currency}: ${res.text}`);
        assert.deepEqual(res.json.detail[0].loc, ['body', 'currency']);
        assert.match(res.json.detail[0].msg, /crypto currencies are not accepted under GB/);
        assert.deepEqual(await sessionsOf(player), []);
      }
    }
    // GB in fiat, and crypto outside GB, are taken.
    const gbp = await launch({
      symbol: slot.symbol,
      external_player_id: pid(),
      currency: 'GBP',
      jurisdiction: 'GB',
    });
    assert.equal(gbp.status, 200, gbp.text);
    const mt = await launch({
      symbol: slot.symbol,
      external_player_id: pid(),
      currency: 'BTC',
      jurisdiction: 'MT',
    });
    assert.equal(mt.status, 200, mt.text);
  });

  test('a currency the operator did not enable is 422 as before', async () => {
    const res = await launch({ symbol: slot.symbol, external_player_id: pid(), currency: 'JPY' });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.detail[0].loc, ['body', 'currency']);
  });
});
