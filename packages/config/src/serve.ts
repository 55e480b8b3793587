import { readFileSync } from 'node:fs';
import http, { type RequestListener, type Server } from 'node:http';
import https from 'node:https';

/** HSTS_MAX_AGE_SECONDS's default: one year. */
export const HSTS_DEFAULT_MAX_AGE_SECONDS = 31_536_000;

/** The `Strict-Transport-Security` value an HTTPS service sends (no includeSubDomains, no preload). */
export function hstsValue(maxAgeSeconds: number = HSTS_DEFAULT_MAX_AGE_SECONDS): string {
  return `max-age=${maxAgeSeconds}`;
}

/**
 * Listens with plain HTTP, or with HTTPS when both TLS files are given (TLS_CERT_FILE and
 * TLS_KEY_FILE; a ConfigError-style exit names a half-given pair before this is called). Over
 * HTTPS every answer carries `Strict-Transport-Security` (HSTS_MAX_AGE_SECONDS), set before the
 * handler runs so that error answers carry it too; plain HTTP sends none (a browser ignores it
 * there, and behind a TLS-terminating proxy the proxy sends it).
 */
export function listenHttp(
  handler: RequestListener,
  options: {
    port: number;
    host: string;
    tls?: { certFile?: string; keyFile?: string };
    hstsMaxAgeSeconds?: number;
  },
  onListening?: (protocol: 'http' | 'https') => void,
): Server {
  const { certFile, keyFile } = options.tls ?? {};
  const hsts = hstsValue(options.hstsMaxAgeSeconds);
  const server =
    certFile && keyFile
      ? https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, (req, res) => {
          res.setHeader('Strict-Transport-Security', hsts);
          handler(req, res);
        })
      : http.createServer(handler);
  const protocol = certFile && keyFile ? 'https' : 'http';
  server.listen(options.port, options.host, () => onListening?.(protocol));
  return server;
}

/**
 * Graceful stop for an HTTP service: on SIGTERM or SIGINT (or when the supervising parent
 * process disappears, so nothing is orphaned), stop accepting connections, close idle keep-alive
 * sockets, release resources with `close`, then exit; force the exit after `graceMs`.
 */
export function stopOnSignals(
  server: Server,
  close: () => Promise<void>,
  onStop?: () => void,
  graceMs = 5000,
): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    onStop?.();
    server.close(() => {
      void close().finally(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), graceMs).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 1000).unref();
}
