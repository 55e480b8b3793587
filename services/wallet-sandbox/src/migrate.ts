import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';

/** The wallet's own migrations folder (the same from src/ and dist/). */
export const WALLET_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

/** The schema every wallet table lives in, and the table recording its applied migrations. */
export const WALLET_SCHEMA = 'wallet';
export const WALLET_MIGRATIONS_TABLE = 'wallet_migrations';

/**
 * Applies the wallet's pending migrations to schema `wallet` (created when missing) with
 * node-pg-migrate; advisory-locked, so several processes may call it at once. Independent of the
 * platform's own migrations (its own history table, `wallet.wallet_migrations`). Returns the names
 * applied.
 */
export async function migrateWallet(
  databaseUrl: string,
  log: (msg: string) => void = () => {},
): Promise<string[]> {
  const applied = await runner({
    databaseUrl,
    dir: WALLET_MIGRATIONS_DIR,
    direction: 'up',
    schema: WALLET_SCHEMA,
    createSchema: true,
    migrationsTable: WALLET_MIGRATIONS_TABLE,
    checkOrder: true,
    singleTransaction: true,
    log,
    logger: { debug: () => {}, info: log, warn: log, error: log },
  });
  return applied.map((m) => m.name);
}
