import { randomUUID } from 'node:crypto';
import { type Pool, withTransaction } from '@opi/db';
import { hashLaunchToken, newLaunchToken } from '@opi/play/sessions/tokens';
import { tooManyRequests, unavailable } from '@opi/service-kit/http/named-errors';
import { DEMO_OPENING_MINOR, type DemoSession } from './runtime.js';

/** A demo page's play-money session lasts two hours; it is deleted once expired. */
export const DEMO_SESSION_MS = 2 * 60 * 60_000;

/**
 * POST /api/runtime/crash/demo needs no credential, and each call stores a row for two hours, so:
 * - per client address, at most DEMO_PER_ADDRESS_LIMIT sessions created in DEMO_PER_ADDRESS_WINDOW_S
 *   (a player reloading a demo page every 20 s for ten minutes stays under it; an office or a
 *   mobile carrier's shared address has room for a few dozen players an hour); else 429;
 * - at most DEMO_LIVE_CAP live (unexpired) demo sessions in all (a few MB of rows, whatever the
 *   addresses: a spread-out flood cannot grow the table past it); else 503.
 * Both are counted in PostgreSQL (every game-server process shares them) under one advisory lock, so
 * concurrent calls cannot slip past either. Retry-After says when a slot frees.
 */
export const DEMO_PER_ADDRESS_LIMIT = 30;
export const DEMO_PER_ADDRESS_WINDOW_S = 10 * 60;
export const DEMO_LIVE_CAP = 10_000;
/** The advisory lock key of demo creation (any constant; 'demo' in ASCII). */
const DEMO_LOCK = 0x64656d6f;

/**
 * A demo session for a crash title: no operator, no player, no wallet; 1,000.00 of play money.
 * Its token is the page's bearer secret for the crash runtime routes (only the hash is stored).
 * Refused (429 per address, 503 when the live cap is reached) with Retry-After.
 */
export async function createDemoSession(
  pool: Pool,
  symbol: string,
  clientAddress: string,
): Promise<{ session_token: string; demo_id: string; expires_at: Date }> {
  const { token, hash } = newLaunchToken();
  const demoId = `demo_${randomUUID()}`;
  const expires = new Date(Date.now() + DEMO_SESSION_MS);
  return withTransaction(pool, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock($1)`, [DEMO_LOCK]);
    const { rows } = await c.query<{
      recent: number;
      oldest_recent_s: number | null;
      live: number;
      next_free_s: number | null;
    }>(
      `SELECT
         (SELECT count(*)::int FROM crash_demo_sessions
           WHERE client_address = $1 AND created_at > now() - make_interval(secs => $2)) AS recent,
         (SELECT ceil(extract(epoch FROM min(created_at) + make_interval(secs => $2) - now()))::int
            FROM crash_demo_sessions
           WHERE client_address = $1 AND created_at > now() - make_interval(secs => $2)) AS oldest_recent_s,
         (SELECT count(*)::int FROM (SELECT 1 FROM crash_demo_sessions WHERE expires_at > now() LIMIT $3) l) AS live,
         (SELECT ceil(extract(epoch FROM min(expires_at) - now()))::int
            FROM crash_demo_sessions WHERE expires_at > now()) AS next_free_s`,
      [clientAddress, DEMO_PER_ADDRESS_WINDOW_S, DEMO_LIVE_CAP],
    );
    const r = rows[0]!;
    if (r.recent >= DEMO_PER_ADDRESS_LIMIT) {
      throw tooManyRequests(
        `Too many demo sessions from this address: at most ${DEMO_PER_ADDRESS_LIMIT} in ${DEMO_PER_ADDRESS_WINDOW_S / 60} minutes; retry after Retry-After seconds`,
        {},
        { 'Retry-After': String(Math.max(1, r.oldest_recent_s ?? 1)) },
      );
    }
    if (r.live >= DEMO_LIVE_CAP) {
      throw unavailable(
        'Demo play is full right now: retry after Retry-After seconds',
        {},
        { 'Retry-After': String(Math.min(DEMO_SESSION_MS / 1000, Math.max(1, r.next_free_s ?? 1))) },
      );
    }
    await c.query(
      `INSERT INTO crash_demo_sessions (demo_id, token_hash, symbol, balance_minor, expires_at, client_address)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [demoId, hash, symbol, DEMO_OPENING_MINOR, expires, clientAddress],
    );
    return { session_token: token, demo_id: demoId, expires_at: expires };
  });
}

export async function findDemoSession(pool: Pool, token: string): Promise<DemoSession | undefined> {
  const { rows } = await pool.query<DemoSession>(
    `SELECT demo_id, symbol, expires_at FROM crash_demo_sessions WHERE token_hash = $1 AND expires_at > now()`,
    [hashLaunchToken(token)],
  );
  return rows[0];
}
