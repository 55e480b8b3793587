/**
 * The primary of a service's processes (the operator API's API_PROCESSES, the game server's
 * GAME_PROCESSES): it forks N processes sharing one port. Node has no SO_REUSEPORT before v22.12
 * (this platform runs on 20.11+), so the primary accepts each connection and hands it, round
 * robin, to the next process; after that the process talks to the client directly (no proxy
 * hop). The primary serves the processes' summed metrics and its own readiness on the metrics
 * port, and restarts a process that dies (a crash loop, 5 exits within a minute, stops it).
 */
import cluster, { type Worker } from 'node:cluster';
import { type Config, createLogger, startMetricsServer } from '@opi/config';
import client from 'prom-client';
import { standaloneReadiness } from './ready.js';
import { readyRoute } from './routes.js';

export interface ClusterOptions {
  /** The service's name in log lines (`api`, `game-server`). */
  name: string;
  /** The module each process runs (its main). */
  main: string;
  processes: number;
  port: number;
  metricsPort: number;
  config: Config;
}

export async function startCluster(options: ClusterOptions): Promise<void> {
  const { config, name } = options;
  const logger = createLogger(`${name}-cluster`, config.LOG_LEVEL);
  cluster.schedulingPolicy = cluster.SCHED_RR;
  cluster.setupPrimary({ exec: options.main, execArgv: process.execArgv });
  let stopping = false;
  const restarts: number[] = [];
  const fork = (index: number): Worker => {
    const worker = cluster.fork({ PROCESS_INDEX: String(index) });
    worker.on('exit', (code, signal) => {
      if (stopping) return;
      const now = Date.now();
      restarts.push(now);
      while (restarts.length && restarts[0]! < now - 60_000) restarts.shift();
      logger.error(`${name} process exited; restarting it`, { index, code, signal, pid: worker.process.pid });
      if (restarts.length > 5) {
        logger.error(`${name} processes keep exiting; stopping`);
        void stop(1);
        return;
      }
      setTimeout(() => fork(index), 500).unref();
    });
    return worker;
  };
  for (let i = 0; i < options.processes; i++) fork(i);
  logger.info(`${name} cluster started`, {
    processes: options.processes,
    port: options.port,
    pid: process.pid,
  });

  const aggregator = new client.AggregatorRegistry();
  startMetricsServer({
    host: config.HOST,
    port: options.metricsPort,
    render: () => aggregator.clusterMetrics(),
    contentType: aggregator.contentType,
    logger,
    // Readiness with its reasons, checked by the primary itself (the public /ready says only which
    // check failed; each process logs its reasons).
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
