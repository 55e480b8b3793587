import { randomUUID } from 'node:crypto';
import type { Pool } from '@opi/db';
import { hashLaunchToken, newLaunchToken } from '../sessions/tokens.js';
import { DEMO_OPENING_MINOR, type DemoSession } from './runtime.js';

/** A demo page's play-money session lasts two hours; it is deleted once expired. */
export const DEMO_SESSION_MS = 2 * 60 * 60_000;

/**
 * A demo session for a crash title: no operator, no player, no wallet; 1,000.00 of play money.
 * Its token is the page's bearer secret for the crash runtime routes (only the hash is stored).
 */
export async function createDemoSession(
  pool: Pool,
  symbol: string,
): Promise<{ session_token: string; demo_id: string; expires_at: Date }> {
  const { token, hash } = newLaunchToken();
  const demoId = `demo_${randomUUID()}`;
  const expires = new Date(Date.now() + DEMO_SESSION_MS);
  await pool.query(
    `INSERT INTO crash_demo_sessions (demo_id, token_hash, symbol, balance_minor, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [demoId, hash, symbol, DEMO_OPENING_MINOR, expires],
  );
  return { session_token: token, demo_id: demoId, expires_at: expires };
}

export async function findDemoSession(pool: Pool, token: string): Promise<DemoSession | undefined> {
  const { rows } = await pool.query<DemoSession>(
    `SELECT demo_id, symbol, expires_at FROM crash_demo_sessions WHERE token_hash = $1 AND expires_at > now()`,
    [hashLaunchToken(token)],
  );
  return rows[0];
}
