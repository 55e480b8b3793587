import { isSlotTitle } from '@opi/games';
import { unauthorized } from '@opi/service-kit/http/named-errors';
import type { Context, Next } from 'koa';
import type { PlayDeps } from '../deps.js';
import { findRuntimeSession } from './runtime-session.js';
import { hashLaunchToken, LIFETIMES } from './tokens.js';

/** The session token the game page presents: `x-session-token`, or `Authorization: Bearer`. */
function presentedToken(ctx: Context): string | undefined {
  const header = ctx.get('x-session-token');
  if (header) return header;
  return /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
}

/**
 * The slot families' inactivity deadline moves with activity, written at most once a minute: a
 * request while the stored deadline is still within a minute of a fresh one changes nothing (one
 * write fewer per spin and balance read; the deadline is at most a minute short of exact).
 */
export const EXTENSION_GRANULARITY_MS = 60_000;

function needsExtension(expiresAt: Date | null): boolean {
  if (!expiresAt) return true;
  return expiresAt.getTime() < Date.now() + LIFETIMES.slotInactivityMs - EXTENSION_GRANULARITY_MS;
}

/**
 * Runtime routes accept only the session's own token (the launch URL's bearer secret, stored as
 * a hash). An expired or revoked session is 401. For the slot families, activity extends the
 * inactivity deadline (not while the operator is suspended). Expiry never cancels an unfinished payment: settlement does not pass here.
 */
export function authenticateRuntime(deps: PlayDeps) {
  return async (ctx: Context, next: Next) => {
    const token = presentedToken(ctx);
    if (!token || token.length > 128) throw unauthorized('Missing or invalid session token');
    const hash = hashLaunchToken(token);
    const session = await findRuntimeSession(deps.pool, hash);
    if (session?.status !== 'active') throw unauthorized('Missing or invalid session token');
    if (
      session.provider_id === 'prov_c' &&
      session.grant_expires_at &&
      session.grant_expires_at.getTime() <= Date.now()
    ) {
      throw unauthorized('The launch grant has expired: open the game again');
    }
    if (session.expires_at && session.expires_at.getTime() <= Date.now()) {
      throw unauthorized('The session has expired: launch the game again');
    }
    // A suspended operator's sessions do not slide: their deadline stays where the suspension
    // found it (they start no round meanwhile: sessions/takes-bets.ts).
    if (
      isSlotTitle(session.provider_id) &&
      session.operator_active !== false &&
      needsExtension(session.expires_at)
    ) {
      const extended = new Date(Date.now() + LIFETIMES.slotInactivityMs);
      await deps.pool.query(
        `UPDATE sessions SET expires_at = $2, last_activity_at = now() WHERE session_id = $1`,
        [session.session_id, extended],
      );
      session.expires_at = extended;
    }
    ctx.state.session = session;
    await next();
  };
}
