import { createLogger, loadConfigOrExit } from '@opi/config';
import { bootstrapAdminKeyState, REVOKED_BOOTSTRAP_KEY_MESSAGE } from '@opi/db';
import { serveProcess } from '@opi/play/ops/serve';
import { apiMetrics } from '@opi/service-kit/ops/metrics';
import { settlementGauges } from '@opi/service-kit/ops/settlement-metrics';
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
// The settlement state's gauges on the API's metrics too: they stay scraped when every worker is
// down, which is when the unsettled-round alerts matter (deploy/prometheus/rules).
settlementGauges(apiMetrics().registry, deps.pool);
serveProcess({
  config,
  deps,
  handler: app.callback(),
  port: config.PORT,
  // Under API_PROCESSES > 1 the cluster primary serves the sum instead (cluster.ts).
  metricsPort: config.API_METRICS_PORT,
  listening: {
    message: 'api listening',
    fields: { public_base_url: deps.publicBaseUrl, game_base_url: deps.gameBaseUrl },
  },
});

// Nonces older than twice the skew window can no longer pass the timestamp check.
const purge = setInterval(() => {
  purgeNonces(deps.pool, config.SIGNATURE_MAX_SKEW_SECONDS).catch((err: unknown) =>
    logger.warn('nonce purge failed', { error: String(err) }),
  );
}, 60_000);
purge.unref();
