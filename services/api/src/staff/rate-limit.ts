import type { Pool } from '@opi/db';

/**
 * Login attempts are counted in PostgreSQL, so every API process shares one count: per account
 * (`user:<name>`, reset by a successful login) and per client address (`ip:<address>`, failures), each in
 * a fixed 15-minute window. One statement counts both attempts atomically before the password
 * is checked, so concurrent guesses cannot slip past the limit.
 */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_LIMITS = { user: 5, ip: 30 } as const;

export interface LimitDecision {
  allowed: boolean;
  /** Seconds until the window that refused this attempt ends (0 when allowed). */
  retryAfterSeconds: number;
}

export async function countLoginAttempt(pool: Pool, username: string, ip: string): Promise<LimitDecision> {
  const buckets = [`user:${username}`, `ip:${ip}`];
  const { rows } = await pool.query<{ bucket: string; attempts: number; remaining: number }>(
    `INSERT INTO staff_login_limits AS l (bucket, window_start, attempts)
     SELECT b, now(), 1 FROM unnest($1::text[]) b
     ON CONFLICT (bucket) DO UPDATE SET
       window_start = CASE WHEN l.window_start <= now() - make_interval(secs => $2) THEN now() ELSE l.window_start END,
       attempts = CASE WHEN l.window_start <= now() - make_interval(secs => $2) THEN 1 ELSE l.attempts + 1 END
     RETURNING bucket, attempts,
       ceil(extract(epoch FROM window_start + make_interval(secs => $2) - now()))::int AS remaining`,
    [buckets, LOGIN_WINDOW_SECONDS],
  );
  let retryAfterSeconds = 0;
  for (const r of rows) {
    const limit = r.bucket.startsWith('user:') ? LOGIN_LIMITS.user : LOGIN_LIMITS.ip;
    if (r.attempts > limit) retryAfterSeconds = Math.max(retryAfterSeconds, Math.max(1, r.remaining));
  }
  return { allowed: retryAfterSeconds === 0, retryAfterSeconds };
}

/**
 * A successful login clears its account's count and takes itself back off the address's count,
 * so the address counts failures (and attempts in flight) only.
 */
export async function loginSucceeded(pool: Pool, username: string, ip: string): Promise<void> {
  await pool.query(
    `WITH cleared AS (DELETE FROM staff_login_limits WHERE bucket = $1)
     UPDATE staff_login_limits SET attempts = greatest(attempts - 1, 0) WHERE bucket = $2`,
    [`user:${username}`, `ip:${ip}`],
  );
}

let lastPurge = 0;
/** Drops windows that ended long ago; at most once a minute per process. */
export async function purgeOldAttempts(pool: Pool): Promise<void> {
  if (Date.now() - lastPurge < 60_000) return;
  lastPurge = Date.now();
  await pool.query(`DELETE FROM staff_login_limits WHERE window_start < now() - make_interval(secs => $1)`, [
    LOGIN_WINDOW_SECONDS * 4,
  ]);
  await pool.query(`DELETE FROM staff_sessions WHERE expires_at < now() - interval '7 days'`);
}
