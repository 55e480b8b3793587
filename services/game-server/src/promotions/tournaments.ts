import { leaderboard, leaderboardDisplayId, playerStanding } from '@opi/play/promotions/leaderboard';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import type { GameDeps } from '../deps.js';

/** What the game page shows of one tournament the session plays in. */
export interface PageTournament {
  tournament_id: string;
  name: string;
  scoring: 'max_multiplier' | 'total_win';
  status: string;
  starts_at: string;
  ends_at: string;
  min_stake_minor: string;
  /** The top ten; the player's own line says `own` (others are shown by a pseudonym). */
  top: { rank: number; display_id: string; own: boolean; score: string; prize_minor: string | null }[];
  /** The player's own place, or null before their first counted round. */
  me: { rank: number; score: string } | null;
}

/** How long a process reuses one leaderboard read (every open page asks every few seconds). */
const BOARD_TTL_MS = 1_000;
const boards = new Map<string, { at: number; rows: Awaited<ReturnType<typeof leaderboard>> }>();

async function topTen(deps: GameDeps, id: string, currency: string, frozen: boolean) {
  const key = `${id}|${currency}|${frozen}`;
  const hit = boards.get(key);
  if (hit && Date.now() - hit.at < BOARD_TTL_MS) return hit.rows;
  const rows = await leaderboard(deps.pool, id, frozen, 10, currency);
  if (boards.size > 1_000) boards.clear();
  boards.set(key, { at: Date.now(), rows });
  return rows;
}

/**
 * GET /api/runtime/tournaments: the tournaments this session's spins count toward (the title, the
 * operator opted in, the currency), running or starting soon, and those that ended in the last
 * day with their final standings; at most three, the soonest to end first.
 */
export async function sessionTournaments(deps: GameDeps, session: RuntimeSession): Promise<PageTournament[]> {
  if (session.provider_id !== 'prov_a' && session.provider_id !== 'prov_b') return [];
  const { rows } = await deps.pool.query<{
    tournament_id: string;
    name: string;
    scoring: 'max_multiplier' | 'total_win';
    status: string;
    starts_at: Date;
    ends_at: Date;
    min_stake_minor: string;
  }>(
    `SELECT t.tournament_id, t.name, t.scoring, t.status, t.starts_at, t.ends_at, c.min_stake_minor::text
       FROM tournaments t
       JOIN tournament_titles tt ON tt.tournament_id = t.tournament_id AND tt.symbol = $2
       JOIN tournament_operators o ON o.tournament_id = t.tournament_id AND o.operator_id = $1 AND o.opted_in
       JOIN tournament_currencies c ON c.tournament_id = t.tournament_id AND c.currency = $3
      WHERE t.status <> 'cancelled' AND t.ends_at > now() - interval '1 day'
      ORDER BY t.ends_at, t.tournament_id
      LIMIT 3`,
    [session.operator_id, session.symbol, session.currency],
  );
  return Promise.all(
    rows.map(async (t) => {
      const frozen = t.status === 'ended' || t.status === 'paid';
      const top = await topTen(deps, t.tournament_id, session.currency, frozen);
      const own = (r: { operator_id: string; external_player_id: string }) =>
        r.operator_id === session.operator_id && r.external_player_id === session.external_player_id;
      const mine = top.find(own);
      const me = mine
        ? { rank: mine.rank, score: mine.score }
        : frozen
          ? null
          : await playerStanding(
              deps.pool,
              t.tournament_id,
              session.currency,
              session.operator_id,
              session.external_player_id,
            );
      return {
        tournament_id: t.tournament_id,
        name: t.name,
        scoring: t.scoring,
        status: t.status,
        starts_at: t.starts_at.toISOString(),
        ends_at: t.ends_at.toISOString(),
        min_stake_minor: t.min_stake_minor,
        top: top.map((r) => ({
          rank: r.rank,
          display_id: own(r)
            ? 'You'
            : leaderboardDisplayId(deps.box, t.tournament_id, r.operator_id, r.external_player_id),
          own: own(r),
          score: r.score,
          prize_minor: r.prize_minor,
        })),
        me,
      };
    }),
  );
}
