import cluster from 'node:cluster';
import type { RequestListener, Server } from 'node:http';
import { type Config, listenHttp, startMetricsServer, stopOnSignals } from '@opi/config';
import { apiMetrics } from '@opi/service-kit/ops/metrics';
import type { PlayDeps } from '../deps.js';
import { sharedReadiness } from './ready.js';
import { readyRoute } from './routes.js';

export interface ServeOptions {
  config: Config;
  deps: PlayDeps & { close(): Promise<void> };
  handler: RequestListener;
  /** The public port (PORT for the API, GAME_SERVER_PORT for the game server). */
  port: number;
  /** Prometheus and `/ready` with reasons (0: none); under a cluster its primary serves the sum. */
  metricsPort: number;
  /** The line logged once listening (`api listening`), with its fields beside url and pid. */
  listening: { message: string; fields: Record<string, unknown> };
  /** Before the server stops taking requests on a signal (the game server ends its event streams). */
  onStop?: () => void;
}

/**
 * One service process (the operator API's or the game server's): its HTTP(S) server on `port`,
 * its metrics and readiness on `metricsPort` unless a cluster primary serves them, and a graceful
 * stop on SIGTERM/SIGINT (the server stops taking requests, then the dependencies close: the
 * hosted worker drains).
 */
export function serveProcess(o: ServeOptions): Server {
  const { config, deps } = o;
  const server = listenHttp(
    o.handler,
    {
      port: o.port,
      host: config.HOST,
      tls: { certFile: config.TLS_CERT_FILE, keyFile: config.TLS_KEY_FILE },
      hstsMaxAgeSeconds: config.HSTS_MAX_AGE_SECONDS,
    },
    (protocol) =>
      deps.logger.info(o.listening.message, {
        url: `${protocol}://${config.HOST}:${o.port}`,
        ...o.listening.fields,
        pid: process.pid,
      }),
  );
  server.keepAliveTimeout = 65_000;
  if (!cluster.isWorker) {
    const { registry } = apiMetrics();
    startMetricsServer({
      host: config.HOST,
      port: o.metricsPort,
      render: () => registry.metrics(),
      contentType: registry.contentType,
      logger: deps.logger,
      // Readiness with its reasons (the public /ready says only which check failed).
      routes: { '/ready': readyRoute(sharedReadiness(deps)) },
    });
  }
  stopOnSignals(server, () => deps.close(), o.onStop);
  return server;
}
