import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';

/*
 * Issue 34, point 1: a jackpot contribution counts only once its debit stands. The spin's
 * statement records the round and its contribution (`pending`); the statement that records the
 * debit's success adds it to the pools (migration 28), and a wager that does not stand adds
 * nothing. A player whose wallet keeps refusing waits (429) after SPIN_REFUSALS_LIMIT refusals.
 * Real parts: the game server, PostgreSQL, Temporal and the sandbox wallet over HTTP.
 */
const slot = CATALOG.filter((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')[0]!;
const WINDOW_S = 20;
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

/** A network pool at 1 % (seed 10.00 EUR) and a capped one at 0.5 % (seed 10.00, cap 20.00); neither hits. */
const NEVER = '1000000000000000';
const REF = {
  name: 'Contribution test',
  scope: 'network',
  titles: [slot.symbol],
  levels: [
    {
      level: 'pool',
      contribution_rate_ppm: 10_000,
      currencies: { EUR: { seed_minor: 1000, hit_every_minor: NEVER } },
    },
    {
      level: 'capped',
      contribution_rate_ppm: 5_000,
      currencies: { EUR: { seed_minor: 1000, cap_minor: 2000, hit_every_minor: NEVER } },
    },
  ],
};
const RATES: Record<string, bigint> = { pool: 10_000n, capped: 5_000n };
const CAP_MICROS = 2000n * 1_000_000n;

before(async () => {
  w = await startPlayWorld({
    queue: 'jackpot-contribution',
    operators: [{ id: 'op_jpc', titles: [slot.symbol] }],
    // The refusal limit's default count (20) in a short window, so that the test can wait it out.
    env: { SPIN_REFUSALS_LIMIT: '20', SPIN_REFUSALS_WINDOW_SECONDS: String(WINDOW_S) },
  });
  ({ h, admin, key } = w);
  assert.equal((await adminApi('PUT', '/jackpots/jpc-net', REF)).status, 201);
  assert.equal((await adminApi('PUT', '/jackpots/jpc-net/operators/op_jpc', { enabled: true })).status, 200);
});
after(() => w.close());

const launch = async (player: string) =>
  (await w.launch(key, { symbol: slot.symbol, external_player_id: player })).token!;
const spin = (token: string, bet = 100_000) =>
  w.runtime(token, 'POST', '/api/runtime/spin', { bet_minor: bet });
const player = async (id: string, balanceMinor: number) => {
  await admin.createPlayer({ operatorId: 'op_jpc', playerId: id, currency: 'EUR', balanceMinor });
  return launch(id);
};

type Pool = {
  amount: bigint;
  reserve: bigint;
  seeded: bigint;
  contributions: bigint;
  wins: bigint;
  hits: number;
};
async function pools(): Promise<Record<string, Pool>> {
  const { rows } = await h.db.pool.query(
    `SELECT level, amount_micros::text AS amount, reserve_micros::text AS reserve, seeded_micros::text AS seeded,
            contributions_micros::text AS contributions, wins_micros::text AS wins, hits
       FROM jackpot_pools WHERE jackpot_id = 'jpc-net' AND currency = 'EUR'`,
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.level,
      {
        amount: BigInt(r.amount),
        reserve: BigInt(r.reserve),
        seeded: BigInt(r.seeded),
        contributions: BigInt(r.contributions),
        wins: BigInt(r.wins),
        hits: r.hits,
      },
    ]),
  );
}

/** The pool identity, to the micro. */
function balanced(p: Record<string, Pool>) {
  for (const [level, x] of Object.entries(p))
    assert.equal(x.seeded + x.contributions, x.amount + x.reserve + x.wins, `${level} balances`);
}

const roundOf = async (roundId: string) =>
  (
    await h.db.pool.query(
      `SELECT status, jackpot_id, jackpot_contribution_micros::text, jackpot_contribution_state FROM rounds WHERE round_id = $1`,
      [roundId],
    )
  ).rows[0];

test('twenty refused wagers leave every pool as it was; the next spin waits (429, Retry-After) until the window passes', async () => {
  const token = await player('jpc-broke', 0);
  const before = await pools();
  const rounds: string[] = [];
  const started = Date.now();
  for (let i = 0; i < 20; i++) {
    const res = await spin(token);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'rejected', res.text);
    assert.equal(res.json.error, 'insufficient_funds');
    rounds.push(res.json.round_id);
  }
  const took = Date.now() - started;
  // Before issue 34, each of them added 1,000.00 × 1 % to the pool: 200.00 EUR in all.
  assert.deepEqual(await pools(), before);
  for (const id of rounds) {
    const r = await roundOf(id);
    assert.equal(r.status, 'rejected');
    assert.equal(r.jackpot_id, 'jpc-net', 'the round still names the jackpot it would have fed');
    assert.equal(r.jackpot_contribution_micros, '1500000000');
    assert.equal(r.jackpot_contribution_state, 'void');
  }
  // The 21st: 429 with Retry-After, no round, no journal row, no wallet call.
  assert.ok(took < WINDOW_S * 1000, `the twenty refusals took ${took} ms, inside the ${WINDOW_S} s window`);
  const { rows: before21 } = await h.db.pool.query(
    `SELECT count(*)::int AS n FROM rounds r JOIN players p USING (player_id) WHERE p.external_player_id = 'jpc-broke'`,
  );
  const held = await spin(token);
  assert.equal(held.status, 429, held.text);
  assert.equal(held.json.error, 'wagers_refused');
  const retryAfter = Number(held.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= WINDOW_S, `Retry-After ${retryAfter}`);
  assert.ok(held.json.retry_after_ms > 0 && held.json.retry_after_ms <= WINDOW_S * 1000);
  const { rows: after21 } = await h.db.pool.query(
    `SELECT count(*)::int AS n FROM rounds r JOIN players p USING (player_id) WHERE p.external_player_id = 'jpc-broke'`,
  );
  assert.equal(after21[0].n, before21[0].n);
  // A relaunch does not reset it (it is the player's, not the session's; the relaunch ends the
  // first session).
  const relaunched = await launch('jpc-broke');
  const again = await spin(relaunched);
  assert.equal(again.status, 429, again.text);
  // Another player of the same operator spins on, and contributes exactly stake × rate.
  const rich = await spin(await player('jpc-rich', 10_000_000));
  assert.equal(rich.status, 200, rich.text);
  assert.equal(rich.json.status, 'completed', rich.text);
  const fed = await pools();
  assert.equal(fed.pool!.contributions - before.pool!.contributions, 100_000n * RATES.pool!);
  assert.equal(fed.pool!.amount - before.pool!.amount, 100_000n * RATES.pool!);
  assert.equal(fed.capped!.contributions - before.capped!.contributions, 100_000n * RATES.capped!);
  assert.equal((await roundOf(rich.json.round_id)).jackpot_contribution_state, 'applied');
  balanced(fed);
  // Once the Retry-After has passed, the broke player's spins are taken (and refused) again.
  await new Promise((r) => setTimeout(r, retryAfter * 1000 + 200));
  const later = await spin(relaunched);
  assert.equal(later.status, 200, later.text);
  assert.equal(later.json.status, 'rejected');
  assert.deepEqual(await pools(), fed);
});

test('a debit refused after a retry contributes nothing', async () => {
  const token = await player('jpc-retry', 0);
  const before = await pools();
  await admin.setFaults({ error5xxRate: 1 });
  let roundId = '';
  try {
    const pending = spin(token);
    // The first attempt meets a 500 (uncertain, nothing applied); the retry is refused for funds.
    await until(
      'the first debit attempt failed',
      async () => (await admin.getFaults()).counters.error5xx >= 1,
      20_000,
      50,
    );
    await admin.setFaults({});
    const res = await pending;
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'rejected', res.text);
    const { rows } = await h.db.pool.query(
      `SELECT status, error_code, attempts FROM wallet_transactions WHERE transaction_id = $1`,
      [`${res.json.round_id}:debit`],
    );
    assert.equal(rows[0].status, 'failed');
    assert.equal(rows[0].error_code, 'insufficient_funds');
    assert.ok(rows[0].attempts >= 2, `attempts ${rows[0].attempts}`);
    roundId = res.json.round_id;
  } finally {
    await admin.setFaults({});
  }
  assert.deepEqual(await pools(), before);
  assert.equal((await roundOf(roundId)).jackpot_contribution_state, 'void');
});

test('a prov_a debit rolled back after its budget contributes nothing, though the wallet had applied it', async () => {
  const token = await player('jpc-rollback', 1_000_000);
  const before = await pools();
  // Every answer is dropped after the wallet commits: the debit is applied but never confirmed,
  // so after its budget the workflow sends the rollback (dropped too, until the faults clear).
  await admin.setFaults({ dropAfterCommitRate: 1 });
  let roundId = '';
  try {
    const pending = spin(token);
    await until(
      'the rollback is journalled',
      async () => {
        const { rows } = await h.db.pool.query(
          `SELECT round_id FROM wallet_transactions
            WHERE operator_id = 'op_jpc' AND player_id = 'jpc-rollback' AND transaction_type = 'rollback' LIMIT 1`,
        );
        roundId = rows[0]?.round_id ?? '';
        return roundId !== '';
      },
      60_000,
      100,
    );
    // Applied at the wallet, never at the pools.
    assert.deepEqual(await pools(), before);
    await admin.setFaults({});
    const res = await pending;
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.round_id, roundId);
  } finally {
    await admin.setFaults({});
  }
  await until(
    'the round rolled back',
    async () => (await roundOf(roundId)).status === 'rolled_back',
    60_000,
    100,
  );
  assert.equal((await roundOf(roundId)).jackpot_contribution_state, 'void');
  const { rows } = await h.db.pool.query(
    `SELECT transaction_type, status, error_code FROM wallet_transactions WHERE round_id = $1 ORDER BY transaction_type`,
    [roundId],
  );
  assert.deepEqual(
    rows.map((r) => [r.transaction_type, r.status, r.error_code]),
    [
      // The credit's row, written with the round (credit ahead), closed as never sent.
      ['credit', 'failed', 'not_sent_round_rolled_back'],
      ['debit', 'failed', 'reversed_by_rollback'],
      ['rollback', 'success', null],
    ],
  );
  assert.equal((await admin.balance('op_jpc', 'jpc-rollback', 'EUR')).balance_minor, '1000000');
  assert.deepEqual(await pools(), before);
});

test('a pool at its cap: each standing spin sends exactly what passes the cap to the reserve; a refused one changes nothing', async () => {
  const rich = await player('jpc-cap', 10_000_000);
  for (let i = 0; i < 3; i++) {
    const before = await pools();
    const res = await spin(rich);
    assert.equal(res.json.status, 'completed', res.text);
    const after = await pools();
    const c = 100_000n * RATES.capped!;
    const into =
      (before.capped!.amount + c < CAP_MICROS ? before.capped!.amount + c : CAP_MICROS) -
      before.capped!.amount;
    assert.equal(after.capped!.amount - before.capped!.amount, into);
    assert.equal(after.capped!.reserve - before.capped!.reserve, c - into);
    assert.equal(after.capped!.contributions - before.capped!.contributions, c);
    balanced(after);
  }
  const atCap = await pools();
  assert.equal(atCap.capped!.amount, CAP_MICROS, 'the pool is at its cap');
  const refused = await spin(await player('jpc-cap-broke', 0));
  assert.equal(refused.json.status, 'rejected', refused.text);
  assert.deepEqual(await pools(), atCap);
});

test('migration 28 in the database: applied once by any writer, moved to the seeds when a standing wager is reversed, an old-code round never counted twice', async () => {
  const token = await player('jpc-sql', 0);
  const { rows: s } = await h.db.pool.query(
    `SELECT s.session_id, s.player_id FROM sessions s JOIN players p USING (player_id)
      WHERE p.external_player_id = 'jpc-sql' ORDER BY s.created_at DESC LIMIT 1`,
  );
  assert.ok(token && s[0]);
  const { session_id: sessionId, player_id: playerId } = s[0];
  const bet = 1234n;
  /** A round as a spin records it, and its debit's pending journal row naming the jackpot. */
  const record = async (roundId: string, state: string | null) => {
    await h.db.pool.query(
      `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                           bet_minor, win_minor, intent, jackpot_id, jackpot_contribution_micros, jackpot_contribution_state)
       VALUES ($1, 'op_jpc', $2, $3, $4, 'prov_a', 'EUR', 'open', $5, 0, '{}', 'jpc-net', $6, $7)`,
      [roundId, sessionId, playerId, slot.symbol, bet.toString(), (bet * 15_000n).toString(), state],
    );
    const body = JSON.stringify({
      transaction_id: `${roundId}:debit`,
      jackpot_id: 'jpc-net',
      jackpot_contribution_micros: (bet * 15_000n).toString(),
    });
    await h.db.pool.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
                                        transaction_type, amount_minor, currency, request_body, request_hash)
       VALUES ($1, 'op_jpc', $2, $3, 'jpc-sql', $4, 'debit', $5, 'EUR', $6, repeat('a', 64))`,
      [`${roundId}:debit`, sessionId, roundId, slot.symbol, bet.toString(), body],
    );
  };
  const succeed = (roundId: string) =>
    h.db.pool.query(
      `UPDATE wallet_transactions SET status = 'success' WHERE transaction_id = $1 AND status = 'pending'`,
      [`${roundId}:debit`],
    );
  const diff = (a: Record<string, Pool>, b: Record<string, Pool>) =>
    Object.fromEntries(
      Object.keys(a).map((l) => [
        l,
        {
          contributions: b[l]!.contributions - a[l]!.contributions,
          seeded: b[l]!.seeded - a[l]!.seeded,
          held: b[l]!.amount + b[l]!.reserve - a[l]!.amount - a[l]!.reserve,
        },
      ]),
    );
  const c = (level: string) => bet * RATES[level]!;

  // A new round: its debit's success applies it, once; then a rollback of the standing wager (a
  // staff cancel or a rollback after an applied debit) moves it from the contributions to the seeds.
  const p0 = await pools();
  await record('r_jpc_sql_new', 'pending');
  assert.deepEqual(await pools(), p0, 'nothing at the spin');
  await succeed('r_jpc_sql_new');
  const p1 = await pools();
  assert.deepEqual(diff(p0, p1), {
    pool: { contributions: c('pool'), seeded: 0n, held: c('pool') },
    capped: { contributions: c('capped'), seeded: 0n, held: c('capped') },
  });
  await succeed('r_jpc_sql_new');
  assert.deepEqual(await pools(), p1, 'a second success record changes nothing');
  assert.equal((await roundOf('r_jpc_sql_new')).jackpot_contribution_state, 'applied');
  await h.db.pool.query(`UPDATE rounds SET status = 'rolled_back' WHERE round_id = 'r_jpc_sql_new'`);
  const p2 = await pools();
  assert.deepEqual(diff(p1, p2), {
    pool: { contributions: -c('pool'), seeded: c('pool'), held: 0n },
    capped: { contributions: -c('capped'), seeded: c('capped'), held: 0n },
  });
  assert.equal((await roundOf('r_jpc_sql_new')).jackpot_contribution_state, 'reversed');
  balanced(p2);

  // A round of the previous release's statement (its contribution added at the spin, the state
  // NULL): its debit's success adds nothing more; its refusal moves it to the seeds.
  await record('r_jpc_sql_old', null);
  await h.db.pool.query(
    `UPDATE jackpot_pools p SET (amount_micros, reserve_micros, contributions_micros) =
       (SELECT f.new_amount, f.new_reserve, p.contributions_micros + $1 * l.rate_ppm
          FROM jackpot_levels l, jackpot_pool_step(p.amount_micros, p.reserve_micros, p.cap_minor, p.seed_minor, $1 * l.rate_ppm, false) f
         WHERE l.jackpot_id = p.jackpot_id AND l.level = p.level)
      WHERE jackpot_id = 'jpc-net' AND currency = 'EUR'`,
    [bet.toString()],
  );
  const p3 = await pools();
  await succeed('r_jpc_sql_old');
  assert.deepEqual(await pools(), p3, 'an old-code round is not counted twice');
  await record('r_jpc_sql_old2', null);
  await h.db.pool.query(
    `UPDATE jackpot_pools p SET (amount_micros, reserve_micros, contributions_micros) =
       (SELECT f.new_amount, f.new_reserve, p.contributions_micros + $1 * l.rate_ppm
          FROM jackpot_levels l, jackpot_pool_step(p.amount_micros, p.reserve_micros, p.cap_minor, p.seed_minor, $1 * l.rate_ppm, false) f
         WHERE l.jackpot_id = p.jackpot_id AND l.level = p.level)
      WHERE jackpot_id = 'jpc-net' AND currency = 'EUR'`,
    [bet.toString()],
  );
  const p4 = await pools();
  await h.db.pool.query(
    `UPDATE wallet_transactions SET status = 'failed', error_code = 'insufficient_funds' WHERE transaction_id = 'r_jpc_sql_old2:debit'`,
  );
  await h.db.pool.query(`UPDATE rounds SET status = 'rejected' WHERE round_id = 'r_jpc_sql_old2'`);
  const p5 = await pools();
  assert.deepEqual(diff(p4, p5), {
    pool: { contributions: -c('pool'), seeded: c('pool'), held: 0n },
    capped: { contributions: -c('capped'), seeded: c('capped'), held: 0n },
  });
  balanced(p5);
  // A level's rate cannot change under its rounds.
  await assert.rejects(
    h.db.pool.query(`UPDATE jackpot_levels SET rate_ppm = 1 WHERE jackpot_id = 'jpc-net' AND level = 'pool'`),
    /immutable/,
  );
  // Tidy: the two hand-made open rounds end (their debits stand), so later checks see them settled.
  await h.db.pool.query(
    `UPDATE rounds SET status = 'completed', settled_at = now() WHERE round_id = 'r_jpc_sql_old'`,
  );
});

test("every pool's contributions are exactly Σ stake × rate over the rounds whose debit stands (journal and wallet agree)", async () => {
  const { rows } = await h.db.pool.query(
    `WITH stood AS (
       SELECT r.round_id, r.bet_minor FROM rounds r
        WHERE r.jackpot_id = 'jpc-net' AND r.currency = 'EUR'
          AND EXISTS (SELECT 1 FROM wallet_transactions d WHERE d.round_id = r.round_id AND d.transaction_type = 'debit' AND d.status = 'success')
          AND NOT EXISTS (SELECT 1 FROM wallet_transactions x WHERE x.round_id = r.round_id
                            AND x.transaction_type IN ('rollback', 'cancel') AND x.status = 'success')
          AND r.status NOT IN ('rejected', 'cancelled', 'rolled_back')
     )
     SELECT p.level, p.contributions_micros::text AS pools,
            (SELECT coalesce(sum(s.bet_minor::numeric * l.rate_ppm), 0) FROM stood s)::text AS rounds,
            (SELECT count(*) FROM stood)::int AS n
       FROM jackpot_pools p JOIN jackpot_levels l USING (jackpot_id, level)
      WHERE p.jackpot_id = 'jpc-net' AND p.currency = 'EUR'`,
  );
  for (const r of rows)
    assert.equal(r.pools, r.rounds, `${r.level}: pools ${r.pools}, rounds ${r.rounds} (${r.n} rounds)`);
  assert.ok(rows[0].n >= 5);
  balanced(await pools());
});

test("the refusal limit's read is an index-only range of the partial index (generic and custom plans)", async () => {
  const c = await h.db.pool.connect();
  try {
    await c.query(`PREPARE refused_probe(text, text, int, int) AS
      SELECT completed_at FROM wallet_transactions
       WHERE operator_id = $1 AND player_id = $2 AND transaction_type = 'debit' AND status = 'failed'
         AND error_code IS DISTINCT FROM 'reversed_by_rollback'
         AND completed_at > now() - make_interval(secs => $3::int)
       ORDER BY completed_at DESC OFFSET $4::int - 1 LIMIT 1`);
    for (const mode of ['force_generic_plan', 'force_custom_plan']) {
      await c.query(`SET plan_cache_mode = ${mode}`);
      const { rows } = await c.query(`EXPLAIN EXECUTE refused_probe('op_jpc', 'jpc-broke', ${WINDOW_S}, 20)`);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      assert.match(
        plan,
        /Index Only Scan Backward using wallet_transactions_debits_refused/,
        `${mode}:\n${plan}`,
      );
    }
  } finally {
    await c.query('DEALLOCATE ALL; RESET plan_cache_mode');
    c.release();
  }
});
