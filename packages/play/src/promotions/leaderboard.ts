import { leaderboardOrderSql, type Pool, prepared, type SecretBox } from '@opi/db';

/** One place on a tournament's leaderboard in one currency. */
export interface BoardRow {
  currency: string;
  rank: number;
  operator_id: string;
  external_player_id: string;
  score: string;
  prize_minor: string | null;
}

/**
 * A player as others see them on a leaderboard: a stable pseudonym per tournament (never the
 * operator's player id, which other operators and players must not learn).
 */
export function leaderboardDisplayId(
  box: SecretBox,
  tournamentId: string,
  operatorId: string,
  playerId: string,
) {
  return `player-${box.lookupHash(`tournament-display\n${tournamentId}\n${operatorId}\n${playerId}`).slice(0, 10)}`;
}

/**
 * Each currency's top `limit`: the frozen standings once the tournament ended, else the live
 * scores in the same order (ties: the earlier score, then the lower player id, then the operator)
 * with the prize each rank would win. Shared by the operator API, the staff portal's reads and the
 * game page.
 */
export async function leaderboard(
  pool: Pool,
  id: string,
  frozen: boolean,
  limit: number,
  currency?: string,
): Promise<BoardRow[]> {
  const { rows } = await pool.query<BoardRow>(
    frozen
      ? `SELECT trim(currency) AS currency, rank, operator_id, external_player_id, score::text, prize_minor::text
           FROM tournament_standings WHERE tournament_id = $1 AND ($3::text IS NULL OR currency = $3) AND rank <= $2
          ORDER BY currency, rank`
      : // The top `limit` of each currency from the board's index (score, then time; the last two
        // keys sorted incrementally): a request reads about `limit` rows, however many play.
        `SELECT trim(c.currency) AS currency, r.rank::int, r.operator_id, r.external_player_id, r.score::text,
                CASE WHEN r.score > 0 THEN p.amount_minor::text END AS prize_minor
           FROM tournament_currencies c
           CROSS JOIN LATERAL (
             SELECT t.*, row_number() OVER (ORDER BY ${leaderboardOrderSql('t')}) AS rank
               FROM (SELECT s.operator_id, s.external_player_id, s.score, s.score_reached_at
                       FROM tournament_scores s
                      WHERE s.tournament_id = c.tournament_id AND s.currency = c.currency
                      ORDER BY ${leaderboardOrderSql('s')}
                      LIMIT $2) t
           ) r
           LEFT JOIN tournament_prizes p ON p.tournament_id = c.tournament_id AND p.currency = c.currency AND p.rank = r.rank
          WHERE c.tournament_id = $1 AND ($3::text IS NULL OR c.currency = $3)
          ORDER BY c.currency, r.rank`,
    [id, limit, currency ?? null],
  );
  return rows;
}

/**
 * At most this many players ahead are counted live (two index ranges) when a board has no
 * published snapshot yet (its first seconds, or after PostgreSQL restarted from a crash: the
 * snapshot tables are unlogged). A player with more ahead is placed at LIVE_COUNT_CAP + 1 until the
 * snapshot is published (within RANK_SNAPSHOT_TICK_MS plus a rebuild).
 */
export const LIVE_COUNT_CAP = 10_000;

/** The last row of a snapshot slot strictly ahead of the player's live place: two index seeks. */
const lastAhead = (slot: 0 | 1) => `
         (SELECT r.rank FROM tournament_rank_snapshot_${slot} r
           WHERE (SELECT slot FROM snap) = ${slot} AND r.tournament_id = $1 AND r.currency = $2 AND r.score = me.score
             AND (r.score_reached_at, r.external_player_id COLLATE "C", r.operator_id COLLATE "C")
                 < (me.score_reached_at, me.external_player_id COLLATE "C", me.operator_id COLLATE "C")
           ORDER BY r.score_reached_at DESC, r.external_player_id COLLATE "C" DESC, r.operator_id COLLATE "C" DESC
           LIMIT 1),
         (SELECT r.rank FROM tournament_rank_snapshot_${slot} r
           WHERE (SELECT slot FROM snap) = ${slot} AND r.tournament_id = $1 AND r.currency = $2 AND r.score > me.score
           ORDER BY r.score, r.score_reached_at DESC, r.external_player_id COLLATE "C" DESC, r.operator_id COLLATE "C" DESC
           LIMIT 1)`;

/**
 * The player's place: their live score, and the players ahead of that score as the published
 * snapshot has them (rank-snapshots.ts). The rows strictly ahead in the leaderboard's order are a
 * prefix of the snapshot's ranks, so their number is the rank of the last of them: the last row
 * with the same score and an earlier (time, player, operator), else the last row with a higher
 * score. Each is one backward seek on the snapshot's board index (an OR of the two would be no
 * index range). The player's own snapshot row is never ahead (a score only rises). Without a
 * snapshot of the board: a live count over the board index's two ranges, each stopped at
 * LIVE_COUNT_CAP. The cap is in the text, not a parameter: with `LIMIT $n` the generic plan's cost
 * is a guess, the custom plans win, and every read is planned again (about half a millisecond of
 * the database's CPU on a board of a million, five times the read itself).
 */
export const PLAYER_STANDING_SQL = `
WITH me AS MATERIALIZED (
  SELECT m.score, m.score_reached_at, m.external_player_id, m.operator_id
    FROM tournament_scores m
   WHERE m.tournament_id = $1 AND m.currency = $2 AND m.operator_id = $3 AND m.external_player_id = $4
), snap AS MATERIALIZED (
  SELECT slot, built_at FROM tournament_rank_snapshots WHERE tournament_id = $1 AND currency = $2
)
SELECT me.score::text AS score,
       (SELECT built_at FROM snap) AS built_at,
       CASE WHEN (SELECT slot FROM snap) IS NOT NULL THEN
         coalesce(${lastAhead(0)},${lastAhead(1)},
           0)
       END AS ahead,
       CASE WHEN (SELECT slot FROM snap) IS NULL THEN
         (SELECT count(*) FROM (SELECT 1 FROM tournament_scores o
                                 WHERE o.tournament_id = $1 AND o.currency = $2 AND o.score > me.score
                                 LIMIT ${LIVE_COUNT_CAP}) higher)
         + (SELECT count(*) FROM (SELECT 1 FROM tournament_scores o
                                   WHERE o.tournament_id = $1 AND o.currency = $2 AND o.score = me.score
                                     AND (o.score_reached_at, o.external_player_id COLLATE "C", o.operator_id COLLATE "C")
                                         < (me.score_reached_at, me.external_player_id COLLATE "C", me.operator_id COLLATE "C")
                                   LIMIT ${LIVE_COUNT_CAP}) tied)
       END::int AS ahead_live
  FROM me`;

/**
 * One player's place on a live board, or null before their first counted round. Their own score is
 * live (a rise shows at once, a new entrant is placed at once); the others ahead are counted as the
 * last published snapshot has them (at most RANK_SNAPSHOT_MIN_INTERVAL_MS plus a tick and a rebuild
 * old). The top of the board comes from `leaderboard` (live), which the caller prefers.
 */
export async function playerStanding(
  pool: Pool,
  id: string,
  currency: string,
  operatorId: string,
  playerId: string,
): Promise<{ rank: number; score: string; snapshot_at: Date | null } | null> {
  const { rows } = await pool.query<{
    score: string;
    built_at: Date | null;
    ahead: number | null;
    ahead_live: number | null;
    // Named: each connection plans it once (planning costs more than the two seeks).
  }>(prepared(PLAYER_STANDING_SQL, [id, currency, operatorId, playerId]));
  const row = rows[0];
  if (!row) return null;
  const ahead = row.ahead ?? Math.min(row.ahead_live ?? 0, LIVE_COUNT_CAP);
  return { rank: ahead + 1, score: row.score, snapshot_at: row.built_at };
}
