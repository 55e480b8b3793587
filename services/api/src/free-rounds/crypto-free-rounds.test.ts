import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';

// Issue 39 point 3: free-round campaigns in a crypto currency (docs/currencies.md, "Free rounds in
// a crypto currency"). Real parts: the API, the game server, PostgreSQL, Temporal and the sandbox
// wallet over HTTP. A BTC campaign's stake must be a stake of the title's ladder by rate in force
// (not the fiat 1-2-5 steps within the limits); its rounds are played at that stake on the
// session's frozen ladder, credited in satoshis, counted in the campaign's won total, reconciled.
// A session frozen on a later ladder version plays the campaign's stake snapped to its ladder.

const OP = 'op_crypto_fr';
const SLOT = 'vs20emberfox';
let w: PlayWorld;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const window = () => ({
  valid_from: new Date(Date.now() - 60_000).toISOString(),
  expires_at: new Date(Date.now() + 3_600_000).toISOString(),
});

before(async () => {
  w = await startPlayWorld({
    queue: 'crypto-free-rounds',
    operators: [
      {
        id: OP,
        settings: {
          default_currency: 'BTC',
          allowed_currencies: ['BTC', 'ETH', 'EUR'],
          bet_limits: { min: '100', max: '5000000' },
        },
        titles: [SLOT],
      },
    ],
  });
  await loadRate('98765.12', day(-1));
});
after(() => w?.close());

async function loadRate(btcInEur: string, date: string) {
  const res = await call(w.h.base, 'POST', '/api/admin/v1/exchange-rates', {
    key: ADMIN_KEY,
    sign: true,
    body: {
      rates: [
        { base_currency: 'BTC', quote_currency: 'EUR', rate_date: date, rate: btcInEur, source: 'test' },
      ],
    },
  });
  assert.equal(res.status, 201, res.text);
}

const create = (body: Record<string, unknown>) =>
  call(w.h.base, 'POST', '/api/provider/v1/free-rounds', { key: w.key, sign: true, body });

describe('free rounds in BTC (issue 39)', () => {
  test("a campaign's stake is checked against the title's ladder by rate, not the fiat steps", async () => {
    const base = { symbols: [SLOT], currency: 'BTC', rounds: 2, ...window() };
    // 1,000,000 and 200,000 sat are 1-2-5 steps within the operator's limits (the fiat rule would
    // take them), but not on the BTC ladder at 98,765.12 EUR (100 ... 100,000 sat); 300 is neither.
    for (const bet of [1_000_000, 200_000, 300]) {
      const res = await create({ ...base, campaign_id: `fr-btc-off-${bet}`, bet_minor: bet });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.json.detail[0].loc, ['body', 'bet_minor']);
      assert.match(
        res.json.detail[0].msg,
        /offers the stakes 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000 \(minor units\)/,
      );
    }
    // Below the operator's minimum: 422 as before.
    const low = await create({ ...base, campaign_id: 'fr-btc-low', bet_minor: 50 });
    assert.equal(low.status, 422, low.text);
    // ETH is enabled but no EUR rate of it is loaded: no ladder, so no stake can be checked.
    const eth = await create({ ...base, currency: 'ETH', campaign_id: 'fr-eth', bet_minor: 1000 });
    assert.equal(eth.status, 422, eth.text);
    assert.deepEqual(eth.json.detail[0].loc, ['body', 'currency']);
    assert.match(eth.json.detail[0].msg, /none is loaded for EUR\/ETH/);
    // Nothing of the refused ones was written.
    const { rows } = await w.h.db.pool.query(
      `SELECT campaign_id FROM free_round_campaigns WHERE operator_id = $1`,
      [OP],
    );
    assert.deepEqual(rows, []);
    // A fiat campaign keeps the 1-2-5 steps: EUR 20.00 is one.
    const eur = await create({
      ...base,
      currency: 'EUR',
      campaign_id: 'fr-eur',
      bet_minor: 2000,
      players: [],
    });
    assert.equal(eur.status, 201, eur.text);
  });

  test('a BTC campaign played: its stake on the frozen ladder, credits in satoshis, won total, reconciliation', async () => {
    const player = await w.newPlayer(OP, { currency: 'BTC', balanceMinor: 1_000_000 });
    const created = await create({
      campaign_id: 'fr-btc-play',
      symbols: [SLOT],
      currency: 'BTC',
      bet_minor: '1000',
      rounds: 3,
      players: [player],
      ...window(),
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.data.bet_minor, '1000');
    const l = await w.launch(w.key, { symbol: SLOT, external_player_id: player, currency: 'BTC' });
    assert.equal(l.json.stake_ladder.version, 1);
    assert.ok(l.json.stake_ladder.stakes_minor.includes('1000'));
    assert.equal(l.json.free_rounds.bet_minor, '1000');
    assert.equal(l.json.free_rounds.rounds_remaining, 3);
    // A paid spin while they remain is 409; a free round at another stake 422.
    assert.equal((await w.spin(l.token!, { bet_minor: 1000 })).status, 409);
    const wrong = await w.spin(l.token!, { bet_minor: 500, free_round: true });
    assert.equal(wrong.status, 422, wrong.text);
    let won = 0n;
    const roundIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await w.spin(l.token!, { bet_minor: 1000, free_round: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.status, 'completed', res.text);
      assert.equal(res.json.bet_minor, '0');
      assert.equal(res.json.free_round.bet_minor, '1000');
      assert.equal(res.json.free_round_last, i === 2);
      won += BigInt(res.json.win_minor);
      roundIds.push(res.json.round_id);
    }
    // Every round: no stake, the campaign's stake recorded, the session's ladder.
    const { rows } = await w.h.db.pool.query(
      `SELECT bet_minor::text, free_round_bet_minor::text, stake_ladder_id, status FROM rounds
        WHERE round_id = ANY($1)`,
      [roundIds],
    );
    assert.equal(rows.length, 3);
    for (const r of rows) {
      assert.deepEqual(
        [r.bet_minor, r.free_round_bet_minor, r.stake_ladder_id, r.status],
        ['0', '1000', l.json.stake_ladder.ladder_id, 'completed'],
      );
    }
    // The credits: one per round, the win in satoshis, tagged with the campaign; no debit at all.
    const journal = await w.h.db.pool.query(
      `SELECT transaction_type, status, amount_minor::text, trim(currency) AS currency, request_body
         FROM wallet_transactions WHERE round_id = ANY($1) ORDER BY created_at`,
      [roundIds],
    );
    assert.equal(journal.rows.length, 3);
    let credited = 0n;
    for (const t of journal.rows) {
      assert.deepEqual([t.transaction_type, t.status, t.currency], ['credit', 'success', 'BTC']);
      const body = JSON.parse(t.request_body);
      assert.equal(body.action_type, 'free_round');
      assert.equal(body.campaign_id, 'fr-btc-play');
      assert.equal(String(body.amount_minor), t.amount_minor);
      assert.equal(body.currency, 'BTC');
      credited += BigInt(t.amount_minor);
    }
    assert.equal(credited, won);
    // The wallet holds the start plus the wins, to the satoshi; the campaign's won total is the credits'.
    assert.equal((await w.admin.balance(OP, player, 'BTC')).balance_minor, String(1_000_000n + won));
    const read = await call(w.h.base, 'GET', '/api/provider/v1/free-rounds/fr-btc-play', {
      key: w.key,
      sign: true,
    });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.data.won_minor, won.toString());
    assert.equal(read.json.data.players[0].rounds_remaining, 0);
    // Reconciliation in BTC: balanced; the free rounds reported apart, exact.
    const rec = await call(w.h.base, 'GET', '/api/operator/v1/reconciliation?currency=BTC', {
      key: w.key,
      sign: true,
    });
    assert.equal(rec.status, 200, rec.text);
    const cur = rec.json.data.currencies.find((c: { currency: string }) => c.currency === 'BTC');
    assert.equal(cur.balanced, true, rec.text);
    const fr = rec.json.data.free_rounds.find((c: { currency: string }) => c.currency === 'BTC');
    assert.deepEqual(
      [fr.rounds, String(fr.free_round_win_minor), String(fr.free_round_credit_minor)],
      [3, won.toString(), won.toString()],
    );
  });

  test("a session frozen on a later ladder plays the campaign's stake snapped to its ladder", async () => {
    const early = await w.newPlayer(OP, { currency: 'BTC', balanceMinor: 1_000_000 });
    const late = await w.newPlayer(OP, { currency: 'BTC', balanceMinor: 1_000_000 });
    // 100 sat (EUR 0.10 at 98,765.12) is the first step of today's ladder.
    const created = await create({
      campaign_id: 'fr-btc-drift',
      symbols: [SLOT],
      currency: 'BTC',
      bet_minor: 100,
      rounds: 1,
      players: [early, late],
      ...window(),
    });
    assert.equal(created.status, 201, created.text);
    const first = await w.launch(w.key, { symbol: SLOT, external_player_id: early, currency: 'BTC' });
    assert.equal(first.json.free_rounds.bet_minor, '100');
    // BTC falls to EUR 30,000 (past the 10 % band): a new ladder version, EUR 0.10 = 333 sat → 500.
    await loadRate('30000', day(0));
    const second = await w.launch(w.key, { symbol: SLOT, external_player_id: late, currency: 'BTC' });
    assert.equal(second.json.stake_ladder.version, first.json.stake_ladder.version + 1);
    assert.equal(second.json.stake_ladder.stakes_minor[0], '500');
    assert.ok(!second.json.stake_ladder.stakes_minor.includes('100'));
    // The campaign's 100 sat is not on it: the session plays the nearest step, 500 sat (the
    // campaign itself is unchanged), and the round records the stake played.
    assert.equal(second.json.free_rounds.bet_minor, '500');
    const session = await w.runtime(second.token!, 'GET', '/api/runtime/session');
    assert.equal(session.json.free_rounds.bet_minor, '500');
    const off = await w.spin(second.token!, { bet_minor: 100, free_round: true });
    assert.equal(off.status, 422, off.text);
    const played = await w.spin(second.token!, { bet_minor: 500, free_round: true });
    assert.equal(played.status, 200, played.text);
    assert.equal(played.json.free_round.bet_minor, '500');
    // The early session keeps its ladder (version 1) and the campaign's own stake.
    const kept = await w.spin(first.token!, { bet_minor: 100, free_round: true });
    assert.equal(kept.status, 200, kept.text);
    const { rows } = await w.h.db.pool.query(
      `SELECT r.round_id, r.free_round_bet_minor::text AS stake, l.version
         FROM rounds r JOIN stake_ladders l ON l.ladder_id = r.stake_ladder_id WHERE r.round_id = ANY($1)`,
      [[played.json.round_id, kept.json.round_id]],
    );
    const by = Object.fromEntries(rows.map((r) => [r.round_id, [r.stake, r.version]]));
    assert.deepEqual(by[played.json.round_id], ['500', second.json.stake_ladder.version]);
    assert.deepEqual(by[kept.json.round_id], ['100', first.json.stake_ladder.version]);
    await until('both free rounds credited', async () => {
      const { rows: c } = await w.h.db.pool.query(
        `SELECT count(*)::int AS n FROM wallet_transactions WHERE round_id = ANY($1) AND status = 'success'`,
        [[played.json.round_id, kept.json.round_id]],
      );
      return c[0].n === 2;
    });
    const read = await call(w.h.base, 'GET', '/api/provider/v1/free-rounds/fr-btc-drift', {
      key: w.key,
      sign: true,
    });
    assert.equal(read.json.data.bet_minor, '100');
    assert.equal(read.json.data.rounds_used, 2);
  });
});
