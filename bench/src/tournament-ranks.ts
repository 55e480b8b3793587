/**
 * A player's place on a tournament leaderboard of a million entrants (issue 34 point 8,
 * docs/jackpots-and-promotions.md "A player's place"): the read behind `GET /api/runtime/tournaments`
 * for a player outside the top ten, as built (`playerStanding`: the player's live score against the
 * published rank snapshot, two index seeks) and as it was (a count of everyone ahead, an OR no
 * index range serves), in the same run on the same board; and what publishing the snapshot costs
 * the database (`rebuildRankSnapshots`: wall time and PostgreSQL's CPU).
 *
 * The board is made set-based (generate_series) in a private embedded PostgreSQL: PLAYERS entrants
 * in one currency, a fifth of them tied at score 0 (a total-win board's losers), the others over
 * 200,000 score values (ties within a score broken by the time, then the player id), player ids
 * spread over four operators. The reads go one at a time through a pool, as the game server sends
 * them, for players spread over the whole board outside the top ten; then again after CHANGED
 * players rose and CHANGED new entrants came in since the snapshot (their place is still exact:
 * their own live score against the snapshot).
 *
 *   npm run bench -- tournament-ranks
 *   PLAYERS=1000000 READS=3000 OLD_READS=40 REBUILDS=3 CHANGED=1000 (defaults)
 */
import os from 'node:os';
import { prepared } from '@opi/db';
import { LIVE_COUNT_CAP, PLAYER_STANDING_SQL, playerStanding } from '@opi/play/promotions/leaderboard';
import { rebuildRankSnapshots } from '@opi/play/promotions/rank-snapshots';
import { cpuSnapshot, procTable } from './lib/cpu.js';
import { startBenchStack } from './lib/stack.js';
import { fmt, median, percentile } from './lib/stats.js';

const PLAYERS = Number(process.env.PLAYERS ?? 1_000_000);
const READS = Number(process.env.READS ?? 3000);
const OLD_READS = Number(process.env.OLD_READS ?? 40);
const REBUILDS = Number(process.env.REBUILDS ?? 3);
const CHANGED = Number(process.env.CHANGED ?? 1000);
const TARGET_P99_MS = 5;

const T = 'bench-ranks';
const CUR = 'EUR';
const OPERATORS = ['op_rk_a', 'op_rk_b', 'op_rk_c', 'op_rk_d'];

/** The read before issue 34: every player ahead counted (the OR of the two ranges). */
const OLD_STANDING_SQL = `SELECT (SELECT count(*) FROM tournament_scores o
              WHERE o.tournament_id = m.tournament_id AND o.currency = m.currency
                AND (o.score > m.score
                     OR (o.score = m.score AND (o.score_reached_at, o.external_player_id COLLATE "C", o.operator_id COLLATE "C")
                                               < (m.score_reached_at, m.external_player_id COLLATE "C", m.operator_id COLLATE "C"))))::int + 1 AS rank,
            m.score::text AS score
       FROM tournament_scores m
      WHERE m.tournament_id = $1 AND m.currency = $2 AND m.operator_id = $3 AND m.external_player_id = $4`;

/** The database's own time of a statement, as one more output column. */
const DB_MS = `(extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000)::float8 AS db_ms`;
const NEW_TIMED = PLAYER_STANDING_SQL.replace(/\n {2}FROM me$/, `,\n       ${DB_MS}\n  FROM me`);
const OLD_TIMED = OLD_STANDING_SQL.replace('m.score::text AS score', `m.score::text AS score, ${DB_MS}`);
if (NEW_TIMED === PLAYER_STANDING_SQL || OLD_TIMED === OLD_STANDING_SQL)
  throw new Error('timing column not added');

const say = (line: string) => process.stdout.write(`${line}\n`);
const opOf = (i: number) => OPERATORS[i % OPERATORS.length]!;
const extOf = (i: number) => `rk-${i}`;

const stack = await startBenchStack();
try {
  const { pool } = stack;
  const symbol = (await pool.query<{ symbol: string }>(`SELECT symbol FROM games LIMIT 1`)).rows[0]!.symbol;
  for (const op of OPERATORS)
    await pool.query(`INSERT INTO operators (operator_id, name) VALUES ($1, $1)`, [op]);
  await pool.query(
    `INSERT INTO tournaments (tournament_id, name, scoring, starts_at, ends_at, status)
     VALUES ($1, 'Rank bench', 'total_win', now() - interval '1 hour', now() + interval '1 day', 'running')`,
    [T],
  );
  await pool.query(`INSERT INTO tournament_titles VALUES ($1, $2)`, [T, symbol]);
  for (const op of OPERATORS)
    await pool.query(`INSERT INTO tournament_operators VALUES ($1, $2, true)`, [T, op]);
  await pool.query(`INSERT INTO tournament_currencies VALUES ($1, $2, 100)`, [T, CUR]);

  const load0 = performance.now();
  // The players' rows are the scores' foreign keys only: the board is loaded without them
  // (replica mode skips the foreign-key triggers), which the reads never touch.
  const c = await pool.connect();
  try {
    await c.query(`SET session_replication_role = replica`);
    await c.query(`SET work_mem = '256MB'`);
    await c.query(
      `INSERT INTO tournament_scores (tournament_id, currency, operator_id, external_player_id, player_id, scoring,
                                      score, score_reached_at, best_round_id, last_round_id, last_session_id,
                                      last_game_symbol, rounds_counted)
       SELECT $1, $2, ($3::text[])[i % 4 + 1], 'rk-' || i, 'p_rk_' || i, 'total_win',
              CASE WHEN i % 5 = 0 THEN 0 ELSE ((i::bigint * 7919) % 200000) / 100.0 END,
              now() - make_interval(secs => ((i::bigint * 31) % 86400)::int),
              'r_' || i, 'r_' || i, 's_' || i, $4, 1 + i % 9
         FROM generate_series(1, $5::int) i`,
      [T, CUR, OPERATORS, symbol, PLAYERS],
    );
    await c.query(`RESET session_replication_role`);
    await c.query(`VACUUM ANALYZE tournament_scores`);
  } finally {
    c.release();
  }
  const loadS = (performance.now() - load0) / 1000;
  say(`tournament-ranks: ${PLAYERS.toLocaleString('en')} entrants loaded in ${fmt(loadS)} s`);

  // The live order, for picking players by rank (the bench's own lookup, not a measured read).
  const { rows: order } = await pool.query<{ i: number; score: string; at: string }>(
    `SELECT substr(s.external_player_id, 4)::int AS i, s.score::text AS score, s.score_reached_at::text AS at
       FROM tournament_scores s WHERE s.tournament_id = $1 AND s.currency = $2
      ORDER BY s.score DESC, s.score_reached_at, s.external_player_id COLLATE "C", s.operator_id COLLATE "C"`,
    [T, CUR],
  );
  const playerAt = (rank: number) => order[rank - 1]!.i;
  /** Whether the players at two ranks tie on score and time (placed by their ids). */
  const sameTime = (a: number, b: number) =>
    order[a - 1]!.score === order[b - 1]!.score && order[a - 1]!.at === order[b - 1]!.at;
  /** Ranks spread over the whole board outside the top ten (a fixed stride, so every run reads the same). */
  const spread = (n: number) =>
    Array.from({ length: n }, (_, k) => 11 + Math.floor(((k + 0.5) * (PLAYERS - 11)) / n));

  // ── the snapshot's rebuild ─────────────────────────────────────────────────────────────────
  const rebuildMs: number[] = [];
  const rebuildPgMs: number[] = [];
  for (let k = 0; k < REBUILDS; k++) {
    const before = cpuSnapshot();
    const r = await rebuildRankSnapshots(pool, { force: true });
    const after = cpuSnapshot();
    if (!r.rebuilt) throw new Error(`rebuild ${k}: ${r.reason}`);
    rebuildMs.push(r.ms);
    rebuildPgMs.push(((after.get('postgresql') ?? 0) - (before.get('postgresql') ?? 0)) * 1000);
  }
  const { rows: snapRows } = await pool.query<{ entrants: number; build_ms: number }>(
    `SELECT entrants, build_ms FROM tournament_rank_snapshots WHERE tournament_id = $1`,
    [T],
  );
  const { rows: sizes } = await pool.query<{ table: string; index: string }>(
    `SELECT pg_size_pretty(pg_relation_size(format('tournament_rank_snapshot_%s', slot)::regclass)) AS table,
            pg_size_pretty(pg_relation_size(format('tournament_rank_snapshot_%s_board', slot)::regclass)) AS index
       FROM tournament_rank_snapshots WHERE tournament_id = $1`,
    [T],
  );

  // The load's and the rebuilds' dirty pages written out now, not during the reads.
  await pool.query(`CHECKPOINT`);
  // PostgreSQL's own background CPU (checkpointer, writers, autovacuum) while idle, per ms: taken
  // off each measurement's CPU so that the per-read figure is the reads'.
  const idle0 = cpuSnapshot();
  const idleT0 = performance.now();
  await new Promise((r) => setTimeout(r, 3000));
  const idleRate =
    (((cpuSnapshot().get('postgresql') ?? 0) - (idle0.get('postgresql') ?? 0)) * 1000) /
    (performance.now() - idleT0);

  // ── the reads ──────────────────────────────────────────────────────────────────────────────
  /**
   * One read per rank, one at a time, each answer checked against the live order. The statements
   * carry one more output column, the database's own time (from the statement's start, the
   * receipt of its Execute message, to its last output column): apart from the client's round trip
   * and this busy machine's scheduling. `new` is playerStanding's named statement.
   */
  async function measure(
    label: string,
    sql: 'new' | 'old',
    ranks: number[],
    expected: (rank: number) => number = (rank) => rank,
    who: (rank: number) => number = playerAt,
  ) {
    const ms: number[] = [];
    const db: number[] = [];
    // One connection for the phase: its backend's own CPU is read from /proc.
    const client = await pool.connect();
    const backend = (await client.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0]!.pid;
    const backend0 = procTable().get(backend)?.seconds ?? 0;
    const before = cpuSnapshot();
    const t00 = performance.now();
    for (const rank of ranks) {
      const i = who(rank);
      const t0 = performance.now();
      let got: number | undefined;
      if (sql === 'new') {
        const { rows } = await client.query<{
          ahead: number | null;
          ahead_live: number | null;
          db_ms: number;
        }>(prepared(NEW_TIMED, [T, CUR, opOf(i), extOf(i)]));
        const r = rows[0];
        if (r) {
          got = (r.ahead ?? Math.min(r.ahead_live ?? 0, LIVE_COUNT_CAP)) + 1;
          db.push(r.db_ms);
        }
      } else {
        const { rows } = await client.query<{ rank: number; db_ms: number }>(OLD_TIMED, [
          T,
          CUR,
          opOf(i),
          extOf(i),
        ]);
        got = rows[0]?.rank;
        if (rows[0]) db.push(rows[0].db_ms);
      }
      ms.push(performance.now() - t0);
      if (got !== expected(rank))
        throw new Error(`${label}: player ${i} at ${rank} read as ${got} (expected ${expected(rank)})`);
    }
    const after = cpuSnapshot();
    const backendMs = (((procTable().get(backend)?.seconds ?? 0) - backend0) * 1000) / ranks.length;
    client.release();
    const pgCpu = ((after.get('postgresql') ?? 0) - (before.get('postgresql') ?? 0)) * 1000;
    const pgMs = Math.max(0, pgCpu - idleRate * (performance.now() - t00)) / ranks.length;
    return { label, ms, db, pgMs, backendMs };
  }

  // Warm the caches the way a running server has them.
  await measure('warm-up', 'new', spread(200));
  // playerStanding itself answers the same places.
  for (const rank of spread(50)) {
    const i = playerAt(rank);
    const got = await playerStanding(pool, T, CUR, opOf(i), extOf(i));
    if (got?.rank !== rank) throw new Error(`playerStanding: player ${i} at ${rank} read as ${got?.rank}`);
  }
  const fresh = await measure('new, snapshot current', 'new', spread(READS));
  const old = await measure('old count', 'old', spread(OLD_READS));

  // CHANGED players rise to the score of a player far above them, and CHANGED new entrants come in,
  // after the snapshot: each reads its exact place (the only change ahead of it is itself).
  const risers = spread(CHANGED).map((rank) => ({ rank, i: playerAt(rank) }));
  const targets = risers.map((r) => {
    let rank = Math.max(11, Math.floor(r.rank / 3));
    while (sameTime(rank, rank + 1)) rank++;
    return rank;
  });
  await pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ('p_rk_new', $1, 'rk-new', 'global')`,
    [OPERATORS[0]],
  );
  let risen = 0;
  const riserRank = new Map<number, number>();
  for (const [k, r] of risers.entries()) {
    const target = order[targets[k]! - 1]!;
    // Just behind the target (same score, one microsecond later): placed right after it.
    await pool.query(
      `UPDATE tournament_scores SET score = $5, score_reached_at = $6::timestamptz + interval '1 microsecond'
        WHERE tournament_id = $1 AND currency = $2 AND operator_id = $3 AND external_player_id = $4`,
      [T, CUR, opOf(r.i), extOf(r.i), target.score, target.at],
    );
    // Exact while only it moved: the players ahead of it in the snapshot are the target's and the
    // target itself (a later riser behind the same target never lands ahead of it).
    riserRank.set(r.rank, targets[k]! + 1);
    risen++;
  }
  const risenRead = await measure(
    `new, ${risen} risen since the snapshot`,
    'new',
    risers.map((r) => r.rank),
    // Each riser is read against the snapshot: its old row is behind it, others unchanged.
    (rank) => riserRank.get(rank)!,
  );
  const entrantRanks = spread(CHANGED).map((r) => {
    let rank = r;
    while (sameTime(rank - 1, rank)) rank++;
    return rank;
  });
  const entrantAt = new Map<number, number>();
  for (const [k, rank] of entrantRanks.entries()) {
    const i = PLAYERS + 1 + k;
    // The snapshot's player at that place (as loaded: some have risen since).
    const row = order[rank - 1]!;
    // A new entrant with the same score one microsecond before the player at `rank`: it takes
    // that place (the snapshot's players ahead are rank - 1).
    await pool.query(
      `INSERT INTO tournament_scores (tournament_id, currency, operator_id, external_player_id, player_id, scoring,
                                      score, score_reached_at, best_round_id, last_round_id, last_session_id,
                                      last_game_symbol, rounds_counted)
       SELECT $1, $2, $3, $4, 'p_rk_new', 'total_win', $5, $6::timestamptz - interval '1 microsecond', 'r', 'r', 's', $7, 1`,
      [T, CUR, opOf(i), extOf(i), row.score, row.at, symbol],
    );
    entrantAt.set(rank, i);
  }
  const entrantRead = await measure(
    `new, ${CHANGED} new entrants since the snapshot`,
    'new',
    entrantRanks,
    (rank) => rank,
    (rank) => entrantAt.get(rank)!,
  );

  // The plan of the read (no sequential scan, no count over the board).
  const mid = playerAt(Math.floor(PLAYERS / 2));
  const { rows: plan } = await pool.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON) ${PLAYER_STANDING_SQL}`,
    [T, CUR, opOf(mid), extOf(mid)],
  );
  const planText = plan.map((r) => r['QUERY PLAN']).join('\n');

  const p = (xs: number[], q: number) => fmt(percentile(xs, q), 3).padStart(8);
  const line = (r: Awaited<ReturnType<typeof measure>>) =>
    `  ${r.label.padEnd(44)} ${String(r.ms.length).padStart(5)}  database p50 ${p(r.db, 50)} p99 ${p(r.db, 99)} max ${p(r.db, 100)} ms` +
    `  | round trip p50 ${p(r.ms, 50)} p99 ${p(r.ms, 99)} max ${p(r.ms, 100)} ms  | CPU per read: its backend ${fmt(r.backendMs, 3)} ms, PostgreSQL in all ${fmt(r.pgMs, 3)} ms`;
  say('');
  say(`PostgreSQL idle: ${fmt(idleRate * 1000, 0)} ms of CPU per second (taken off "PostgreSQL in all")`);
  say(
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (${os.availableParallelism()} CPUs)`,
  );
  say(`a player's place outside the top ten, ${PLAYERS.toLocaleString('en')} entrants, one read at a time:`);
  for (const r of [fresh, risenRead, entrantRead, old]) say(line(r));
  const news = [fresh, risenRead, entrantRead];
  const p99 = Math.max(...news.map((r) => percentile(r.db, 99)));
  const tripP99 = Math.max(...news.map((r) => percentile(r.ms, 99)));
  say(
    `  old / new: database p50 ${fmt(percentile(old.db, 50) / percentile(fresh.db, 50), 0)}x, p99 ${fmt(percentile(old.db, 99) / percentile(fresh.db, 99), 0)}x; round trip p50 ${fmt(percentile(old.ms, 50) / percentile(fresh.ms, 50), 0)}x`,
  );
  say(
    `  target p99 <= ${TARGET_P99_MS} ms: database ${p99 <= TARGET_P99_MS ? 'met' : 'NOT MET'} (worst p99 of the three new rows ${fmt(p99, 3)} ms); ` +
      `round trip ${tripP99 <= TARGET_P99_MS ? 'met' : 'not met'} (${fmt(tripP99, 3)} ms)`,
  );
  say('');
  say(
    `snapshot rebuild (${snapRows[0]?.entrants.toLocaleString('en')} entrants, ${REBUILDS} runs): ${rebuildMs.map((m) => fmt(m, 0)).join(', ')} ms (median ${fmt(median(rebuildMs), 0)}); ` +
      `PostgreSQL CPU ${rebuildPgMs.map((m) => fmt(m, 0)).join(', ')} ms; slot table ${sizes[0]?.table}, index ${sizes[0]?.index}; ` +
      `load ${fmt(loadS)} s`,
  );
  say('');
  say('the read at the middle of the board (EXPLAIN ANALYZE):');
  say(planText);
  const seq = /Seq Scan/.test(planText);
  if (seq || p99 > TARGET_P99_MS) process.exitCode = 1;
} finally {
  await stack.stop();
}
