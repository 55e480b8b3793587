import { readFileSync } from 'node:fs';
import http, { type RequestListener, type Server } from 'node:http';
import https from 'node:https';

/**
 * Listens with plain HTTP, or with HTTPS when both TLS files are given (TLS_CERT_FILE and
 * TLS_KEY_FILE; a ConfigError-style exit names a half-given pair before this is called).
 */
export function listenHttp(
  handler: RequestListener,
  options: { port: number; host: string; tls?: { certFile?: string; keyFile?: string } },
  onListening?: (protocol: 'http' | 'https') => void,
): Server {
  const { certFile, keyFile } = options.tls ?? {};
  const server =
    certFile && keyFile
      ? https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, handler)
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
