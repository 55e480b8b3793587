import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { recordHistory } from '@opi/workflows/histories';

/*
 * Issue 25: a paid spin feeds its jackpot and may hit it, in the statement that records the round;
 * the hit is paid by the round's workflow as a `jackpot_win` credit after the round's own credit.
 * Real parts: the game server, PostgreSQL, Temporal and the sandbox wallet over HTTP.
 */
const slots = CATALOG.filter((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted');
const slot = slots[0]!;
const other = slots[1]!;
let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

const adminApi = (method: string, path: string, body?: unknown) =>
  call(h.base, method, `/api/admin/v1${path}`, {
    key: ADMIN_KEY,
    sign: true,
    ...(body === undefined ? {} : { body }),
  });

/** mini always hits (any stake reaches hit_every_minor 1); mega never does in a test's lifetime. */
const ALWAYS_MINI = (operatorId: string, titles: string[]) => ({
  name: 'Test jackpot',
  scope: 'operator',
  operator_id: operatorId,
  titles,
  levels: [
    {
      level: 'mini',
      contribution_rate_ppm: 10_000,
      currencies: { EUR: { seed_minor: 500, hit_every_minor: 1 } },
    },
    {
      level: 'mega',
      contribution_rate_ppm: 5_000,
      currencies: { EUR: { seed_minor: 100_000, hit_every_minor: '1000000000000000' } },
    },
  ],
});

before(async () => {
  w = await startPlayWorld({
    queue: 'jackpot-spin',
    operators: [
      { id: 'op_jps', titles: [slot.symbol, other.symbol] },
      { id: 'op_jps_net', titles: [slot.symbol] },
    ],
  });
  ({ h, admin, key } = w);
  const res = await adminApi('PUT', '/jackpots/jps-mini', ALWAYS_MINI('op_jps', [slot.symbol]));
  assert.equal(res.status, 201, res.text);
});
after(() => w.close());

const launch = async (player: string, symbol = slot.symbol, k = key) =>
  (await w.launch(k, { symbol, external_player_id: player })).token!;
const spin = (token: string, bet = 100) => w.runtime(token, 'POST', '/api/runtime/spin', { bet_minor: bet });

async function pools(jackpotId: string) {
  const { rows } = await h.db.pool.query(
    `SELECT level, amount_micros::text, reserve_micros::text, seeded_micros::text, contributions_micros::text,
            wins_micros::text, hits
       FROM jackpot_pools WHERE jackpot_id = $1 ORDER BY level`,
    [jackpotId],
  );
  const big = (r: Record<string, string | number>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'level' || k === 'hits' ? v : BigInt(v)]));
  return Object.fromEntries(rows.map((r) => [r.level, big(r)])) as Record<string, Record<string, any>>;
}

async function journal(roundId: string) {
  const { rows } = await h.db.pool.query(
    `SELECT transaction_id, transaction_type, amount_minor, status, request_body FROM wallet_transactions
      WHERE round_id = $1 ORDER BY created_at, transaction_id`,
    [roundId],
  );
  return rows.map((r) => ({ ...r, body: JSON.parse(r.request_body) }));
}

const settled = async (roundId: string, what: () => Promise<boolean>) => {
  for (let i = 0; i < 200; i++) {
    if (await what()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`round ${roundId} did not settle`);
};

test('a paid spin contributes to every level; a hit resets the pool and is paid by a jackpot_win credit', async () => {
  await admin.createPlayer({
    operatorId: 'op_jps',
    playerId: 'jps-1',
    currency: 'EUR',
    balanceMinor: 100_000,
  });
  const token = await launch('jps-1');
  const before = await pools('jps-mini');
  const res = await spin(token, 100);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.status, 'completed');
  // mini: the pool as the spin found it (the seed, 500 EUR cents: nothing contributed yet). The
  // spin's own contribution goes in with its debit's success (issue 34), after the hit's reset.
  assert.deepEqual(res.json.jackpot_wins, [{ jackpot_id: 'jps-mini', level: 'mini', amount_minor: '500' }]);
  const roundId = res.json.round_id as string;
  await settled(roundId, async () => {
    const { rows } = await h.db.pool.query(`SELECT status FROM jackpot_hits WHERE round_id = $1`, [roundId]);
    return rows[0]?.status === 'paid';
  });
  recordHistory({ workflow: 'settleRound', path: 'jackpot-hit', workflowId: roundId, address: w.address });
  const rows = await journal(roundId);
  assert.deepEqual(
    rows.map((r) => [r.transaction_id, r.transaction_type, r.amount_minor, r.status]),
    [
      [`${roundId}:debit`, 'debit', 100n, 'success'],
      [`${roundId}:credit`, 'credit', BigInt(res.json.win_minor), 'success'],
      [`${roundId}:jackpot:mini`, 'credit', 500n, 'success'],
    ],
  );
  // The debit carries the contribution (micros, over both levels: 100 × 15,000) and the jackpot id.
  assert.equal(rows[0]!.body.jackpot_id, 'jps-mini');
  assert.equal(rows[0]!.body.jackpot_contribution_micros, '1500000');
  assert.equal(rows[2]!.body.action_type, 'jackpot_win');
  assert.equal(rows[2]!.body.jackpot_id, 'jps-mini');
  assert.equal(rows[2]!.body.jackpot_level, 'mini');
  assert.equal(rows[2]!.body.round_id, roundId);
  // The wallet paid it, exactly once.
  const wallet = await admin.balance('op_jps', 'jps-1', 'EUR');
  assert.equal(BigInt(wallet.balance_minor), 100_000n - 100n + BigInt(res.json.win_minor) + 500n);
  // The pool reset to its seed, then took the spin's contribution with its debit; the running
  // totals moved to the micro.
  const after = await pools('jps-mini');
  assert.equal(after.mini!.amount_micros, 501_000_000n);
  assert.equal(after.mini!.hits, before.mini!.hits + 1);
  assert.equal(after.mini!.wins_micros - before.mini!.wins_micros, 500_000_000n);
  assert.equal(after.mini!.contributions_micros - before.mini!.contributions_micros, 1_000_000n);
  assert.equal(after.mega!.amount_micros - before.mega!.amount_micros, 500_000n);
  // The round records its contribution and its win, and reconciles (the jackpot credit included).
  const { rows: r } = await h.db.pool.query(
    `SELECT r.jackpot_id, r.jackpot_contribution_micros, r.jackpot_win_minor, r.intent -> 'jackpot' AS jp,
            rr.differs, rr.game_delta_minor, rr.wallet_delta_minor
       FROM rounds r JOIN round_reconciliation rr USING (round_id) WHERE round_id = $1`,
    [roundId],
  );
  assert.equal(r[0].jackpot_id, 'jps-mini');
  assert.equal(r[0].jackpot_contribution_micros, 1_500_000n);
  assert.equal(r[0].jackpot_win_minor, 500n);
  assert.deepEqual(r[0].jp.wins, [{ level: 'mini', amountMinor: '500' }]);
  assert.equal(r[0].differs, false);
  assert.equal(r[0].game_delta_minor, r[0].wallet_delta_minor);
});

test('concurrent hits: one hit per reset, and every pool still balances to the micro', async () => {
  const players = Array.from({ length: 8 }, (_, i) => `jps-c${i}`);
  for (const p of players)
    await admin.createPlayer({ operatorId: 'op_jps', playerId: p, currency: 'EUR', balanceMinor: 100_000 });
  const tokens = await Promise.all(players.map((p) => launch(p)));
  const before = await pools('jps-mini');
  const results = await Promise.all(tokens.map((t) => spin(t, 200)));
  for (const res of results) assert.equal(res.status, 200, res.text);
  const wins = results.flatMap((res) => res.json.jackpot_wins as { amount_minor: string }[]);
  assert.ok(wins.length >= 1, 'at least the first spin at the lock wins');
  const after = await pools('jps-mini');
  // Every hit is a reset of its own: the hits counted equal the wins answered, and the wins paid
  // out are exactly the wins total's growth.
  assert.equal(after.mini!.hits - before.mini!.hits, wins.length);
  const won = wins.reduce((s, x) => s + BigInt(x.amount_minor), 0n);
  assert.equal(after.mini!.wins_micros - before.mini!.wins_micros, won * 1_000_000n);
  for (const p of Object.values(after))
    assert.equal(
      p.seeded_micros + p.contributions_micros,
      p.amount_micros + p.reserve_micros + p.wins_micros,
    );
  // No two winners shared a pool: each won at least the seed, and together no more than the seeds
  // put in plus everything contributed.
  for (const x of wins) assert.ok(BigInt(x.amount_minor) >= 500n);
  const contributed =
    (after.mini!.contributions_micros as bigint) - (before.mini!.contributions_micros as bigint);
  assert.equal(contributed, 8n * 200n * 10_000n);
  assert.ok(
    won * 1_000_000n <=
      (before.mini!.amount_micros as bigint) + contributed + BigInt(wins.length - 1) * 500_000_000n,
  );
});

test("a round whose debit the wallet refuses forfeits its hit to the pool's reserve; nothing is sent", async () => {
  await admin.createPlayer({ operatorId: 'op_jps', playerId: 'jps-poor', currency: 'EUR', balanceMinor: 10 });
  const token = await launch('jps-poor');
  const before = await pools('jps-mini');
  const res = await spin(token, 100);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.status, 'rejected');
  const roundId = res.json.round_id as string;
  const { rows } = await h.db.pool.query(`SELECT status FROM jackpot_hits WHERE round_id = $1`, [roundId]);
  assert.deepEqual(
    rows.map((r) => r.status),
    ['forfeited'],
  );
  const after = await pools('jps-mini');
  assert.equal(after.mini!.hits, before.mini!.hits, 'the forfeited hit is not counted');
  assert.equal(after.mini!.wins_micros, before.mini!.wins_micros);
  // The forfeited win (the pool's whole minor units) waits in the reserve; the refused wager
  // contributed nothing (issue 34).
  const forfeited = (before.mini!.amount_micros / 1_000_000n) * 1_000_000n;
  assert.equal(after.mini!.reserve_micros - before.mini!.reserve_micros, forfeited);
  assert.equal(after.mini!.amount_micros, 500_000_000n + before.mini!.amount_micros - forfeited);
  assert.equal(after.mini!.contributions_micros, before.mini!.contributions_micros);
  assert.equal(after.mega!.contributions_micros, before.mega!.contributions_micros);
  assert.equal(after.mega!.amount_micros, before.mega!.amount_micros);
  // The credit's row, written with the round (credit ahead), closed as never sent.
  assert.deepEqual(
    (await journal(roundId)).map((r) => [r.transaction_type, r.status]),
    [
      ['debit', 'failed'],
      ['credit', 'failed'],
    ],
  );
  assert.equal((await admin.balance('op_jps', 'jps-poor', 'EUR')).balance_minor, '10');
});

test('titles outside the jackpot, and operators not opted in to a network jackpot, contribute nothing', async () => {
  await admin.createPlayer({
    operatorId: 'op_jps',
    playerId: 'jps-other',
    currency: 'EUR',
    balanceMinor: 10_000,
  });
  const res = await spin(await launch('jps-other', other.symbol), 100);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json.jackpot_wins, []);
  const [debit] = await journal(res.json.round_id);
  assert.equal(debit!.body.jackpot_id, undefined);

  const net = { ...ALWAYS_MINI('x', [slot.symbol]), scope: 'network', operator_id: undefined };
  assert.equal((await adminApi('PUT', '/jackpots/jps-net', net)).status, 201);
  const netKey = w.operators.op_jps_net!.key;
  await admin.createPlayer({
    operatorId: 'op_jps_net',
    playerId: 'jps-n1',
    currency: 'EUR',
    balanceMinor: 10_000,
  });
  const token = await launch('jps-n1', slot.symbol, netKey);
  const out = await spin(token, 100);
  assert.equal(out.status, 200, out.text);
  assert.equal((await journal(out.json.round_id))[0]!.body.jackpot_id, undefined, 'not opted in');
  // Opted in: the very next spin feeds it (the opt-in reached the game server's cache).
  assert.equal(
    (await adminApi('PUT', '/jackpots/jps-net/operators/op_jps_net', { enabled: true })).status,
    200,
  );
  let fed: string | undefined;
  for (let i = 0; i < 20 && fed === undefined; i++) {
    const r = await spin(token, 100);
    assert.equal(r.status, 200, r.text);
    fed = (await journal(r.json.round_id))[0]!.body.jackpot_id;
    if (fed === undefined) await new Promise((res) => setTimeout(res, 100));
  }
  assert.equal(fed, 'jps-net');
  // Opted out again: no more contributions.
  assert.equal(
    (await adminApi('PUT', '/jackpots/jps-net/operators/op_jps_net', { enabled: false })).status,
    200,
  );
  await new Promise((res) => setTimeout(res, 300));
  const last = await spin(token, 100);
  assert.equal((await journal(last.json.round_id))[0]!.body.jackpot_id, undefined);
});

test('jackpot_pool_step: the cap sends the overflow to the reserve, a hit refills from seed, remainder and reserve', async () => {
  const step = async (...args: (number | bigint | boolean | null)[]) => {
    const { rows } = await h.db.pool.query(
      `SELECT new_amount::text, new_reserve::text, win_minor::text FROM jackpot_pool_step($1, $2, $3, $4, $5, $6)`,
      args.map((a) => (typeof a === 'bigint' ? a.toString() : a)),
    );
    return [rows[0].new_amount, rows[0].new_reserve, rows[0].win_minor];
  };
  // No cap, no hit: the contribution goes in.
  assert.deepEqual(await step(5_000_000, 0, null, 5, 1_234, false), ['5001234', '0', '0']);
  // Capped at 6 minor units: 5.9 + 0.2 → 6.0 in the pool, 0.1 to the reserve.
  assert.deepEqual(await step(5_900_000, 0, 6, 5, 200_000, false), ['6000000', '100000', '0']);
  // A hit: 7.5 minor units in the pool wins 7; seed 5 + the 0.5 remainder + the 0.25 reserve refill.
  assert.deepEqual(await step(7_000_000, 250_000, null, 5, 500_000, true), ['5750000', '0', '7']);
  // A hit under a cap of 6 (0.1 spills): 5 seed + 3 reserve + 0.1 = 8.1 refills 6, 2.1 stays reserved.
  assert.deepEqual(await step(6_000_000, 3_000_000, 6, 5, 100_000, true), ['6000000', '2100000', '6']);
  // An empty pool without a seed wins nothing: no hit.
  assert.deepEqual(await step(0, 0, null, 0, 999_999, true), ['999999', '0', '0']);
});

test('a jackpot credit the wallet refuses for a while is retried until paid, and its round is no longer stuck', async () => {
  await admin.createPlayer({
    operatorId: 'op_jps',
    playerId: 'jps-stuck',
    currency: 'EUR',
    balanceMinor: 100_000,
  });
  const token = await launch('jps-stuck');
  await admin.setFaults({ refuseActionTypes: ['jackpot_win'] });
  try {
    const res = await spin(token, 100);
    assert.equal(res.status, 200, res.text);
    const roundId = res.json.round_id as string;
    // The round itself settles (its credit is paid); the page may answer `pending` when the
    // round's outcome comes from the workflow's result, which waits for the jackpot credit too.
    assert.ok(['completed', 'pending'].includes(res.json.status), res.text);
    await settled(roundId, async () => {
      const { rows } = await h.db.pool.query(`SELECT status FROM rounds WHERE round_id = $1`, [roundId]);
      return rows[0]?.status === 'completed';
    });
    // The refused credit stays pending and marks the (completed) round stuck, as any credit does.
    await settled(roundId, async () => {
      const { rows } = await h.db.pool.query(`SELECT stuck FROM rounds WHERE round_id = $1`, [roundId]);
      return rows[0]?.stuck === true;
    });
    await admin.setFaults({ refuseActionTypes: [] });
    // The next attempt comes after the retry's backoff (doubling from 200 ms, at most 30 s).
    await until(
      'the jackpot credit paid and the round no longer stuck',
      async () => {
        const { rows } = await h.db.pool.query(
          `SELECT r.stuck, h.status FROM rounds r JOIN jackpot_hits h USING (round_id) WHERE round_id = $1`,
          [roundId],
        );
        return rows[0]?.status === 'paid' && rows[0]?.stuck === false;
      },
      60_000,
      200,
    );
  } finally {
    await admin.setFaults({ refuseActionTypes: [] });
  }
});
