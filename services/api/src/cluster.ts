/**
 * The API entry point of the default stack and of deployments that want several processes per
 * host: with API_PROCESSES = 1 it is main.ts; with N > 1 this process is a cluster primary that
 * forks N API processes sharing PORT. Node has no SO_REUSEPORT before v22.12 (this platform runs
 * on 20.11+), so the primary accepts each connection and hands it, round robin, to the next
 * process; after that the process talks to the client directly (no proxy hop). The primary serves
 * the processes' summed metrics on API_METRICS_PORT and restarts a process that dies.
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { createLogger, loadConfigOrExit, startMetricsServer } from '@opi/config';
import client from 'prom-client';

const config = loadConfigOrExit();

if (config.API_PROCESSES <= 1 || cluster.isWorker) {
  await import('./main.js');
} else {
  const logger = createLogger('api-cluster', config.LOG_LEVEL);
  const main = fileURLToPath(
    new URL(import.meta.url.endsWith('.ts') ? './main.ts' : './main.js', import.meta.url),
  );
  cluster.schedulingPolicy = cluster.SCHED_RR;
  cluster.setupPrimary({ exec: main, execArgv: process.execArgv });
  let stopping = false;
  const restarts: number[] = [];
  const fork = (index: number): Worker => {
    const worker = cluster.fork({ API_PROCESS_INDEX: String(index) });
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      // A crash loop (5 exits within a minute) stops the primary: the supervisor sees it.
      const now = Date.now();
      restarts.push(now);
      while (restarts.length && restarts[0]! < now - 60_000) restarts.shift();
      logger.error('api process exited; restarting it', { index, code, signal, pid: worker.process.pid });
      if (restarts.length > 5) {
        logger.error('api processes keep exiting; stopping');
        void stop(1);
        return;
      }
      setTimeout(() => fork(index), 500).unref();
    });
    return worker;
  };
  for (let i = 0; i < config.API_PROCESSES; i++) fork(i);
  logger.info('api cluster started', {
    processes: config.API_PROCESSES,
    port: config.PORT,
    pid: process.pid,
  });

  const aggregator = new client.AggregatorRegistry();
  const { standaloneReadiness } = await import('./ops/ready.js');
  const { readyRoute } = await import('./ops/routes.js');
  startMetricsServer({
    host: config.HOST,
    port: config.API_METRICS_PORT,
    render: () => aggregator.clusterMetrics(),
    contentType: aggregator.contentType,
    logger,
    // Readiness with its reasons, checked by the primary itself (the public /ready says only which
    // check failed; each API process logs its reasons).
    routes: { '/ready': readyRoute(standaloneReadiness(config, logger)) },
  });

  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    for (const w of workers) w.process.kill('SIGTERM');
    const deadline = Date.now() + 10_000;
    while (workers.some((w) => !w.isDead()) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
    process.exit(code);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // Under the default stack: stop with the supervisor (no orphaned processes).
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop();
  }, 1000).unref();
}
