import type { Server } from 'node:http';

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
