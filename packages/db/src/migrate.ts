import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';

/** The migrations folder of this package (the same from src/ and dist/). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

export interface MigrateOptions {
  /**
   * How long one statement may wait for a lock before the attempt gives way (default 500 ms: below
   * the server's usual deadlock_timeout of 1 s, so a player's transaction waiting on the migration
   * sees it give way before it would check for a deadlock itself).
   */
  lockTimeoutMs?: number;
  /** How long to keep retrying attempts that gave way to live traffic (default 10 minutes). */
  retryForMs?: number;
  /** Another folder of migrations (tests). */
  dir?: string;
}

/** deadlock_detected, lock_not_available: the attempt gave way to live traffic; nothing was applied. */
const GAVE_WAY = new Set(['40P01', '55P03']);

/**
 * Applies every pending migration with node-pg-migrate, in one transaction, under its advisory
 * lock (several processes may call it at once: the others wait, then find nothing to apply).
 *
 * A release's migrations run while the previous release serves (docs/operations.md, "Upgrade and
 * rollback"), so they must never stall or break live traffic: each statement waits at most
 * `lockTimeoutMs` for a lock (an ALTER queued behind a spin's row locks would otherwise queue every
 * later spin behind it), the session detects deadlocks first (a short `deadlock_timeout`, where
 * the server lets it be set) so that the migration, not a player's transaction, is the one
 * aborted, and an attempt that gave way is rolled back whole and retried after a pause. Returns
 * the names applied.
 */
export async function migrate(
  databaseUrl: string,
  log: (msg: string) => void = () => {},
  options: MigrateOptions = {},
): Promise<string[]> {
  const lockTimeoutMs = options.lockTimeoutMs ?? 500;
  const deadline = Date.now() + (options.retryForMs ?? 600_000);
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(`SET lock_timeout = ${Math.max(1, Math.floor(lockTimeoutMs))}`);
      // Superuser-only on most servers: without it the server's own deadlock_timeout applies.
      await client.query(`SET deadlock_timeout = 100`).catch(() => {});
      const applied = await runner({
        dbClient: client,
        dir: options.dir ?? MIGRATIONS_DIR,
        direction: 'up',
        migrationsTable: 'pgmigrations',
        checkOrder: true,
        singleTransaction: true,
        advisoryLockMode: 'wait',
        log,
        logger: { debug: () => {}, info: log, warn: log, error: log },
      });
      return applied.map((m) => m.name);
    } catch (err) {
      const code = codeOf(err);
      if (!code || !GAVE_WAY.has(code) || Date.now() > deadline) throw err;
      log(`migrations gave way to live traffic (${code}, attempt ${attempt}); retrying`);
      await new Promise((r) => setTimeout(r, Math.min(5000, 250 * attempt) + Math.random() * 250));
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/** The SQLSTATE of an error or of its cause (node-pg-migrate wraps some). */
function codeOf(err: unknown): string | undefined {
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 5;
    e = e.cause as typeof e, i++
  ) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}
