import { isSlotTitle } from '@opi/games';
import { leaderboard, leaderboardDisplayId, playerStanding } from '@opi/play/promotions/leaderboard';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { tooManyRequests } from '@opi/service-kit/http/named-errors';
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
 * Reads of `GET /api/runtime/tournaments` one session may make in each game-server process: at
 * most TOURNAMENT_READS_PER_WINDOW in any TOURNAMENT_READS_WINDOW_MS, then 429 with Retry-After
 * until the oldest leaves the window (issue 34 point 8). The page reads at its start, every 3 s and
 * 300 ms after each spin (game.js): a player spinning as fast as the page lets them stays well
 * under it, and a refused read leaves the panel as it was until the next poll. Counted in the
 * process, not in PostgreSQL (a counter written per read would cost the database more than the
 * read it guards): behind a load balancer that spreads one session's requests over N processes the
 * session gets at most N times the limit.
 */
export const TOURNAMENT_READS_PER_WINDOW = 20;
export const TOURNAMENT_READS_WINDOW_MS = 10_000;
/** Sessions remembered per process; past it the idle ones are forgotten first. */
const READ_LIMIT_SESSIONS = 50_000;

/** A sliding window of read times per key (in-process). */
export class ReadLimiter {
  private readonly reads = new Map<string, number[]>();

  constructor(
    readonly limit = TOURNAMENT_READS_PER_WINDOW,
    readonly windowMs = TOURNAMENT_READS_WINDOW_MS,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = READ_LIMIT_SESSIONS,
  ) {}

  /** 0 when the read may go ahead (and is counted), else the ms until one may. */
  take(key: string): number {
    const now = this.now();
    let times = this.reads.get(key);
    if (times) {
      while (times.length > 0 && times[0]! <= now - this.windowMs) times.shift();
      if (times.length >= this.limit) return times[0]! + this.windowMs - now;
    } else {
      if (this.reads.size >= this.maxKeys) this.sweep(now);
      times = [];
      this.reads.set(key, times);
    }
    times.push(now);
    return 0;
  }

  /** Forgets keys with no read in the window; then, if still full, the oldest-created ones. */
  private sweep(now: number): void {
    for (const [k, times] of this.reads) if ((times.at(-1) ?? 0) <= now - this.windowMs) this.reads.delete(k);
    for (const k of this.reads.keys()) {
      if (this.reads.size < this.maxKeys) break;
      this.reads.delete(k);
    }
  }
}

export const tournamentReads = new ReadLimiter();

/**
 * GET /api/runtime/tournaments: the tournaments this session's spins count toward (the title, the
 * operator opted in, the currency), running or starting soon, and those that ended in the last
 * day with their final standings; at most three, the soonest to end first. Limited per session
 * (TOURNAMENT_READS_PER_WINDOW).
 */
export async function sessionTournaments(deps: GameDeps, session: RuntimeSession): Promise<PageTournament[]> {
  const waitMs = tournamentReads.take(session.session_id);
  if (waitMs > 0)
    throw tooManyRequests(
      `Too many tournament reads for this session: at most ${tournamentReads.limit} in ${tournamentReads.windowMs / 1000} s; retry after Retry-After seconds`,
      { error: 'tournament_reads_limited', retry_after_ms: Math.ceil(waitMs) },
      { 'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))) },
    );
  if (!isSlotTitle(session.provider_id)) return [];
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
      // Outside the (live) top ten: the player's live score placed against the published rank
      // snapshot (leaderboard.ts). A snapshot older than the top ten may count fewer ahead than
      // the top ten shows: such a player is placed just below it.
      const standing =
        mine || frozen
          ? null
          : await playerStanding(
              deps.pool,
              t.tournament_id,
              session.currency,
              session.operator_id,
              session.external_player_id,
            );
      const me = mine
        ? { rank: mine.rank, score: mine.score }
        : standing
          ? { rank: Math.max(standing.rank, top.length + 1), score: standing.score }
          : null;
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
