import { seedCatalog } from '@opi/api';
import { createSecretBox, ensureBootstrapAdminKey, migrate, type Pool } from '@opi/db';

/**
 * This checkout's migrations, game catalog and bootstrap admin key on the platform database at
 * `databaseUrl` (`pool` on it): a fresh bench stack, or a rolling upgrade's first step.
 */
export async function preparePlatformSchema(
  databaseUrl: string,
  pool: Pool,
  keys: { serviceSecret: string; adminKey: string },
): Promise<void> {
  await migrate(databaseUrl);
  await seedCatalog(pool);
  await ensureBootstrapAdminKey(pool, createSecretBox(keys.serviceSecret), keys.adminKey);
}
