import type { Pool } from '@opi/db';

/*
 * Login attempts are counted in PostgreSQL, so every API process shares one count, each bucket in
 * a fixed 15-minute window (issue 23: nobody can lock someone else's account):
 *
 *   ip:<address>            every attempt from an address (failures, attempts in flight and
 *                           refused ones; a good login takes itself back off): past 30, the
 *                           address is refused until its window ends.
 *   pair:<address>/<name>   password checks for one account from one address: past 5, that
 *                           address is refused for that account until the window ends. Other
 *                           addresses are not affected.
 *   user:<name>             password checks for the account from every address (a good login
 *                           takes itself back off). Never locks: from ACCOUNT_SLOWDOWN_AFTER
 *                           failures on, each failure makes its own address wait before its next
 *                           attempt on the account: 1 s, 2 s, 4 s ... at most ACCOUNT_DELAY_CAP_S.
 *   wait:<address>/<name>   that wait: window_start is when the next attempt may come.
 *
 * An address with no failure on the account never waits, so its owner gets in promptly however
 * hard someone else hammers the account. One statement counts an attempt on all three buckets and
 * reads the wait before the password is checked (concurrent guesses cannot slip past a limit), and
 * before any scrypt work; an attempt refused here counts on its address's bucket only.
 */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_LIMITS = { ip: 30, pair: 5 } as const;
/** Account failures (all addresses, one window) after which failing addresses wait. */
export const ACCOUNT_SLOWDOWN_AFTER = 10;
/** The longest wait, in seconds. */
export const ACCOUNT_DELAY_CAP_S = 30;

export interface LimitDecision {
  allowed: boolean;
  /** Seconds until the attempt may be made again (0 when allowed). */
  retryAfterSeconds: number;
  /** Which rule refused it: the address's limit, the (address, account) limit, or the slowdown. */
  reason?: 'ip' | 'pair' | 'slowdown';
  /** The account's password checks in this window, this one included. */
  accountAttempts: number;
}

const keys = (username: string, ip: string) => ({
  ip: `ip:${ip}`,
  pair: `pair:${ip}/${username}`,
  user: `user:${username}`,
  wait: `wait:${ip}/${username}`,
});

/** The wait after an account's `failures`-th failure in the window (0 below the slowdown). */
export function slowdownSeconds(failures: number): number {
  if (failures < ACCOUNT_SLOWDOWN_AFTER) return 0;
  return Math.min(2 ** (failures - ACCOUNT_SLOWDOWN_AFTER), ACCOUNT_DELAY_CAP_S);
}

export async function countLoginAttempt(pool: Pool, username: string, ip: string): Promise<LimitDecision> {
  const k = keys(username, ip);
  const { rows } = await pool.query<{ bucket: string; attempts: number; remaining: number }>(
    `WITH counted AS (
       INSERT INTO staff_login_limits AS l (bucket, window_start, attempts)
       SELECT b, now(), 1 FROM unnest($1::text[]) b
       ON CONFLICT (bucket) DO UPDATE SET
         window_start = CASE WHEN l.window_start <= now() - make_interval(secs => $2) THEN now() ELSE l.window_start END,
         attempts = CASE WHEN l.window_start <= now() - make_interval(secs => $2) THEN 1 ELSE l.attempts + 1 END
       RETURNING bucket, attempts,
         ceil(extract(epoch FROM window_start + make_interval(secs => $2) - now()))::int AS remaining)
     SELECT bucket, attempts, remaining FROM counted
     UNION ALL
     SELECT bucket, 0, ceil(extract(epoch FROM window_start - now()))::int
     FROM staff_login_limits WHERE bucket = $3 AND window_start > now()`,
    [[k.ip, k.pair, k.user], LOGIN_WINDOW_SECONDS, k.wait],
  );
  const row = (bucket: string) => rows.find((r) => r.bucket === bucket);
  const accountAttempts = row(k.user)?.attempts ?? 1;
  let decision: LimitDecision = { allowed: true, retryAfterSeconds: 0, accountAttempts };
  const ipRow = row(k.ip);
  const pairRow = row(k.pair);
  const waitRow = row(k.wait);
  if (ipRow && ipRow.attempts > LOGIN_LIMITS.ip) {
    decision = {
      allowed: false,
      retryAfterSeconds: Math.max(1, ipRow.remaining),
      reason: 'ip',
      accountAttempts,
    };
  } else if (pairRow && pairRow.attempts > LOGIN_LIMITS.pair) {
    decision = {
      allowed: false,
      retryAfterSeconds: Math.max(1, pairRow.remaining),
      reason: 'pair',
      accountAttempts,
    };
  } else if (waitRow) {
    decision = {
      allowed: false,
      retryAfterSeconds: Math.max(1, waitRow.remaining),
      reason: 'slowdown',
      accountAttempts,
    };
  }
  // A refused attempt checks no password: it counts against its address only.
  if (!decision.allowed) await notChecked(pool, username, ip);
  return decision;
}

/** Takes an attempt whose password was not checked back off the account's counts. */
export async function notChecked(pool: Pool, username: string, ip: string): Promise<void> {
  const k = keys(username, ip);
  await pool.query(
    `UPDATE staff_login_limits SET attempts = greatest(attempts - 1, 0) WHERE bucket = ANY($1::text[])`,
    [[k.pair, k.user]],
  );
}

/**
 * A wrong password (or an unknown or disabled account): from the slowdown on, this address waits
 * before its next attempt on the account. `accountAttempts` is the count the attempt was given.
 */
export async function loginFailed(
  pool: Pool,
  username: string,
  ip: string,
  accountAttempts: number,
): Promise<void> {
  const wait = slowdownSeconds(accountAttempts);
  if (wait === 0) return;
  await pool.query(
    `INSERT INTO staff_login_limits (bucket, window_start, attempts)
     VALUES ($1, now() + make_interval(secs => $2), 0)
     ON CONFLICT (bucket) DO UPDATE SET window_start = EXCLUDED.window_start`,
    [keys(username, ip).wait, wait],
  );
}

/**
 * A good login takes itself back off its address's and its account's counts (they count failures
 * and attempts in flight only) and clears this address's failures on the account.
 */
export async function loginSucceeded(pool: Pool, username: string, ip: string): Promise<void> {
  const k = keys(username, ip);
  await pool.query(
    `WITH cleared AS (DELETE FROM staff_login_limits WHERE bucket = ANY($1::text[]))
     UPDATE staff_login_limits SET attempts = greatest(attempts - 1, 0) WHERE bucket = ANY($2::text[])`,
    [
      [k.pair, k.wait],
      [k.ip, k.user],
    ],
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
