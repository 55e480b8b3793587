import type { Context, Next } from 'koa';
import { findCrashSession } from '../crash/authorization.js';
import type { ApiDeps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import { hashLaunchToken, LIFETIMES } from '../launch/create-launch.js';
import { findPlayTokenSession } from '../native/play-token.js';

export interface RuntimeSession {
  session_id: string;
  operator_id: string;
  /** The operator's external_player_id (sent to the wallet unchanged). */
  external_player_id: string;
  player_id: string;
  symbol: string;
  provider_id: 'prov_a' | 'prov_b' | 'prov_c' | 'prov_d';
  currency: string;
  return_url: string | null;
  coin_minor: bigint | null;
  device: string | null;
  lang: string | null;
  expires_at: Date | null;
}

/** The session token the game page presents: `x-session-token`, or `Authorization: Bearer`. */
function presentedToken(ctx: Context): string | undefined {
  const header = ctx.get('x-session-token');
  if (header) return header;
  return /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
}

/**
 * Runtime routes accept only the session's own token (the launch URL's bearer secret, stored as
 * a hash). An expired or revoked session is 401. For the slot families, activity extends the
 * inactivity deadline. Expiry never cancels an unfinished payment: settlement does not pass here.
 */
export function authenticateRuntime(deps: ApiDeps) {
  return async (ctx: Context, next: Next) => {
    const token = presentedToken(ctx);
    if (!token || token.length > 128) throw new HttpError(401, 'Missing or invalid session token');
    const hash = hashLaunchToken(token);
    const { rows } = await deps.pool.query<
      RuntimeSession & { status: string; grant_expires_at: Date | null }
    >(
      `SELECT s.session_id, s.operator_id, p.external_player_id, s.player_id, s.symbol, s.provider_id,
              trim(s.currency) AS currency, s.return_url, s.coin_minor, s.device, s.lang, s.expires_at, s.status,
              s.grant_expires_at
       FROM sessions s JOIN players p ON p.player_id = s.player_id
       WHERE s.token_hash = $1`,
      [hash],
    );
    // prov_d: the launch URL's login grant is no runtime token; the crash page exchanges it for a
    // session authorization (crash/authorization.ts): one hour unless revoked.
    if (rows[0]?.provider_id === 'prov_d') throw new HttpError(401, 'Missing or invalid session token');
    // prov_c: the launch URL's grant counts only for its 5 minutes; the page exchanges it for a
    // play token (native/play-token.ts) that lasts the 30-minute play session.
    const session =
      rows[0] ??
      (await findPlayTokenSession(deps.pool, hash)) ??
      (await findCrashSession(deps.pool, hash).then((s) => s && { ...s, grant_expires_at: null }));
    if (session?.status !== 'active') throw new HttpError(401, 'Missing or invalid session token');
    if (
      session.provider_id === 'prov_c' &&
      session.grant_expires_at &&
      session.grant_expires_at.getTime() <= Date.now()
    ) {
      throw new HttpError(401, 'The launch grant has expired: open the game again');
    }
    if (session.expires_at && session.expires_at.getTime() <= Date.now()) {
      throw new HttpError(401, 'The session has expired: launch the game again');
    }
    if (session.provider_id === 'prov_a' || session.provider_id === 'prov_b') {
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
