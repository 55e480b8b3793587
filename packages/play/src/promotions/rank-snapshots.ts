import { ADVISORY_LOCK_CLASS, leaderboardOrderSql, type Pool, type PoolClient } from '@opi/db';

/**
 * The published snapshot of every live leaderboard (issue 34 point 8, migration 31,
 * docs/jackpots-and-promotions.md "A player's place"): each board's players with their rank, so a
 * player's place is two index seeks (leaderboard.ts `playerStanding`) instead of a count of everyone
 * ahead.
 *
 * Rebuilt by whichever process holds the advisory lock (RANK_SNAPSHOT_LOCK), while the boards stay
 * the same at most once per RANK_SNAPSHOT_MIN_INTERVAL_MS and RANK_SNAPSHOT_INTERVAL_PER_BUILD times
 * its own last duration, and only when tournament_scores changed since (its insert/update/delete count in pg_stat_user_tables: one number for every
 * board, read without touching the table). A tournament starting or ending rebuilds at the next
 * tick. Every game-server process ticks (RankSnapshotRefresher); the others find the lock held or
 * the snapshot fresh and do nothing.
 */

/**
 * `pg_try_advisory_lock(31, 1)`: the rebuild's lock, held (session level) from the decision to
 * the commit. The two-key classes in use are named in @opi/db (ADVISORY_LOCK_CLASS); 31 is this
 * migration's.
 */
export const RANK_SNAPSHOT_LOCK = [ADVISORY_LOCK_CLASS.rankSnapshotRebuild, 1] as const;
/** The least time between two rebuilds of the same boards. */
export const RANK_SNAPSHOT_MIN_INTERVAL_MS = 15_000;
/**
 * And at least this many times the last rebuild's duration: rebuilding takes at most a tenth of
 * the database's time on one core, however large the boards (a million entrants: 3.3-3.5 s of
 * PostgreSQL's CPU per rebuild, 3-12 s of wall time on the benchmark's shared machine, so one every
 * 30-120 s; docs/benchmarks.md).
 */
export const RANK_SNAPSHOT_INTERVAL_PER_BUILD = 10;
/** How often each game-server process looks whether a rebuild is due. */
export const RANK_SNAPSHOT_TICK_MS = 5_000;
/**
 * The TRUNCATE of the slot not in use waits at most this long for its lock (a long transaction
 * reading the table, a dump): readers would queue behind it. The rebuild is then skipped.
 */
const TRUNCATE_LOCK_TIMEOUT = '500ms';
/** The rebuild's sort of a board (a million players: about 100 MB in memory instead of on disk). */
const BUILD_WORK_MEM = '256MB';

export interface Board {
  tournament_id: string;
  currency: string;
}

export type RebuildResult =
  | { rebuilt: false; reason: 'locked' | 'recent' | 'unchanged' | 'no boards' | 'busy' }
  | {
      rebuilt: true;
      reason: 'boards' | 'changed' | 'forced' | 'cleared';
      slot: number;
      boards: (Board & { entrants: number })[];
      ms: number;
    };

const key = (b: Board) => `${b.tournament_id}|${b.currency}`;

/**
 * The slot tables' board index (as migration 31 makes it): the leaderboard's order with every
 * tie-break, so the last row ahead of any (score, time, player, operator) is one seek. Dropped
 * while a slot is refilled and made again on its new rows (one sorted build: about half the cost
 * of keeping it up row by row).
 */
const boardIndexSql = (slot: 0 | 1) =>
  `CREATE INDEX IF NOT EXISTS tournament_rank_snapshot_${slot}_board ON tournament_rank_snapshot_${slot}
     (tournament_id, currency, ${leaderboardOrderSql()})`;

/**
 * Empties one slot and drops its index in one short transaction, waiting at most
 * TRUNCATE_LOCK_TIMEOUT for the table's lock; false when it did not get it (a long transaction
 * holds the table: readers would queue behind the TRUNCATE).
 */
async function emptySlot(c: PoolClient, slot: 0 | 1): Promise<boolean> {
  await c.query('BEGIN');
  try {
    await c.query(`SET LOCAL lock_timeout = '${TRUNCATE_LOCK_TIMEOUT}'`);
    await c.query(`TRUNCATE tournament_rank_snapshot_${slot}`);
    await c.query(`DROP INDEX IF EXISTS tournament_rank_snapshot_${slot}_board`);
    await c.query('COMMIT');
    return true;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    if ((err as { code?: string }).code === '55P03') return false;
    throw err;
  }
}

/**
 * One rebuild decision, and the rebuild when it is due. `force` rebuilds whatever changed (tests,
 * the benchmark). Safe to call from any number of processes at once: one holds the lock, the
 * others answer `locked`.
 */
export async function rebuildRankSnapshots(
  pool: Pool,
  options: { force?: boolean; minIntervalMs?: number } = {},
): Promise<RebuildResult> {
  const minIntervalMs = options.minIntervalMs ?? RANK_SNAPSHOT_MIN_INTERVAL_MS;
  const c = await pool.connect();
  let locked = false;
  let broken = false;
  try {
    const { rows: got } = await c.query<{ got: boolean }>(`SELECT pg_try_advisory_lock($1, $2) AS got`, [
      ...RANK_SNAPSHOT_LOCK,
    ]);
    if (!got[0]?.got) return { rebuilt: false, reason: 'locked' };
    locked = true;
    const { rows } = await c.query<{
      live: Board[] | null;
      built: Board[] | null;
      slot: number | null;
      age_ms: number | null;
      build_ms: number | null;
      built_changes: string | null;
      changes: string | null;
    }>(
      // The boards that can change: tournaments not over (the partial index tournaments_live)
      // that have started. A board keeps its snapshot from its start until the freeze.
      `SELECT (SELECT json_agg(json_build_object('tournament_id', c.tournament_id, 'currency', trim(c.currency))
                               ORDER BY c.tournament_id, c.currency)
                 FROM tournaments t JOIN tournament_currencies c ON c.tournament_id = t.tournament_id
                WHERE t.status IN ('scheduled', 'running') AND t.starts_at <= now()) AS live,
              (SELECT json_agg(json_build_object('tournament_id', tournament_id, 'currency', trim(currency))
                               ORDER BY tournament_id, currency)
                 FROM tournament_rank_snapshots) AS built,
              (SELECT min(slot) FROM tournament_rank_snapshots)::int AS slot,
              (SELECT (extract(epoch FROM now() - max(built_at)) * 1000)::float8 FROM tournament_rank_snapshots) AS age_ms,
              (SELECT max(build_ms) FROM tournament_rank_snapshots) AS build_ms,
              (SELECT max(scores_changes)::text FROM tournament_rank_snapshots) AS built_changes,
              (SELECT CASE WHEN current_setting('track_counts')::boolean
                           THEN (n_tup_ins + n_tup_upd + n_tup_del)::text END
                 FROM pg_stat_user_tables WHERE relid = 'tournament_scores'::regclass) AS changes`,
    );
    const state = rows[0]!;
    const live = state.live ?? [];
    const built = state.built ?? [];
    const sameBoards = live.length === built.length && live.every((b, i) => key(b) === key(built[i]!));
    if (live.length === 0 && built.length === 0) return { rebuilt: false, reason: 'no boards' };
    let reason: 'boards' | 'changed' | 'forced' | 'cleared';
    if (options.force) reason = 'forced';
    else if (!sameBoards) reason = live.length === 0 ? 'cleared' : 'boards';
    else if (state.changes !== null && state.changes === state.built_changes)
      return { rebuilt: false, reason: 'unchanged' };
    else if (
      (state.age_ms ?? Number.POSITIVE_INFINITY) <
      Math.max(minIntervalMs, RANK_SNAPSHOT_INTERVAL_PER_BUILD * (state.build_ms ?? 0))
    )
      return { rebuilt: false, reason: 'recent' };
    else reason = 'changed';

    const slot: 0 | 1 = state.slot === 0 ? 1 : 0;
    const t0 = performance.now();
    // Empty the slot not in use (no reader reads it: every statement reads the slot the snapshot
    // rows name, and this one has not been named since the rebuild before the last).
    if (!(await emptySlot(c, slot))) return { rebuilt: false, reason: 'busy' };
    if (live.length === 0) {
      // No board left: the rows naming the last ones go, then their slot is emptied too.
      await c.query(`DELETE FROM tournament_rank_snapshots`);
      const last: 0 | 1 = state.slot === 1 ? 1 : 0;
      if (state.slot !== null && (await emptySlot(c, last))) await c.query(boardIndexSql(last));
      await c.query(boardIndexSql(slot));
      return { rebuilt: true, reason, slot, boards: [], ms: performance.now() - t0 };
    }
    // One snapshot for every board (REPEATABLE READ), published with the rows that name it.
    await c.query(`BEGIN ISOLATION LEVEL REPEATABLE READ`);
    try {
      // One pass over the table and an in-memory sort: reading a million rows in the board index's
      // order is a random heap access per row (two to three times slower when the table is not
      // all in shared buffers).
      await c.query(`SET LOCAL work_mem = '${BUILD_WORK_MEM}'`);
      await c.query(`SET LOCAL maintenance_work_mem = '${BUILD_WORK_MEM}'`);
      await c.query(`SET LOCAL enable_indexscan = off`);
      await c.query(`SET LOCAL enable_bitmapscan = off`);
      const boards: (Board & { entrants: number })[] = [];
      for (const b of live) {
        // The leaderboard's order, as the live top and the freeze rank (leaderboard.ts,
        // workflows/src/promotions/activities.ts).
        const inserted = await c.query(
          `INSERT INTO tournament_rank_snapshot_${slot}
             (tournament_id, currency, rank, score, score_reached_at, external_player_id, operator_id)
           SELECT s.tournament_id, s.currency,
                  row_number() OVER (ORDER BY ${leaderboardOrderSql('s')}),
                  s.score, s.score_reached_at, s.external_player_id, s.operator_id
             FROM tournament_scores s
            WHERE s.tournament_id = $1 AND s.currency = $2
            ORDER BY ${leaderboardOrderSql('s')}`,
          [b.tournament_id, b.currency],
        );
        boards.push({ ...b, entrants: inserted.rowCount ?? 0 });
      }
      await c.query(boardIndexSql(slot));
      await c.query(`DELETE FROM tournament_rank_snapshots`);
      await c.query(
        `INSERT INTO tournament_rank_snapshots
           (tournament_id, currency, slot, entrants, built_at, build_ms, scores_changes)
         SELECT b.tournament_id, b.currency, $2, b.entrants, now(),
                (extract(epoch FROM clock_timestamp() - now()) * 1000)::int, $3::bigint
           FROM json_to_recordset($1::json) AS b(tournament_id text, currency text, entrants int)`,
        [JSON.stringify(boards), slot, state.changes],
      );
      await c.query(`COMMIT`);
      return { rebuilt: true, reason, slot, boards, ms: performance.now() - t0 };
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    }
  } catch (err) {
    broken = true;
    throw err;
  } finally {
    if (locked) {
      try {
        await c.query(`SELECT pg_advisory_unlock($1, $2)`, [...RANK_SNAPSHOT_LOCK]);
      } catch {
        broken = true;
      }
    }
    // A connection whose lock could not be given back is closed (closing releases it).
    c.release(broken && locked ? true : undefined);
  }
}

/**
 * Each game-server process runs one: every RANK_SNAPSHOT_TICK_MS it asks for a rebuild
 * (`rebuildRankSnapshots`), which one process at a time does when it is due. A failure is logged
 * and tried again at the next tick; readers meanwhile keep the last snapshot published.
 */
export class RankSnapshotRefresher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly log: {
      warn(msg: string, fields?: Record<string, unknown>): void;
      debug(msg: string, fields?: Record<string, unknown>): void;
    },
    private readonly tickMs = RANK_SNAPSHOT_TICK_MS,
  ) {}

  start(): this {
    // Processes started together spread their ticks.
    const first = Math.floor(Math.random() * this.tickMs);
    this.timer = setTimeout(() => this.tick(), first);
    this.timer.unref();
    return this;
  }

  private tick(): void {
    if (this.stopped) return;
    this.running = rebuildRankSnapshots(this.pool).then(
      (r) => {
        if (r.rebuilt)
          this.log.debug('tournament rank snapshot rebuilt', {
            reason: r.reason,
            ms: Math.round(r.ms),
            boards: r.boards.length,
            entrants: r.boards.reduce((n, b) => n + b.entrants, 0),
          });
      },
      (err: unknown) =>
        this.log.warn('tournament rank snapshot rebuild failed', {
          error: String((err as Error)?.message ?? err),
        }),
    );
    void this.running.finally(() => {
      this.running = undefined;
      if (!this.stopped) {
        this.timer = setTimeout(() => this.tick(), this.tickMs);
        this.timer.unref();
      }
    });
  }

  /** No further ticks; resolves once a rebuild under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
