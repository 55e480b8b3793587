import http from 'node:http';
import type { Logger } from './logger.js';

export interface MetricsServerOptions {
  host: string;
  /** 0: no server. */
  port: number;
  /** The Prometheus text exposition. */
  render: () => Promise<string>;
  contentType?: string;
  logger?: Logger;
  /** Extra routes of the same server (e.g. `/ready`): path -> [status, JSON body]. */
  routes?: Record<string, () => Promise<[number, unknown]>>;
}

/**
 * A small HTTP server for Prometheus (`GET /metrics`), kept off the public port: metrics carry
 * operator ids and are for the operator of the platform, not for callers of the API. A port that
 * is taken is logged and skipped (it never stops the service it observes).
 */
export function startMetricsServer(options: MetricsServerOptions): http.Server | undefined {
  if (!options.port) return undefined;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = path ? options.routes?.[path] : undefined;
    const answer = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, 'text/plain', 'GET only\n');
    if (path === '/metrics') {
      options.render().then(
        (text) => answer(200, options.contentType ?? 'text/plain; version=0.0.4; charset=utf-8', text),
        (err: unknown) => answer(500, 'text/plain', `metrics failed: ${String(err)}\n`),
      );
    } else if (route) {
      route().then(
        ([status, body]) => answer(status, 'application/json', JSON.stringify(body)),
        (err: unknown) => answer(500, 'application/json', JSON.stringify({ detail: String(err) })),
      );
    } else answer(404, 'text/plain', 'not found\n');
  });
  server.on('error', (err) => {
    options.logger?.warn('metrics server not started', { port: options.port, error: String(err) });
  });
  server.listen(options.port, options.host, () => {
    options.logger?.info('metrics listening', { url: `http://${options.host}:${options.port}/metrics` });
  });
  server.unref();
  return server;
}
