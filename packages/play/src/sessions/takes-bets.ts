import type { PoolClient } from '@opi/db';
import type { HttpError } from '@opi/service-kit/http/errors';
import { forbidden, unauthorized } from '@opi/service-kit/http/named-errors';
import { type BetsBlockedRow, betsBlockedError, presentBetsBlocked } from './bets-blocked.js';
import type { RuntimeSession } from './runtime-session.js';

/*
 * A suspended operator (status `inactive`) or a revoked session starts no new round, on any
 * family (slot spin and free round, native bet, crash bet), from the moment the change commits,
 * in every game-server process: the statement or transaction that records a round reads the session's
 * and the operator's status under row locks, so the check is atomic with the round's row.
 * - The round's statement takes FOR SHARE on the session row (a revocation's UPDATE waits for it,
 *   or it waits for the revocation and reads the revoked row) and FOR KEY SHARE on the operator
 *   row (the lock the rounds -> operators foreign key takes anyway; the operator PATCH takes FOR
 *   UPDATE on the row before a status change, so a deactivation waits for rounds being recorded,
 *   and a round being recorded waits for the deactivation and then reads the inactive row).
 * - So every round either commits before the deactivation or revocation commits, or is refused:
 *   the bound is 0 s in every process (no cache is consulted for the status).
 * Nothing else is refused: reads, a native round's actions, a crash cash-out, and the settlement
 * (debits already recorded, credits, cancels, rollbacks) go on as before.
 */

/** The player-facing text of a round refused because the operator is suspended. */
export const OPERATOR_SUSPENDED_MESSAGE =
  'Play is suspended by the casino: no new round can start. Rounds already played are settled.';
/** The player-facing text of a round refused because the session was revoked. */
export const SESSION_REVOKED_MESSAGE = 'The session was revoked: open the game again';

/** 403 `{detail, error: 'operator_suspended'}`: the session's operator is inactive. */
export function operatorSuspendedError(): HttpError {
  return forbidden(OPERATOR_SUSPENDED_MESSAGE, { error: 'operator_suspended' });
}

/**
 * 401 `{detail, error: 'session_revoked'}`: the session was revoked (its tokens are dropped, so
 * any later request is 401 at authentication; this is the answer of a bet that raced the revocation).
 */
export function sessionRevokedError(): HttpError {
  return unauthorized(SESSION_REVOKED_MESSAGE, { error: 'session_revoked' });
}

/**
 * Early refusal from what authentication read (the database, this very request): no engine draw,
 * no chain position, no lock for a session whose operator is already suspended.
 */
export function refuseSuspendedOperator(session: Pick<RuntimeSession, 'operator_active'>): void {
  if (session.operator_active === false) throw operatorSuspendedError();
}

/**
 * Inside the transaction that records a native or crash round, before its rows are written: the
 * session and its operator still take bets (see above), and the operator's wallet has not blocked
 * the session's bets (player protection, 409). One statement.
 */
export async function assertTakesBets(
  c: PoolClient,
  session: Pick<RuntimeSession, 'session_id' | 'operator_id'>,
): Promise<void> {
  const { rows } = await c.query<BetsBlockedRow & { session_status: string; operator_status: string }>(
    `SELECT s.status AS session_status, o.status AS operator_status,
            s.bets_blocked_code, s.bets_blocked_at, s.bets_blocked_round_id
       FROM sessions s JOIN operators o ON o.operator_id = s.operator_id
      WHERE s.session_id = $1 AND o.operator_id = $2
        FOR SHARE OF s FOR KEY SHARE OF o`,
    [session.session_id, session.operator_id],
  );
  const row = rows[0];
  if (row?.session_status !== 'active') throw sessionRevokedError();
  if (row.operator_status !== 'active') throw operatorSuspendedError();
  const blocked = presentBetsBlocked(row);
  if (blocked) throw betsBlockedError(blocked);
}
