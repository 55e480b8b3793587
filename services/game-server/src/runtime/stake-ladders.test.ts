import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LaunchUrlResponse } from '@opi/contract';
import { isNice } from '@opi/money';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';

// Issue 39 point 3: stake ladders by rate. A title's EUR ladder converted at the loaded rate in
// force, snapped to 1-2-5 steps of the minor unit, versioned (a new version only past the 10 %
// band), frozen on the session, recorded on every round (slot spin, native bet) with its version
// and rate; the operator's limits still apply; stakes off the ladder are 422. Real API, game
// server, PostgreSQL, Temporal and the sandbox wallet.
let w: PlayWorld;
const OP = 'op_ladders';
const SLOT = 'vs20emberfox';
const DICE = 'cndice';
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  w = await startPlayWorld({
    queue: 'ladders',
    operators: [
      {
        id: OP,
        settings: {
          default_currency: 'BTC',
          allowed_currencies: ['BTC', 'UDT', 'ETH', 'EUR'],
          // Limits in minor units of the session currency: 50 sat to 0.01 BTC.
          bet_limits: { min: '50', max: '1000000' },
        },
        titles: [SLOT, DICE],
      },
    ],
    operatorWalletTitles: [DICE],
  });
});
after(() => w?.close());

const loadRates = async (rates: Record<string, unknown>[]) => {
  const res = await call(w.h.base, 'POST', '/api/admin/v1/exchange-rates', {
    key: ADMIN_KEY,
    sign: true,
    body: { rates },
  });
  assert.ok(res.status === 201 || res.status === 200, res.text);
};
const ladderRows = async (currency: string) =>
  (
    await w.h.db.pool.query(
      `SELECT version, stakes_minor::text[] AS stakes, trim_scale(rate)::text AS rate, direction
         FROM stake_ladders WHERE symbol = $1 AND currency = $2 ORDER BY version`,
      [SLOT, currency],
    )
  ).rows;

describe('stake ladders by rate (issue 39 point 3)', () => {
  test('no rate loaded: a crypto launch is 422 at body.currency, nothing written; a coin launch needs none', async () => {
    const player = await w.newPlayer(OP, { currency: 'ETH', balanceMinor: 10_000_000_000 });
    const res = await call(w.h.base, 'POST', '/api/provider/v1/launch-url', {
      key: w.key,
      body: { symbol: SLOT, external_player_id: player, currency: 'ETH' },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.detail[0].loc, ['body', 'currency']);
    assert.match(res.json.detail[0].msg, /EUR\/ETH/);
    const { rows } = await w.h.db.pool.query(
      `SELECT count(*)::int AS n FROM sessions WHERE currency = 'ETH'`,
    );
    assert.equal(rows[0].n, 0);
    const coin = await w.launch(w.key, {
      symbol: SLOT,
      external_player_id: player,
      currency: 'ETH',
      coin: '0.00001',
    });
    assert.equal(coin.json.stake_ladder, null);
  });

  test('BTC: version 1 at the rate in force, the same ladder within the band, version 2 past it; sessions keep theirs', async () => {
    // BTC/EUR 98,765.12 (a BTC/EUR row: used inverted). EUR 1 = 1012.5 sat → 1000.
    await loadRates([
      { base_currency: 'BTC', quote_currency: 'EUR', rate_date: day(-3), rate: '98765.12', source: 'test' },
    ]);
    const p1 = await w.newPlayer(OP, { currency: 'BTC', balanceMinor: 10_000_000 });
    const l1 = await w.launch(w.key, {
      symbol: SLOT,
      external_player_id: p1,
      currency: 'BTC',
      display_unit: 'mBTC',
    });
    assert.equal(LaunchUrlResponse.safeParse(l1.json).success, true, JSON.stringify(l1.json));
    const v1 = l1.json.stake_ladder;
    assert.equal(v1.version, 1);
    assert.equal(v1.reference_currency, 'EUR');
    assert.deepEqual(v1.stakes_minor, [
      '100',
      '200',
      '500',
      '1000',
      '2000',
      '5000',
      '10000',
      '20000',
      '50000',
      '100000',
    ]);
    assert.deepEqual(v1.rate, {
      base: 'BTC',
      quote: 'EUR',
      date: day(-3),
      source: 'test',
      value: '98765.12',
      direction: 'inverse',
    });
    for (const s of v1.stakes_minor) assert.ok(isNice(BigInt(s)));
    // The page offers the ladder within the operator's limits (50 sat to 0.01 BTC).
    const page = await w.runtime(l1.token!, 'GET', '/api/runtime/session');
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(page.json.stakes_minor, v1.stakes_minor);
    assert.equal(page.json.stake_ladder.ladder_id, v1.ladder_id);
    assert.equal(page.json.display.unit, 'mBTC');

    // Within the band (+1.25 %): the same ladder for a new session.
    await loadRates([
      { base_currency: 'BTC', quote_currency: 'EUR', rate_date: day(-2), rate: '100000', source: 'test' },
    ]);
    const p2 = await w.newPlayer(OP, { currency: 'BTC', balanceMinor: 10_000_000 });
    const l2 = await w.launch(w.key, { symbol: SLOT, external_player_id: p2, currency: 'BTC' });
    assert.equal(l2.json.stake_ladder.ladder_id, v1.ladder_id);

    // Past the band (-40 %: BTC/EUR 60,000): version 2, derived at the new rate.
    await loadRates([
      { base_currency: 'BTC', quote_currency: 'EUR', rate_date: day(-1), rate: '60000', source: 'test' },
    ]);
    const p3 = await w.newPlayer(OP, { currency: 'BTC', balanceMinor: 10_000_000 });
    const l3 = await w.launch(w.key, { symbol: SLOT, external_player_id: p3, currency: 'BTC' });
    const v2 = l3.json.stake_ladder;
    assert.equal(v2.version, 2);
    // EUR 1 = 1666.67 sat → 2000.
    assert.deepEqual(v2.stakes_minor, [
      '200',
      '500',
      '1000',
      '2000',
      '5000',
      '10000',
      '20000',
      '50000',
      '100000',
      '200000',
    ]);
    assert.equal(v2.rate.value, '60000');
    // The first session, relaunched, keeps version 1: its ladder is frozen.
    const again = await w.launch(w.key, { symbol: SLOT, external_player_id: p1, currency: 'BTC' });
    assert.equal(again.sessionId, l1.sessionId);
    assert.equal(again.json.stake_ladder.ladder_id, v1.ladder_id);
    assert.equal((await ladderRows('BTC')).length, 2);

    // A spin at a ladder stake: the round records the ladder, the wallet's callbacks are minor units.
    const spin = await w.spin(again.token!, { bet_minor: '1000' });
    assert.equal(spin.status, 200, spin.text);
    const { rows } = await w.h.db.pool.query(
      `SELECT r.bet_minor::text AS bet, r.stake_ladder_id, l.version, trim_scale(l.rate)::text AS rate,
              (SELECT array_agg(t.amount_minor::text ORDER BY t.created_at) FROM wallet_transactions t
                WHERE t.round_id = r.round_id AND t.transaction_type = 'debit') AS debits,
              (SELECT array_agg(DISTINCT trim(t.currency)) FROM wallet_transactions t WHERE t.round_id = r.round_id) AS currencies
         FROM rounds r JOIN stake_ladders l ON l.ladder_id = r.stake_ladder_id
        WHERE r.session_id = $1`,
      [l1.sessionId],
    );
    assert.deepEqual(rows, [
      {
        bet: '1000',
        stake_ladder_id: v1.ladder_id,
        version: 1,
        rate: '98765.12',
        debits: ['1000'],
        currencies: ['BTC'],
      },
    ]);
    // Off the ladder, or outside the operator's limits: 422, nothing written.
    for (const [bet, error] of [
      ['1500', 'stake_not_on_ladder'],
      ['999', 'stake_not_on_ladder'],
      ['2000000', undefined],
    ] as const) {
      const off = await w.spin(again.token!, { bet_minor: bet });
      assert.equal(off.status, 422, off.text);
      assert.deepEqual(off.json.detail[0].loc, ['body', 'bet_minor']);
      assert.equal(off.json.error, error);
    }
    const count = await w.h.db.pool.query(`SELECT count(*)::int AS n FROM rounds WHERE session_id = $1`, [
      l1.sessionId,
    ]);
    assert.equal(count.rows[0].n, 1);
  });

  test('a stablecoin (UDT, EUR/UDT 1.0823 as loaded) and a native Dice bet on its ladder', async () => {
    await loadRates([
      { base_currency: 'EUR', quote_currency: 'UDT', rate_date: day(-1), rate: '1.0823', source: 'test' },
    ]);
    const player = await w.newPlayer(OP, { currency: 'UDT', balanceMinor: 1_000_000_000 });
    const slot = await w.launch(w.key, { symbol: SLOT, external_player_id: player, currency: 'UDT' });
    assert.equal(slot.json.display_unit, 'USDT');
    assert.equal(slot.json.stake_ladder.rate.direction, 'direct');
    // USDT 0.10 … 100 (EUR 1 = USDT 1.0823 → 1.00), within 50 to 1,000,000 micro-USDT.
    assert.deepEqual(slot.json.stake_ladder.stakes_minor, [
      '100000',
      '200000',
      '500000',
      '1000000',
      '2000000',
      '5000000',
      '10000000',
      '20000000',
      '50000000',
      '100000000',
    ]);
    const page = await w.runtime(slot.token!, 'GET', '/api/runtime/session');
    assert.deepEqual(page.json.stakes_minor, ['100000', '200000', '500000', '1000000']);

    const dice = await w.launch(w.key, { symbol: DICE, external_player_id: player, currency: 'UDT' });
    const ex = await call(w.h.game, 'POST', '/api/runtime/native/session-from-grant', {
      body: { grant: dice.grant },
    });
    assert.equal(ex.status, 200, ex.text);
    assert.deepEqual(ex.json.stakes_minor, ['100000', '200000', '500000', '1000000']);
    assert.equal(ex.json.default_stake_minor, '1000000');
    assert.equal(ex.json.session.display.label, 'USDT');
    const token = ex.json.token as string;
    const off = await w.runtime(token, 'POST', '/api/runtime/native/bet', {
      stake_minor: '150000',
      target: 5000,
    });
    assert.equal(off.status, 422, off.text);
    assert.equal(off.json.error, 'stake_not_on_ladder');
    const bet = await w.runtime(token, 'POST', '/api/runtime/native/bet', {
      stake_minor: '1000000',
      target: 5000,
    });
    assert.equal(bet.status, 200, bet.text);
    const { rows } = await w.h.db.pool.query(
      `SELECT r.bet_minor::text AS bet, l.version, trim(l.currency) AS currency FROM rounds r
         JOIN stake_ladders l ON l.ladder_id = r.stake_ladder_id WHERE r.session_id = $1`,
      [dice.sessionId],
    );
    assert.deepEqual(rows, [{ bet: '1000000', version: 1, currency: 'UDT' }]);
  });
});
