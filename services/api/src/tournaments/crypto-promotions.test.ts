import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { minorToDecimalString } from '@opi/money';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import { startPayPromo } from '@opi/workflows';

/*
 * Issue 39 point 3: tournaments, prize drops and jackpots in crypto currencies
 * (docs/currencies.md, "Promotions in a crypto currency"). Real parts: the admin API, the game
 * server's spins at the sessions' ladders by rate, Temporal (the tournament's timers and payout
 * workflows, the rounds' settlement) and the sandbox wallet over HTTP. Every amount is an integer
 * of the currency's minor unit (satoshi, gwei), paid exactly: a BTC and ETH tournament's prize
 * tables, an ETH prize drop awarded and paid once, and jackpot pools in BTC and ETH exact to the
 * micro-unit, their hits paid to the unit.
 */

const slots = CATALOG.filter((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted');
const [TOURNEY_SLOT, DROP_SLOT, JACKPOT_SLOT] = [slots[0]!.symbol, slots[1]!.symbol, slots[2]!.symbol];
const OP = 'op_crypto_promo';
let w: PlayWorld;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const admin = (method: string, path: string, body?: unknown) =>
  call(w.h.base, method, `/api/admin/v1${path}`, { key: ADMIN_KEY, sign: true, ...(body ? { body } : {}) });
const sleepUntil = async (at: number) => {
  const ms = at - Date.now();
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
};

// Prize tables in satoshis and gwei, with every digit of the minor unit used.
const BTC_PRIZES = ['123456789', '2345678', '1'];
const ETH_PRIZES = ['1234567891'];
let STARTS = 0;
let ENDS = 0;

before(async () => {
  w = await startPlayWorld({
    queue: 'crypto-promotions',
    client: true,
    operators: [
      {
        id: OP,
        settings: {
          default_currency: 'BTC',
          allowed_currencies: ['BTC', 'ETH'],
          bet_limits: { min: '100', max: '5000000' },
        },
        titles: [TOURNEY_SLOT, DROP_SLOT, JACKPOT_SLOT],
      },
    ],
  });
  const rates = await admin('POST', '/exchange-rates', {
    rates: [
      { base_currency: 'BTC', quote_currency: 'EUR', rate_date: day(-1), rate: '98765.12', source: 'test' },
      { base_currency: 'ETH', quote_currency: 'EUR', rate_date: day(-1), rate: '3456.78', source: 'test' },
    ],
  });
  assert.equal(rates.status, 201, rates.text);
  STARTS = Date.now() + 6_000;
  ENDS = STARTS + 14_000;
  const t = await admin('PUT', '/tournaments/crypto-cup', {
    name: 'Crypto cup',
    scoring: 'total_win',
    starts_at: new Date(STARTS).toISOString(),
    ends_at: new Date(ENDS).toISOString(),
    titles: [TOURNEY_SLOT],
    currencies: {
      BTC: { min_stake_minor: 100, prizes: BTC_PRIZES },
      ETH: { min_stake_minor: 10_000, prizes: ETH_PRIZES },
    },
  });
  assert.equal(t.status, 201, t.text);
  assert.deepEqual(
    t.json.data.currencies.map((c: { currency: string; prizes: { amount_minor: string }[] }) => [
      c.currency,
      c.prizes.map((p) => p.amount_minor),
    ]),
    [
      ['BTC', BTC_PRIZES],
      ['ETH', ETH_PRIZES],
    ],
  );
  const opt = await admin('PUT', `/tournaments/crypto-cup/operators/${OP}`, { enabled: true });
  assert.equal(opt.status, 200, opt.text);
});
after(() => w?.close());

async function session(currency: string, symbol: string, balanceMinor: number) {
  const player = await w.newPlayer(OP, { currency, balanceMinor });
  const l = await w.launch(w.key, { symbol, external_player_id: player, currency });
  assert.ok(l.json.stake_ladder, `a ${currency} session has a ladder`);
  return { player, token: l.token!, ladder: l.json.stake_ladder.stakes_minor as string[] };
}

const balance = async (player: string, currency: string) =>
  BigInt((await w.admin.balance(OP, player, currency)).balance_minor);

/** The journal's credit of a payout or round, with the body the wallet was sent. */
async function credits(roundId: string) {
  const { rows } = await w.h.db.pool.query(
    `SELECT transaction_type, status, amount_minor::text, trim(currency) AS currency, request_body
       FROM wallet_transactions WHERE round_id = $1 AND transaction_type = 'credit' ORDER BY created_at`,
    [roundId],
  );
  return rows.map((r) => ({ ...r, body: JSON.parse(r.request_body) }));
}

describe('a tournament in BTC and ETH pays its prize tables exactly (issue 39)', () => {
  const players: Record<string, { player: string; token: string; currency: string; stake: string }> = {};

  test('players in each currency score their settled wins at their ladder stakes', async () => {
    for (const [name, currency, balance] of [
      ['b1', 'BTC', 10_000_000],
      ['b2', 'BTC', 10_000_000],
      ['e1', 'ETH', 1_000_000_000],
    ] as const) {
      const s = await session(currency, TOURNEY_SLOT, balance);
      // The ladder's second stake: EUR 0.20 at the rate (200 sat; 50,000 gwei).
      players[name] = { ...s, currency, stake: s.ladder[1]! };
    }
    assert.equal(players.b1!.stake, '200');
    await sleepUntil(STARTS + 300);
    // Spin until each player has a win (at most 40 spins each; a slot wins about one spin in four).
    for (const p of Object.values(players)) {
      let won = 0n;
      for (let i = 0; i < 40 && won === 0n; i++) {
        const res = await w.spin(p.token, { bet_minor: p.stake });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.status, 'completed', res.text);
        won += BigInt(res.json.win_minor);
      }
      assert.ok(won > 0n, `${p.player} won something`);
    }
    assert.ok(Date.now() < ENDS - 1_000, 'the spins ended before the tournament');
    const { rows } = await w.h.db.pool.query(
      `SELECT trim(currency) AS currency, external_player_id, score::text FROM tournament_scores
        WHERE tournament_id = 'crypto-cup' ORDER BY currency, external_player_id`,
    );
    assert.deepEqual(rows.map((r) => r.currency).sort(), ['BTC', 'BTC', 'ETH']);
    // A total-win score is the settled wins in minor units of the currency.
    for (const r of rows) {
      const p = Object.values(players).find((x) => x.player === r.external_player_id)!;
      const { rows: won } = await w.h.db.pool.query(
        `SELECT coalesce(sum(r.win_minor), 0)::text AS won FROM rounds r JOIN sessions s USING (session_id)
          JOIN players pl ON pl.player_id = s.player_id
         WHERE pl.external_player_id = $1 AND r.symbol = $2 AND r.status = 'completed' AND r.settled_at >= $3`,
        [p.player, TOURNEY_SLOT, new Date(STARTS)],
      );
      assert.equal(r.score, `${won[0].won}.00000000`);
    }
  });

  test('at the end each rank is paid its prize to the unit, once, as a promo_win credit', async () => {
    const before: Record<string, bigint> = {};
    for (const p of Object.values(players)) before[p.player] = await balance(p.player, p.currency);
    await sleepUntil(ENDS);
    const t = await until(
      'the cup paid',
      async () => {
        const d = (await admin('GET', '/tournaments/crypto-cup')).json.data;
        return d.status === 'paid' ? d : undefined;
      },
      40_000,
      200,
    );
    const { rows: standings } = await w.h.db.pool.query(
      `SELECT trim(currency) AS currency, rank, external_player_id, prize_minor::text FROM tournament_standings
        WHERE tournament_id = 'crypto-cup' ORDER BY currency, rank`,
    );
    // Two BTC places (ranks 1 and 2 of three prizes) and one ETH place.
    const expected = standings
      .filter((s) => s.prize_minor !== null)
      .map((s) => [
        s.currency,
        s.rank,
        s.external_player_id,
        (s.currency === 'BTC' ? BTC_PRIZES : ETH_PRIZES)[s.rank - 1],
      ]);
    assert.deepEqual(
      expected.map(([c, r]) => [c, r]),
      [
        ['BTC', 1],
        ['BTC', 2],
        ['ETH', 1],
      ],
    );
    for (const s of standings)
      assert.equal(s.prize_minor, (s.currency === 'BTC' ? BTC_PRIZES : ETH_PRIZES)[s.rank - 1]);
    assert.deepEqual(
      t.payouts
        .map((p: any) => [p.currency, p.rank, p.player_id, p.amount_minor, p.status])
        .sort((a: any[], b: any[]) => `${a[0]}${a[1]}`.localeCompare(`${b[0]}${b[1]}`)),
      expected.map((e) => [...e, 'paid']),
    );
    for (const p of t.payouts) {
      // The journal and the wallet: one credit of exactly the prize, in the currency's minor unit.
      const [c, ...more] = await credits(p.payout_id);
      assert.equal(more.length, 0);
      assert.deepEqual([c!.status, c!.amount_minor, c!.currency], ['success', p.amount_minor, p.currency]);
      assert.deepEqual(
        [
          c!.body.action_type,
          c!.body.promo_type,
          c!.body.promo_id,
          c!.body.rank,
          String(c!.body.amount_minor),
        ],
        ['promo_win', 'tournament', 'crypto-cup', p.rank, p.amount_minor],
      );
      // The decimal beside it is exact too (1.23456789 BTC; 1e-8 for 1 sat is the same number).
      assert.equal(c!.body.amount, Number(minorToDecimalString(BigInt(p.amount_minor), p.currency)));
      const { rows: held } = await w.h.db.pool.query(
        `SELECT amount_minor::text FROM wallet.transactions WHERE operator_id = $1 AND round_id = $2`,
        [OP, p.payout_id],
      );
      assert.deepEqual(held, [{ amount_minor: p.amount_minor }]);
      // The balance rose by exactly the prize; starting the payout again pays nothing.
      assert.equal(await balance(p.player_id, p.currency), before[p.player_id]! + BigInt(p.amount_minor));
      assert.equal((await startPayPromo(w.client!, w.taskQueue, p.payout_id)).started, false);
    }
    // The audit API's promotional payouts: the same integers of the currency's minor unit.
    const audit = await call(w.h.base, 'GET', '/api/operator/v1/promo-payouts?promo_id=crypto-cup', {
      key: w.key,
      sign: true,
    });
    assert.equal(audit.status, 200, audit.text);
    assert.deepEqual(
      audit.json.data.items
        .map((p: any) => [p.currency, p.rank, String(p.amount_minor), p.status])
        .sort((a: any[], b: any[]) => `${a[0]}${a[1]}`.localeCompare(`${b[0]}${b[1]}`)),
      expected.map(([c, r, , amount]) => [c, r, amount, 'paid']),
    );
    // The operator's leaderboard shows the frozen standings with the prizes in minor units.
    const board = await call(
      w.h.base,
      'GET',
      '/api/provider/v1/tournaments/crypto-cup/leaderboard?currency=BTC',
      {
        key: w.key,
        sign: true,
      },
    );
    assert.equal(board.status, 200, board.text);
    assert.deepEqual(
      board.json.data.leaderboards[0].items.map((e: any) => e.prize_minor),
      BTC_PRIZES.slice(0, 2),
    );
  });
});

test('a prize drop in ETH awards once and pays exactly once, in gwei', async () => {
  const def = await admin('PUT', '/prize-drops/eth-drop', {
    name: 'ETH drop',
    starts_at: new Date(Date.now() - 1_000).toISOString(),
    ends_at: new Date(Date.now() + 3_600_000).toISOString(),
    titles: [DROP_SLOT],
    currencies: {
      ETH: { prize_minor: '1234567891', prizes: 1, min_stake_minor: 20_000, award_every_spins: 1 },
    },
  });
  assert.equal(def.status, 201, def.text);
  assert.equal((await admin('PUT', `/prize-drops/eth-drop/operators/${OP}`, { enabled: true })).status, 200);
  const a = await session('ETH', DROP_SLOT, 1_000_000_000);
  const b = await session('ETH', DROP_SLOT, 1_000_000_000);
  const first = await w.spin(a.token, { bet_minor: a.ladder[0] });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.json.status, 'completed', first.text);
  assert.deepEqual(first.json.prize_drop, { drop_id: 'eth-drop', amount_minor: '1234567891' });
  // One prize: the next qualifying spin (another player) wins none; nor does the winner again.
  const second = await w.spin(b.token, { bet_minor: b.ladder[0] });
  assert.equal(second.json.prize_drop, null);
  assert.equal((await w.spin(a.token, { bet_minor: a.ladder[0] })).json.prize_drop, null);
  const { rows } = await w.h.db.pool.query(
    `SELECT payout_id, external_player_id, amount_minor::text, trim(currency) AS currency, status
       FROM promo_payouts WHERE promo_type = 'prize_drop' AND promo_id = 'eth-drop'`,
  );
  assert.equal(rows.length, 1);
  const award = rows[0]!;
  assert.deepEqual(
    [award.external_player_id, award.amount_minor, award.currency],
    [a.player, '1234567891', 'ETH'],
  );
  await until('the award paid', async () => {
    const { rows: r } = await w.h.db.pool.query(`SELECT status FROM promo_payouts WHERE payout_id = $1`, [
      award.payout_id,
    ]);
    return r[0]?.status === 'paid';
  });
  const [c, ...more] = await credits(award.payout_id);
  assert.equal(more.length, 0);
  assert.deepEqual(
    [c!.status, c!.amount_minor, c!.currency, c!.body.action_type, c!.body.promo_type, c!.body.amount],
    ['success', '1234567891', 'ETH', 'promo_win', 'prize_drop', 1.234567891],
  );
  assert.equal((await startPayPromo(w.client!, w.taskQueue, award.payout_id)).started, false);
  // The winner's wallet: the start, less two stakes, plus the two wins and the prize, to the gwei.
  await until('both rounds settled', async () => {
    const { rows: r } = await w.h.db.pool.query(
      `SELECT count(*)::int AS n FROM rounds r JOIN sessions s USING (session_id) JOIN players p ON p.player_id = s.player_id
        WHERE p.external_player_id = $1 AND r.status = 'completed'`,
      [a.player],
    );
    return r[0].n === 2;
  });
  const { rows: rounds } = await w.h.db.pool.query(
    `SELECT coalesce(sum(r.win_minor - r.bet_minor), 0)::text AS net FROM rounds r JOIN sessions s USING (session_id)
       JOIN players p ON p.player_id = s.player_id WHERE p.external_player_id = $1`,
    [a.player],
  );
  assert.equal(await balance(a.player, 'ETH'), 1_000_000_000n + BigInt(rounds[0].net) + 1_234_567_891n);
  const feed = await call(w.h.base, 'GET', '/api/provider/v1/prize-drops', { key: w.key, sign: true });
  const pool = feed.json.data.items.find((d: any) => d.drop_id === 'eth-drop').pools[0];
  assert.deepEqual([pool.currency, pool.prize_minor, pool.prizes_left], ['ETH', '1234567891', 0]);
});

test('jackpot pools per crypto currency: contributions exact to the micro-unit, hits paid to the unit', async () => {
  // mini hits every spin (hit_every_minor 1); mega never does in a test's lifetime.
  const def = await admin('PUT', '/jackpots/jp-crypto-pools', {
    name: 'Crypto pools',
    scope: 'operator',
    operator_id: OP,
    titles: [JACKPOT_SLOT],
    levels: [
      {
        level: 'mini',
        contribution_rate_ppm: 10_000,
        currencies: {
          BTC: { seed_minor: 123_456, hit_every_minor: 1 },
          ETH: { seed_minor: 1_234_567_891, hit_every_minor: 1 },
        },
      },
      {
        level: 'mega',
        contribution_rate_ppm: 3_333,
        currencies: {
          BTC: { seed_minor: 10_000_000, hit_every_minor: '1000000000000000' },
          ETH: { seed_minor: 100_000_000_000, hit_every_minor: '1000000000000000' },
        },
      },
    ],
  });
  assert.equal(def.status, 201, def.text);
  const seeds: Record<string, Record<string, bigint>> = {
    BTC: { mini: 123_456n, mega: 10_000_000n },
    ETH: { mini: 1_234_567_891n, mega: 100_000_000_000n },
  };
  const rates: Record<string, bigint> = { mini: 10_000n, mega: 3_333n };
  for (const currency of ['BTC', 'ETH']) {
    const s = await session(currency, JACKPOT_SLOT, currency === 'BTC' ? 10_000_000 : 1_000_000_000);
    const stake = BigInt(s.ladder[2]!);
    const wins: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await w.spin(s.token, { bet_minor: stake.toString() });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.status, 'completed', res.text);
      const mini = res.json.jackpot_wins.find((x: { level: string }) => x.level === 'mini');
      wins.push(BigInt(mini.amount_minor));
      // The hit's credit: its amount exactly, in the currency.
      await until('the jackpot credit', async () =>
        (await credits(res.json.round_id)).some(
          (c) => c.body.action_type === 'jackpot_win' && c.status === 'success',
        ),
      );
      const jc = (await credits(res.json.round_id)).find((c) => c.body.action_type === 'jackpot_win')!;
      assert.deepEqual([jc.amount_minor, jc.currency], [mini.amount_minor, currency]);
      // The audit API's jackpot win and contribution: the same integers (minor units; micros).
      const won = await call(w.h.base, 'GET', `/api/operator/v1/jackpot-wins?round_id=${res.json.round_id}`, {
        key: w.key,
        sign: true,
      });
      assert.equal(won.status, 200, won.text);
      assert.deepEqual(
        won.json.data.items.map((x: any) => [x.level, String(x.amount_minor), x.currency, x.status]),
        [['mini', mini.amount_minor, currency, 'paid']],
      );
    }
    // The first hit wins the seed; each later one the seed plus the previous spin's contribution
    // (stake × 1 % in micros), whole units only: the remainder stays in the pool.
    let carried = 0n; // micros in the pool beyond the seed
    for (const [i, won] of wins.entries()) {
      const pool = seeds[currency]!.mini! * 1_000_000n + carried;
      assert.equal(won, pool / 1_000_000n, `${currency} hit ${i + 1}`);
      carried = (pool % 1_000_000n) + stake * rates.mini!;
    }
    const { rows } = await w.h.db.pool.query(
      `SELECT level, amount_micros::text AS amount, contributions_micros::text AS contributions, wins_micros::text AS wins,
              seeded_micros::text AS seeded, reserve_micros::text AS reserve
         FROM jackpot_pools WHERE jackpot_id = 'jp-crypto-pools' AND currency = $1 ORDER BY level`,
      [currency],
    );
    const by = Object.fromEntries(rows.map((r) => [r.level, r]));
    // Three standing stakes' contributions, to the micro-unit, in each level.
    for (const level of ['mini', 'mega']) {
      assert.equal(by[level].contributions, String(3n * stake * rates[level]!), `${currency} ${level}`);
      // The pool identity: seeds + contributions = pool + reserve + wins.
      assert.equal(
        BigInt(by[level].seeded) + BigInt(by[level].contributions),
        BigInt(by[level].amount) + BigInt(by[level].reserve) + BigInt(by[level].wins),
      );
    }
    assert.equal(by.mini.wins, String(wins.reduce((a, b) => a + b, 0n) * 1_000_000n));
    assert.equal(by.mini.amount, String(seeds[currency]!.mini! * 1_000_000n + carried));
    assert.equal(by.mega.amount, String(seeds[currency]!.mega! * 1_000_000n + 3n * stake * rates.mega!));
  }
});
