import { BETS_BLOCKED_STATUS, type BetsBlocked, walletRefusalMessage } from '@opi/contract';
import type { Pool, PoolClient } from '@opi/db';
import { HttpError } from '@opi/service-kit/http/errors';

/*
 * Player protection from the operator's wallet, on the game side. The settlement activity blocks a
 * session's bets when its debit is refused with a blocking code (self_excluded,
 * session_time_limit, player_blocked, or a code we do not know: @opi/contract blocksBets), in the
 * statement that records the refusal; the launch that resumes the session clears it. Every wager
 * route (slot spin, native bet, crash bet) checks it inside the transaction that records the new
 * round, after the check for an unfinished round: the refused round is no longer unfinished only
 * once its refusal (and so the block) is committed, so no bet slips between the two. The slot
 * spin's statement reads it (game server: slots/spin-statement.ts); native and crash bets read it with the session's
 * and the operator's status (sessions/takes-bets.ts, assertTakesBets).
 */

export interface BetsBlockedRow {
  bets_blocked_code: string | null;
  bets_blocked_at: Date | null;
  bets_blocked_round_id: string | null;
}

/** The block as the page and the audit API show it, from the session row's columns. */
export function presentBetsBlocked(row: BetsBlockedRow | undefined): BetsBlocked | null {
  if (!row?.bets_blocked_code || !row.bets_blocked_at) return null;
  return {
    code: row.bets_blocked_code,
    message: walletRefusalMessage(row.bets_blocked_code),
    since: row.bets_blocked_at.toISOString(),
    round_id: row.bets_blocked_round_id,
  };
}

/** The session's bets block, or null when it takes bets. */
export async function readBetsBlocked(db: Pool | PoolClient, sessionId: string): Promise<BetsBlocked | null> {
  const { rows } = await db.query<BetsBlockedRow>(
    `SELECT bets_blocked_code, bets_blocked_at, bets_blocked_round_id FROM sessions WHERE session_id = $1`,
    [sessionId],
  );
  return presentBetsBlocked(rows[0]);
}

/** The wager refusal of a blocked session: 409 `{detail, error: <code>, bets_blocked}`. */
export function betsBlockedError(blocked: BetsBlocked): HttpError {
  return new HttpError(BETS_BLOCKED_STATUS, blocked.message, { error: blocked.code, bets_blocked: blocked });
}

/**
 * What a rejected round's answer adds for the page: the player-facing text of the wallet's code,
 * and the session's block (set by this very refusal when the code blocks bets).
 */
export async function refusalFacts(
  db: Pool | PoolClient,
  sessionId: string,
  code: string,
): Promise<{ error_message: string; bets_blocked: BetsBlocked | null }> {
  return { error_message: walletRefusalMessage(code), bets_blocked: await readBetsBlocked(db, sessionId) };
}
