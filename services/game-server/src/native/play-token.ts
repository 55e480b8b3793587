import { randomBytes } from 'node:crypto';
import type { Pool } from '@opi/db';
import { hashLaunchToken } from '@opi/play/sessions/tokens';

/** Play tokens carry a prefix so a grant and a play token are never confused in logs or code. */
export const PLAY_TOKEN_PREFIX = 'np_';

/** Why a grant does not open a game (the page answers 401 with this reason). */
export type GrantProblem = 'invalid' | 'expired' | 'session_expired';

export interface GrantSession {
  session_id: string;
  symbol: string;
  slug: string;
  title: string;
  lang: string | null;
  return_url: string | null;
  currency: string;
  /** The launch's display unit (issue 39), or null: the currency's first unit. */
  display_unit: string | null;
  expires_at: Date | null;
  grant_hash: string;
}

/**
 * Checks a launch URL's `grant` (prov_c): its SHA-256 must be the session's current launch token,
 * the session active and of a prov_c title, the grant within its 5 minutes (grant_expires_at) and
 * the play session within its 30 (expires_at). Nothing is changed: the page check and the
 * exchange both call it.
 */
export async function checkGrant(
  pool: Pool,
  grant: string | undefined,
): Promise<{ ok: true; session: GrantSession } | { ok: false; problem: GrantProblem }> {
  if (!grant || grant.length > 128 || grant.startsWith(PLAY_TOKEN_PREFIX))
    return { ok: false, problem: 'invalid' };
  const hash = hashLaunchToken(grant);
  const { rows } = await pool.query<
    GrantSession & { status: string; provider_id: string; grant_expires_at: Date | null }
  >(
    `SELECT s.session_id, s.symbol, g.slug, g.title, s.lang, s.return_url, trim(s.currency) AS currency,
            s.display_unit, s.expires_at, s.grant_expires_at, s.status, s.provider_id, s.token_hash AS grant_hash
     FROM sessions s JOIN games g ON g.symbol = s.symbol
     WHERE s.token_hash = $1`,
    [hash],
  );
  const s = rows[0];
  if (s?.status !== 'active' || s.provider_id !== 'prov_c') return { ok: false, problem: 'invalid' };
  const now = Date.now();
  if (!s.grant_expires_at || s.grant_expires_at.getTime() <= now) return { ok: false, problem: 'expired' };
  if (s.expires_at && s.expires_at.getTime() <= now) return { ok: false, problem: 'session_expired' };
  return { ok: true, session: s };
}

/**
 * The exchange: a fresh 256-bit play token for the grant's session, valid until the session's
 * expires_at. It replaces the session's previous play token (one playing page at a time), and it
 * stays bound to this grant: a relaunch (a new grant) ends it.
 */
export async function issuePlayToken(pool: Pool, session: GrantSession): Promise<string> {
  const token = PLAY_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  await pool.query(
    `INSERT INTO native_play_tokens (session_id, token_hash, grant_hash) VALUES ($1, $2, $3)
     ON CONFLICT (session_id) DO UPDATE SET token_hash = EXCLUDED.token_hash, grant_hash = EXCLUDED.grant_hash,
       issued_at = now()`,
    [session.session_id, hashLaunchToken(token), session.grant_hash],
  );
  return token;
}
