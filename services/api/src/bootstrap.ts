/**
 * One-shot deployment step (docker compose runs it before the API and the workers): applies the
 * platform's migrations, seeds the game catalog and installs PROVIDER_ADMIN_KEY as the bootstrap
 * provider-admin key. Idempotent: run it on every deploy. (The sandbox wallet migrates its own
 * schema when it starts.) Exits 0 when done.
 *
 *   node services/api/dist/bootstrap.js        (in the image: the `bootstrap` target)
 */
import { createLogger, loadConfigOrExit } from '@opi/config';
import {
  createPool,
  createSecretBox,
  ensureBootstrapAdminKey,
  migrate,
  REVOKED_BOOTSTRAP_KEY_MESSAGE,
} from '@opi/db';
import { seedCatalog } from './catalog/seed.js';

const config = loadConfigOrExit();
const logger = createLogger('bootstrap', config.LOG_LEVEL);
if (!config.DATABASE_URL || !config.SERVICE_SECRET) {
  process.stderr.write('bootstrap needs DATABASE_URL and SERVICE_SECRET\n');
  process.exit(2);
}
const applied = await migrate(config.DATABASE_URL, (msg) => logger.debug('migrate', { msg }));
logger.info('migrations', { applied });
const pool = createPool(config.DATABASE_URL, { max: 2, applicationName: 'opi-bootstrap' });
try {
  await seedCatalog(pool);
  if (config.PROVIDER_ADMIN_KEY) {
    const state = await ensureBootstrapAdminKey(
      pool,
      createSecretBox(config.SERVICE_SECRET),
      config.PROVIDER_ADMIN_KEY,
    );
    if (state === 'revoked') logger.error(REVOKED_BOOTSTRAP_KEY_MESSAGE);
    else logger.info('bootstrap provider-admin key installed');
  } else logger.warn('no PROVIDER_ADMIN_KEY: no bootstrap provider-admin key');
} finally {
  await pool.end();
}
logger.info('bootstrap done');
