import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';

/** The migrations folder of this package (the same from src/ and dist/). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

/**
 * Applies every pending migration with node-pg-migrate (advisory-locked, so several processes
 * may call it at once). Returns the names applied.
 */
export async function migrate(databaseUrl: string, log: (msg: string) => void = () => {}): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    singleTransaction: true,
    log,
    logger: { debug: () => {}, info: log, warn: log, error: log },
  });
  return applied.map((m) => m.name);
}
