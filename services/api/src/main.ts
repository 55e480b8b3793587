import cluster from 'node:cluster';
import { createLogger, listenHttp, loadConfigOrExit, startMetricsServer, stopOnSignals } from '@opi/config';
import { bootstrapAdminKeyState, REVOKED_BOOTSTRAP_KEY_MESSAGE } from '@opi/db';
import { sharedReadiness } from '@opi/play/ops/ready';
import { readyRoute } from '@opi/play/ops/routes';
import { apiMetrics } from '@opi/service-kit/ops/metrics';
import { installTemporalRuntime } from '@opi/workflows/worker';
import { createApp } from './app.js';
import { purgeNonces } from './auth/nonces.js';
import { createDeps } from './create-deps.js';

const config = loadConfigOrExit();
// The SDK's own lines (its client's) go through the API's logger at LOG_LEVEL. The API hosts no
// settlement worker: the game server starts every round.
installTemporalRuntime({
  level: config.LOG_LEVEL,
  log: createLogger('api', config.LOG_LEVEL),
  shutdownSignals: [],
});
const deps = await createDeps(config);
const { logger } = deps;
const app = createApp(deps);
// A revoked bootstrap key is never revived by a deploy (ensureBootstrapAdminKey); say so loudly.
if (config.PROVIDER_ADMIN_KEY) {
  bootstrapAdminKeyState(deps.pool, deps.box, config.PROVIDER_ADMIN_KEY).then(
    (state) => {
      if (state === 'revoked') logger.error(REVOKED_BOOTSTRAP_KEY_MESSAGE);
    },
    (err: unknown) => logger.warn('bootstrap key check failed', { error: String(err) }),
  );
}
const server = listenHttp(
  app.callback(),
  {
    port: config.PORT,
    host: config.HOST,
    tls: { certFile: config.TLS_CERT_FILE, keyFile: config.TLS_KEY_FILE },
  },
  (protocol) =>
    logger.info('api listening', {
      url: `${protocol}://${config.HOST}:${config.PORT}`,
      public_base_url: deps.publicBaseUrl,
      game_base_url: deps.gameBaseUrl,
      pid: process.pid,
    }),
);
server.keepAliveTimeout = 65_000;

// Prometheus on API_METRICS_PORT; under API_PROCESSES > 1 the cluster primary serves the sum instead.
if (!cluster.isWorker) {
  const { registry } = apiMetrics();
  startMetricsServer({
    host: config.HOST,
    port: config.API_METRICS_PORT,
    render: () => registry.metrics(),
    contentType: registry.contentType,
    logger,
    // Readiness with its reasons (the public /ready says only which check failed).
    routes: { '/ready': readyRoute(sharedReadiness(deps)) },
  });
}

// Nonces older than twice the skew window can no longer pass the timestamp check.
const purge = setInterval(() => {
  purgeNonces(deps.pool, config.SIGNATURE_MAX_SKEW_SECONDS).catch((err: unknown) =>
    logger.warn('nonce purge failed', { error: String(err) }),
  );
}, 60_000);
purge.unref();

stopOnSignals(server, () => deps.close());
