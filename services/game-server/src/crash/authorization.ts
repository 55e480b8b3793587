import { randomUUID } from 'node:crypto';
import { type Pool, withTransaction } from '@opi/db';
import { hashLaunchToken, newLaunchToken } from '@opi/play/sessions/tokens';
import { unauthorized } from '@opi/service-kit/http/named-errors';

/** The authenticated session authorization of a crash page: one hour unless revoked (spec, Limits). */
export const CRASH_AUTHORIZATION_MS = 60 * 60_000;

export type GrantCheck =
  | { ok: true; session_id: string; symbol: string; slug: string; title: string; lang: string | null }
  | { ok: false; status: 400 | 401; reason: 'invalid' | 'expired' | 'malformed' };

/**
 * Whether a launch URL's `login` token opens the crash page of `slug`, without using it up (the
 * page's script exchanges it). Unknown, used, revoked or another title's token: invalid; past its
 * five minutes: expired.
 */
export async function checkLoginGrant(
  pool: Pool,
  token: string | undefined,
  slug: string,
): Promise<GrantCheck> {
  if (!token) return { ok: false, status: 401, reason: 'invalid' };
  if (token.length > 128 || !/^[A-Za-z0-9_-]+$/.test(token))
    return { ok: false, status: 400, reason: 'malformed' };
  const { rows } = await pool.query<{
    session_id: string;
    symbol: string;
    slug: string;
    title: string;
    lang: string | null;
    status: string;
    provider_id: string;
    live: boolean;
  }>(
    `SELECT s.session_id, s.symbol, g.slug, g.title, s.lang, s.status, s.provider_id,
            coalesce(s.grant_expires_at, s.expires_at) > now() AS live
     FROM sessions s JOIN games g ON g.symbol = s.symbol
     WHERE s.token_hash = $1`,
    [hashLaunchToken(token)],
  );
  const s = rows[0];
  if (s?.provider_id !== 'prov_d' || s.slug !== slug || s.status !== 'active')
    return { ok: false, status: 401, reason: 'invalid' };
  if (!s.live) return { ok: false, status: 401, reason: 'expired' };
  return { ok: true, session_id: s.session_id, symbol: s.symbol, slug: s.slug, title: s.title, lang: s.lang };
}

/**
 * Exchanges the login grant for the page's session authorization, once: the grant is used up
 * (sessions.token_hash cleared), an earlier authorization of the session is superseded (one live
 * page per session), and the session's deadline becomes the authorization's.
 */
export async function exchangeLoginGrant(
  pool: Pool,
  token: string,
): Promise<{ session_token: string; session_id: string; authorized_until: Date }> {
  if (!token || token.length > 128) throw unauthorized('The game link is not valid: open the game again');
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query<{
      session_id: string;
      status: string;
      provider_id: string;
      live: boolean;
    }>(
      `SELECT session_id, status, provider_id, coalesce(grant_expires_at, expires_at) > now() AS live
       FROM sessions WHERE token_hash = $1 FOR UPDATE`,
      [hashLaunchToken(token)],
    );
    const s = rows[0];
    if (s?.provider_id !== 'prov_d' || s.status !== 'active')
      throw unauthorized('The game link is not valid: open the game again');
    if (!s.live) throw unauthorized('The game link has expired: open the game again');
    const { token: sessionToken, hash } = newLaunchToken();
    const until = new Date(Date.now() + CRASH_AUTHORIZATION_MS);
    await c.query(
      `UPDATE crash_authorizations SET revoked_at = now(), revoked_reason = 'superseded'
       WHERE session_id = $1 AND revoked_at IS NULL`,
      [s.session_id],
    );
    await c.query(
      `INSERT INTO crash_authorizations (authorization_id, session_id, token_hash, authorized_until)
       VALUES ($1, $2, $3, $4)`,
      [`ca_${randomUUID()}`, s.session_id, hash, until],
    );
    await c.query(
      `UPDATE sessions SET token_hash = NULL, expires_at = $2, last_activity_at = now() WHERE session_id = $1`,
      [s.session_id, until],
    );
    return { session_token: sessionToken, session_id: s.session_id, authorized_until: until };
  });
}
