import type { Pool } from '@opi/db';
import { isSlotTitle } from '@opi/games';
import { hashLaunchToken } from '@opi/play/sessions/tokens';

/** The slot session a page request names, or why the page cannot open. */
export type PageGrant =
  | { ok: true; symbol: string; title: string; lang: string | null }
  | { ok: false; status: 400 | 401; reason: 'invalid' | 'expired' | 'malformed' };

/**
 * Checks the launch URL's `mgckey` before any HTML is served, the way the runtime routes do
 * (`sessions/authenticate.ts`): only its SHA-256 is looked up, the session must be active and
 * unexpired, and the page serves the slot families only. The `symbol` the URL names must be the
 * session's (the URL is opened unchanged, so a difference means it was edited). This lookup does
 * not extend the session: the page's first runtime call does.
 */
export async function findPageSession(
  pool: Pool,
  token: string | undefined,
  symbol: string | undefined,
): Promise<PageGrant> {
  if (!token || token.length > 128) return { ok: false, status: 401, reason: 'invalid' };
  const { rows } = await pool.query<{
    symbol: string;
    title: string;
    lang: string | null;
    provider_id: string;
    status: string;
    expires_at: Date | null;
  }>(
    `SELECT s.symbol, g.title, s.lang, s.provider_id, s.status, s.expires_at
     FROM sessions s JOIN games g ON g.symbol = s.symbol
     WHERE s.token_hash = $1`,
    [hashLaunchToken(token)],
  );
  const s = rows[0];
  if (s?.status !== 'active' || !isSlotTitle(s.provider_id)) {
    return { ok: false, status: 401, reason: 'invalid' };
  }
  if (s.expires_at && s.expires_at.getTime() <= Date.now()) {
    return { ok: false, status: 401, reason: 'expired' };
  }
  if (symbol !== undefined && symbol !== s.symbol) return { ok: false, status: 400, reason: 'malformed' };
  return { ok: true, symbol: s.symbol, title: s.title, lang: s.lang };
}
