import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type PoolClient, prepared } from '@opi/db';
import { createTestDatabase, type TestDatabase } from '@opi/db/testing';
import { LIVE_COUNT_CAP, PLAYER_STANDING_SQL, playerStanding } from './leaderboard.js';
import { RANK_SNAPSHOT_LOCK, RankSnapshotRefresher, rebuildRankSnapshots } from './rank-snapshots.js';

/*
 * Issue 34 point 8: a player's place on a tournament leaderboard comes from index seeks on a
 * published rank snapshot (migration 31), not from a count of everyone ahead. On a real
 * PostgreSQL: the plan on a board large enough that the old count is a sequential scan, the
 * places against a brute-force ranking (ties on every key, byte-order ids, a new entrant and a
 * risen player after the snapshot, no snapshot at all), and when the snapshot is rebuilt.
 */

/** Polls `probe` until it answers true (an assertion that throws is tried again), for 20 s. */
async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    let last: unknown;
    try {
      if (await probe()) return;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let db: TestDatabase;
/** A connection that writes scores without their players' rows (replica mode: no foreign keys). */
let loader: PoolClient;

before(async () => {
  db = await createTestDatabase();
  loader = await db.pool.connect();
  await loader.query(`SET session_replication_role = replica`);
});
after(async () => {
  loader?.release();
  await db?.drop();
});

async function tournament(id: string, status = 'running') {
  await db.pool.query(
    `INSERT INTO tournaments (tournament_id, name, scoring, starts_at, ends_at, status)
     VALUES ($1, $1, 'max_multiplier', now() - interval '1 hour', now() + interval '1 day', $2)`,
    [id, status],
  );
  await db.pool.query(`INSERT INTO tournament_currencies VALUES ($1, 'EUR', 100)`, [id]);
}

/** One score row as the scoring trigger keeps it (its player row is not needed by the reads). */
async function score(t: string, op: string, ext: string, points: string, at: string) {
  await loader.query(
    `INSERT INTO tournament_scores (tournament_id, currency, operator_id, external_player_id, player_id, scoring,
                                    score, score_reached_at, best_round_id, last_round_id, last_session_id,
                                    last_game_symbol, rounds_counted)
     VALUES ($1, 'EUR', $2, $3, 'p', 'max_multiplier', $4, $5, 'r', 'r', 's', 'g', 1)
     ON CONFLICT (tournament_id, currency, operator_id, external_player_id)
       DO UPDATE SET score = EXCLUDED.score, score_reached_at = EXCLUDED.score_reached_at`,
    [t, op, ext, points, at],
  );
}

interface Entrant {
  op: string;
  ext: string;
  /** score × 10^8 */
  s: bigint;
  /** µs since the epoch */
  at: bigint;
}

/** The board in the leaderboard's order, computed here: score DESC, time, player id and operator in byte order. */
async function bruteForce(t: string): Promise<Entrant[]> {
  const { rows } = await db.pool.query<{ op: string; ext: string; s: string; at: string }>(
    `SELECT operator_id AS op, external_player_id AS ext, (score * 100000000)::numeric(60, 0)::text AS s,
            (extract(epoch FROM score_reached_at) * 1000000)::numeric(30, 0)::text AS at
       FROM tournament_scores WHERE tournament_id = $1 AND currency = 'EUR'`,
    [t],
  );
  const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  return rows
    .map((r) => ({ op: r.op, ext: r.ext, s: BigInt(r.s), at: BigInt(r.at) }))
    .sort(
      (a, b) =>
        (a.s === b.s ? 0 : a.s > b.s ? -1 : 1) ||
        (a.at === b.at ? 0 : a.at < b.at ? -1 : 1) ||
        bytes(a.ext, b.ext) ||
        bytes(a.op, b.op),
    );
}
const rankIn = (board: Entrant[], op: string, ext: string) =>
  board.findIndex((e) => e.op === op && e.ext === ext) + 1;

/** Every plan node (EXPLAIN FORMAT JSON), with whether it ran. */
function nodes(plan: any, out: any[] = []): any[] {
  out.push(plan);
  for (const child of plan.Plans ?? []) nodes(child, out);
  return out;
}
async function explain(sql: string, params: unknown[], analyze = true) {
  const { rows } = await db.pool.query(
    `EXPLAIN (${analyze ? 'ANALYZE, BUFFERS, ' : ''}FORMAT JSON) ${sql}`,
    params,
  );
  return rows[0]['QUERY PLAN'][0].Plan;
}

describe('the plan on a board of 100,000 entrants', () => {
  const T = 'lb-plan';
  const N = 100_000;
  before(async () => {
    await tournament(T);
    await loader.query(
      `INSERT INTO tournament_scores (tournament_id, currency, operator_id, external_player_id, player_id, scoring,
                                      score, score_reached_at, best_round_id, last_round_id, last_session_id,
                                      last_game_symbol, rounds_counted)
       SELECT $1, 'EUR', 'op_lb_' || (i % 3), 'pl-' || i, 'p', 'max_multiplier',
              CASE WHEN i % 5 = 0 THEN 0 ELSE ((i::bigint * 7919) % 20000) / 100.0 END,
              timestamptz '2026-01-01' + make_interval(secs => (i * 37) % 50000), 'r', 'r', 's', 'g', 1
         FROM generate_series(1, $2::int) i`,
      [T, N],
    );
    await loader.query(`VACUUM ANALYZE tournament_scores`);
    const built = await rebuildRankSnapshots(db.pool, { force: true });
    assert.ok(built.rebuilt);
  });

  test('the count the read used to make reads every player ahead (here about 50,000)', async () => {
    const old = `SELECT (SELECT count(*) FROM tournament_scores o
              WHERE o.tournament_id = m.tournament_id AND o.currency = m.currency
                AND (o.score > m.score
                     OR (o.score = m.score AND (o.score_reached_at, o.external_player_id COLLATE "C", o.operator_id COLLATE "C")
                                               < (m.score_reached_at, m.external_player_id COLLATE "C", m.operator_id COLLATE "C"))))::int + 1
       FROM tournament_scores m
      WHERE m.tournament_id = $1 AND m.currency = $2 AND m.operator_id = $3 AND m.external_player_id = $4`;
    const board = await bruteForce(T);
    const mid = board[N / 2]!;
    const plan = await explain(old, [T, 'EUR', mid.op, mid.ext]);
    const read = nodes(plan)
      .filter((n) => n['Relation Name'] === 'tournament_scores' && n['Node Type'] !== 'Index Scan')
      .reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
    assert.ok(read >= N / 2, `the old count read ${read} rows`);
  });

  test("the read of a player's place: index scans only, a few pages, nothing counted over the board", async () => {
    const board = await bruteForce(T);
    // Players at the top, the middle, in the tie at zero and last; a new entrant and a risen player.
    const picks = [11, 5_000, 50_000, 79_999, 90_000, N].map((rank) => board[rank - 1]!);
    await score(T, 'op_lb_new', 'pl-new', '42.5', '2026-01-01 06:00:00+00');
    picks.push({ op: 'op_lb_new', ext: 'pl-new', s: 0n, at: 0n });
    for (const p of picks) {
      const plan = await explain(PLAYER_STANDING_SQL, [T, 'EUR', p.op, p.ext]);
      const all = nodes(plan);
      const ran = all.filter((n) => n['Actual Loops'] > 0);
      assert.ok(
        !all.some((n) => /Seq Scan|Bitmap Heap Scan/.test(n['Node Type'])),
        `${p.ext}: no sequential scan`,
      );
      // Nothing aggregates rows read (the live count is only for a board with no snapshot).
      assert.ok(!ran.some((n) => n['Node Type'] === 'Aggregate'), `${p.ext}: no count ran`);
      for (const n of ran.filter((x) => /Scan/.test(x['Node Type']) && x['Relation Name']))
        assert.ok(
          ['Index Scan', 'Index Only Scan'].includes(n['Node Type']) && n['Actual Rows'] <= 1,
          `${p.ext}: ${n['Node Type']} on ${n['Relation Name']} read ${n['Actual Rows']} rows`,
        );
      const pages = plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
      assert.ok(pages <= 30, `${p.ext}: ${pages} pages`);
      const scans = ran.filter((n) => /tournament_rank_snapshot_[01]$/.test(n['Relation Name'] ?? ''));
      assert.ok(scans.length >= 1 && scans.length <= 2, `${p.ext}: one or two seeks on the snapshot`);
    }
    // The named statement's generic plan (what a connection uses after its first executions).
    const c = await db.pool.connect();
    try {
      await c.query(`SET plan_cache_mode = force_generic_plan`);
      // Parameter types inferred, as node-postgres's named statements have them.
      await c.query(`PREPARE standing AS ${PLAYER_STANDING_SQL}`);
      const p = board[N / 2]!;
      const { rows } = await c.query(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE standing('${T}', 'EUR', '${p.op}', '${p.ext}')`,
      );
      const plan = rows[0]['QUERY PLAN'][0].Plan;
      const all = nodes(plan);
      assert.ok(
        !all.some((n) => /Seq Scan|Bitmap Heap Scan/.test(n['Node Type'])),
        'generic plan: no sequential scan',
      );
      assert.ok(plan['Shared Hit Blocks'] + plan['Shared Read Blocks'] <= 30, 'generic plan: a few pages');
    } finally {
      await c.query(`DEALLOCATE ALL`);
      await c.query(`RESET plan_cache_mode`);
      c.release();
    }
  });

  test('a connection plans the named statement once: its generic plan, not a plan per read', async () => {
    const board = await bruteForce(T);
    const c = await db.pool.connect();
    try {
      for (let k = 0; k < 12; k++) {
        const p = board[1_000 + k * 7_000]!;
        await c.query(prepared(PLAYER_STANDING_SQL, [T, 'EUR', p.op, p.ext]));
      }
      const { rows } = await c.query<{ generic_plans: string; custom_plans: string }>(
        `SELECT generic_plans::text, custom_plans::text FROM pg_prepared_statements WHERE statement = $1`,
        [PLAYER_STANDING_SQL],
      );
      // PostgreSQL tries five custom plans, then keeps the generic one when it costs no more.
      assert.deepEqual(rows[0], { generic_plans: '7', custom_plans: '5' });
    } finally {
      c.release();
    }
  });

  test('without a snapshot of the board the live count stops at the cap, on index ranges', async () => {
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(`DELETE FROM tournament_rank_snapshots WHERE tournament_id = $1`, [T]);
      const board = await bruteForce(T);
      const p = board[60_000]!;
      const { rows } = await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${PLAYER_STANDING_SQL}`, [
        T,
        'EUR',
        p.op,
        p.ext,
      ]);
      const all = nodes(rows[0]['QUERY PLAN'][0].Plan);
      assert.ok(!all.some((n) => /Seq Scan|Bitmap Heap Scan/.test(n['Node Type'])), 'no sequential scan');
      for (const n of all.filter(
        (x) => /Scan/.test(x['Node Type']) && x['Relation Name'] === 'tournament_scores',
      ))
        assert.ok(n['Actual Rows'] <= LIVE_COUNT_CAP, `${n['Actual Rows']} rows read`);
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
  });
});

describe("a player's place against a brute-force ranking", () => {
  const T = 'lb-ranks';
  const OPS = ['op_lb_a', 'op_lb_b'];
  /** 1,200 entrants: 5 scores, 13 times, the same player ids under both operators: ties on every key. */
  before(async () => {
    await tournament(T);
    await loader.query(
      `INSERT INTO tournament_scores (tournament_id, currency, operator_id, external_player_id, player_id, scoring,
                                      score, score_reached_at, best_round_id, last_round_id, last_session_id,
                                      last_game_symbol, rounds_counted)
       SELECT $1, 'EUR', ($2::text[])[i % 2 + 1], 'x' || (i % 601), 'p', 'max_multiplier',
              (ARRAY[0, 0.5, 1.25, 3, 10.00000001])[i % 5 + 1],
              timestamptz '2026-01-01' + make_interval(secs => (i * 7) % 13), 'r', 'r', 's', 'g', 1
         FROM generate_series(1, 1200) i`,
      [T, OPS],
    );
    // Ids whose byte order differs from a language's (upper case, non-ASCII), in one tie.
    for (const ext of ['B-player', 'a-player', 'Ä-player', 'b-player'])
      await score(T, 'op_lb_a', ext, '3', '2026-01-01 00:00:05+00');
    await score(T, 'op_lb_b', 'a-player', '3', '2026-01-01 00:00:05+00');
  });

  const placeOf = async (op: string, ext: string) => (await playerStanding(db.pool, T, 'EUR', op, ext))?.rank;

  test('every player, from the snapshot, and from the live count before any snapshot', async () => {
    const board = await bruteForce(T);
    // No snapshot yet: counted live (a small board, under the cap).
    for (const [k, e] of board.entries())
      if (k % 7 === 0) assert.equal(await placeOf(e.op, e.ext), k + 1, `live ${e.op}/${e.ext}`);
    assert.ok((await rebuildRankSnapshots(db.pool, { force: true })).rebuilt);
    for (const [k, e] of board.entries()) assert.equal(await placeOf(e.op, e.ext), k + 1, `${e.op}/${e.ext}`);
    assert.equal(await placeOf('op_lb_a', 'nobody'), undefined);
  });

  test('a new entrant after the snapshot is placed at once, in a tie', async () => {
    await rebuildRankSnapshots(db.pool, { force: true });
    // Same score and time as a tie group; its id sorts between the group's.
    await score(T, 'op_lb_b', 'x0500', '3', '2026-01-01 00:00:05+00');
    const live = await bruteForce(T);
    const expected = rankIn(live, 'op_lb_b', 'x0500');
    assert.ok(expected > 11);
    assert.equal(await placeOf('op_lb_b', 'x0500'), expected);
    // A new entrant above everyone, and one below everyone.
    await score(T, 'op_lb_a', 'top-new', '99', '2026-01-01 00:00:00+00');
    assert.equal(await placeOf('op_lb_a', 'top-new'), 1);
    await score(T, 'op_lb_a', 'last-new', '0', '2026-02-01 00:00:00+00');
    const ahead = (await bruteForce(T)).length - 1;
    // Everyone in the snapshot is ahead of it (the two entrants after the snapshot are not counted).
    assert.equal(await placeOf('op_lb_a', 'last-new'), ahead - 2 + 1);
  });

  test('a player whose score rose after the snapshot is placed at once; others catch up at the rebuild', async () => {
    await rebuildRankSnapshots(db.pool, { force: true });
    const before = await bruteForce(T);
    const low = before[before.length - 5]!;
    const passed = before[500]!;
    // Up to the score of the player at 501, a second later: right behind them.
    const { rows } = await db.pool.query<{ s: string; at: string }>(
      `SELECT score::text AS s, (score_reached_at + interval '1 second')::text AS at FROM tournament_scores
        WHERE tournament_id = $1 AND operator_id = $2 AND external_player_id = $3`,
      [T, passed.op, passed.ext],
    );
    await score(T, low.op, low.ext, rows[0]!.s, rows[0]!.at);
    const live = await bruteForce(T);
    const risen = rankIn(live, low.op, low.ext);
    assert.ok(risen < before.length - 5);
    assert.equal(await placeOf(low.op, low.ext), risen, 'the risen player: its live place');
    // A player it passed still reads their place of the snapshot (one too high) until the rebuild.
    const behind = live[risen]!;
    const behindBefore = rankIn(before, behind.op, behind.ext);
    assert.equal(rankIn(live, behind.op, behind.ext), behindBefore + 1);
    assert.equal(await placeOf(behind.op, behind.ext), behindBefore);
    assert.ok((await rebuildRankSnapshots(db.pool, { force: true })).rebuilt);
    assert.equal(await placeOf(behind.op, behind.ext), behindBefore + 1);
    for (const [k, e] of live.entries())
      if (k % 11 === 0) assert.equal(await placeOf(e.op, e.ext), k + 1, `${e.op}/${e.ext}`);
  });
});

describe('when the snapshot is rebuilt', () => {
  /** The scores table's change count as the statistics show it, once this test's writes are in. */
  async function flushStats() {
    await loader.query(`SELECT pg_stat_force_next_flush()`);
    await loader.query(`SELECT 1`);
  }

  test('one process at a time (advisory lock 31, 1)', async () => {
    const holder = await db.pool.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock($1, $2)`, [...RANK_SNAPSHOT_LOCK]);
      assert.deepEqual(await rebuildRankSnapshots(db.pool, { force: true }), {
        rebuilt: false,
        reason: 'locked',
      });
    } finally {
      await holder.query(`SELECT pg_advisory_unlock($1, $2)`, [...RANK_SNAPSHOT_LOCK]);
      holder.release();
    }
  });

  test('only when the scores changed, at most once per interval, at once when a board starts or ends', async () => {
    await rebuildRankSnapshots(db.pool, { force: true });
    await flushStats();
    // The statistics may show this test's earlier writes a moment late: once they do, nothing changed.
    await until('unchanged', async () => {
      const r = await rebuildRankSnapshots(db.pool, { minIntervalMs: 0 });
      return r.reason === 'unchanged';
    });
    await score('lb-ranks', 'op_lb_a', 'mover', '7', '2026-01-01 00:00:01+00');
    await flushStats();
    await until('the change is counted', async () => {
      const r = await rebuildRankSnapshots(db.pool, { minIntervalMs: 3_600_000 });
      assert.ok(r.reason === 'recent' || r.reason === 'unchanged', r.reason);
      return r.reason === 'recent';
    });
    // Due once the interval (here at least ten times the last build's duration) has passed.
    await until('rebuilt for the change', async () => {
      const r = await rebuildRankSnapshots(db.pool, { minIntervalMs: 0 });
      assert.ok(r.reason === 'recent' || r.reason === 'changed', r.reason);
      return r.reason === 'changed';
    });
    // A tournament starting: its board is built at the next tick, however recent the last build.
    await tournament('lb-new');
    const started = await rebuildRankSnapshots(db.pool, { minIntervalMs: 3_600_000 });
    assert.equal(started.reason, 'boards');
    assert.ok(
      started.rebuilt && started.boards.some((b) => b.tournament_id === 'lb-new' && b.entrants === 0),
    );
    // Every tournament over: the snapshot is emptied.
    await db.pool.query(`UPDATE tournaments SET status = 'cancelled', cancelled_at = now()`);
    const cleared = await rebuildRankSnapshots(db.pool, { minIntervalMs: 3_600_000 });
    assert.equal(cleared.reason, 'cleared');
    const { rows } = await db.pool.query(
      `SELECT (SELECT count(*) FROM tournament_rank_snapshots)::int AS boards,
              (SELECT count(*) FROM tournament_rank_snapshot_0)::int + (SELECT count(*) FROM tournament_rank_snapshot_1)::int AS rows,
              (SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'tournament_rank_snapshot_%_board')::int AS indexes`,
    );
    assert.deepEqual(rows[0], { boards: 0, rows: 0, indexes: 2 });
    assert.deepEqual(await rebuildRankSnapshots(db.pool), { rebuilt: false, reason: 'no boards' });
    await db.pool.query(
      `UPDATE tournaments SET status = 'running', cancelled_at = NULL WHERE tournament_id = 'lb-ranks'`,
    );
  });

  test("each process's refresher builds it when due", async () => {
    await db.pool.query(`DELETE FROM tournament_rank_snapshots`);
    const warnings: string[] = [];
    const refresher = new RankSnapshotRefresher(
      db.pool,
      { warn: (msg) => warnings.push(msg), debug: () => {} },
      50,
    ).start();
    try {
      await until('built', async () => {
        const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM tournament_rank_snapshots`);
        return rows[0].n > 0;
      });
    } finally {
      await refresher.stop();
    }
    assert.deepEqual(warnings, []);
  });
});
