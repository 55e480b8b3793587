import cluster from 'node:cluster';
import { createLogger, listenHttp, loadConfigOrExit, startMetricsServer, stopOnSignals } from '@opi/config';
import { sharedReadiness } from '@opi/play/ops/ready';
import { readyRoute } from '@opi/play/ops/routes';
import { apiMetrics } from '@opi/service-kit/ops/metrics';
import { installTemporalRuntime } from '@opi/workflows/worker';
import { createGameApp } from './app.js';
import { createGameDeps } from './create-deps.js';

const config = loadConfigOrExit();
// The hosted settlement worker drains when deps.close() runs, after the server has stopped taking
// requests (stopOnSignals below), not at the signal itself (the SDK's default). The SDK's own lines
// go through the game server's logger at LOG_LEVEL (one per process under the cluster).
installTemporalRuntime({
  level: config.LOG_LEVEL,
  log: createLogger('game-server', config.LOG_LEVEL),
  shutdownSignals: [],
});
const deps = await createGameDeps(config);
const { logger } = deps;
const server = listenHttp(
  createGameApp(deps).callback(),
  {
    port: config.GAME_SERVER_PORT,
    host: config.HOST,
    tls: { certFile: config.TLS_CERT_FILE, keyFile: config.TLS_KEY_FILE },
  },
  (protocol) =>
    logger.info('game server listening', {
      url: `${protocol}://${config.HOST}:${config.GAME_SERVER_PORT}`,
      game_base_url: deps.gameBaseUrl,
      pid: process.pid,
    }),
);
server.keepAliveTimeout = 65_000;

// Prometheus on GAME_METRICS_PORT; under GAME_PROCESSES > 1 the cluster primary serves the sum.
if (!cluster.isWorker) {
  const { registry } = apiMetrics();
  startMetricsServer({
    host: config.HOST,
    port: config.GAME_METRICS_PORT,
    render: () => registry.metrics(),
    contentType: registry.contentType,
    logger,
    routes: { '/ready': readyRoute(sharedReadiness(deps)) },
  });
}

// Open event streams would hold server.close() until the grace timeout: end them first.
stopOnSignals(
  server,
  () => deps.close(),
  () => deps.refresh.closeStreams(),
);
