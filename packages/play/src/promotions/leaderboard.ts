import type { Pool, SecretBox } from '@opi/db';

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
             SELECT t.*, row_number() OVER (
                      ORDER BY t.score DESC, t.score_reached_at, t.external_player_id COLLATE "C",
                               t.operator_id COLLATE "C") AS rank
               FROM (SELECT s.operator_id, s.external_player_id, s.score, s.score_reached_at
                       FROM tournament_scores s
                      WHERE s.tournament_id = c.tournament_id AND s.currency = c.currency
                      ORDER BY s.score DESC, s.score_reached_at, s.external_player_id COLLATE "C",
                               s.operator_id COLLATE "C"
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
 * One player's live place: their score and how many players are ahead of them in the leaderboard's
 * order (an index range on tournament_scores_board, not a ranking of everyone). Null before
 * their first counted round.
 */
export async function playerStanding(
  pool: Pool,
  id: string,
  currency: string,
  operatorId: string,
  playerId: string,
): Promise<{ rank: number; score: string } | null> {
  const { rows } = await pool.query<{ rank: number; score: string }>(
    `SELECT (SELECT count(*) FROM tournament_scores o
              WHERE o.tournament_id = m.tournament_id AND o.currency = m.currency
                AND (o.score > m.score
                     OR (o.score = m.score AND (o.score_reached_at, o.external_player_id COLLATE "C", o.operator_id COLLATE "C")
                                               < (m.score_reached_at, m.external_player_id COLLATE "C", m.operator_id COLLATE "C"))))::int + 1 AS rank,
            m.score::text AS score
       FROM tournament_scores m
      WHERE m.tournament_id = $1 AND m.currency = $2 AND m.operator_id = $3 AND m.external_player_id = $4`,
    [id, currency, operatorId, playerId],
  );
  return rows[0] ?? null;
}
