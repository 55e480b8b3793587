import { listenHttp, stopOnSignals } from '@opi/config';
import { createWalletApp } from './app.js';
import { loadWalletConfigOrExit } from './config.js';
import { createWalletDeps } from './deps.js';
import { migrateWallet } from './migrate.js';

const config = loadWalletConfigOrExit();
if (!config.databaseUrl) {
  process.stderr.write('DATABASE_URL is required\n');
  process.exit(2);
}
const deps = createWalletDeps(config);
const { logger } = deps;
await migrateWallet(config.databaseUrl, (msg) => logger.debug('migrate', { msg }));

const app = createWalletApp(deps);
const server = listenHttp(
  app.callback(),
  {
    port: config.port,
    host: config.host,
    tls: { certFile: config.platform.TLS_CERT_FILE, keyFile: config.platform.TLS_KEY_FILE },
    hstsMaxAgeSeconds: config.platform.HSTS_MAX_AGE_SECONDS,
  },
  (protocol) =>
    logger.info('wallet sandbox listening', {
      url: `${protocol}://${config.host}:${config.port}/wallet`,
      admin: config.adminToken ? 'enabled' : 'disabled (WALLET_ADMIN_TOKEN unset)',
      auto_create_players_minor: config.autoCreatePlayersWithMinor,
      faults: app.faults.get(),
    }),
);
server.keepAliveTimeout = 65_000;

// Nonces older than twice the skew window can no longer pass the timestamp check.
const purge = setInterval(() => {
  app.service
    .purgeNonces(config.maxSkewSeconds)
    .catch((err: unknown) => logger.warn('nonce purge failed', { error: String(err) }));
}, 60_000);
purge.unref();

// Idle keep-alive sockets, and any held by the timeout fault, must not delay the exit.
stopOnSignals(
  server,
  () => deps.close(),
  () => logger.info('wallet sandbox stopping'),
);
