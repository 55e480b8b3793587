/**
 * The cluster stack's Prometheus (issue 37): Debian's prometheus on PROMETHEUS_PORT scraping every
 * process of the stack, with the alert rules of deploy/prometheus/rules (copied into
 * DATA_DIR/prometheus/rules, which the fault drill renders again with shorter `for` values and
 * reloads), and Debian's PostgreSQL exporter on PROMETHEUS_PORT + 1. The Temporal server serves
 * its own metrics on PROMETHEUS_PORT + 2 (stack.ts passes it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '@opi/config';
import { type Supervised, startProcess } from './processes.js';
import {
  ensurePostgresExporter,
  ensurePrometheus,
  prometheusConfig,
  type RunningPrometheus,
  renderRules,
  type ScrapeJob,
  startPrometheus,
} from './prometheus.js';
import { waitForPort } from './wait.js';

export interface StackPrometheus {
  prometheus: RunningPrometheus;
  /** The jobs and their targets, as scraped. */
  jobs: ScrapeJob[];
  rulesDir: string;
  stop(): Promise<void>;
}

/** The scrape jobs of the cluster stack: every process's metrics port. */
export function stackScrapeJobs(
  config: Config,
  options: { postgresExporter?: number; temporalServer?: number },
) {
  const host = '127.0.0.1';
  const range = (base: number, n: number) => Array.from({ length: n }, (_, i) => `${host}:${base + i}`);
  const jobs: ScrapeJob[] = [
    { job: 'api', targets: [`${host}:${config.API_METRICS_PORT}`] },
    { job: 'game-server', targets: [`${host}:${config.GAME_METRICS_PORT}`] },
    { job: 'worker', targets: range(config.WORKER_METRICS_PORT, config.WORKER_PROCESSES) },
  ];
  if (config.TEMPORAL_SDK_METRICS_PORT) {
    // Worker i on TEMPORAL_SDK_METRICS_PORT + i, game-server process j on + WORKER_PROCESSES + j.
    jobs.push({
      job: 'temporal-sdk',
      targets: range(config.TEMPORAL_SDK_METRICS_PORT, config.WORKER_PROCESSES + config.GAME_PROCESSES),
    });
  }
  if (options.temporalServer)
    jobs.push({ job: 'temporal-server', targets: [`${host}:${options.temporalServer}`] });
  if (options.postgresExporter)
    jobs.push({ job: 'postgres', targets: [`${host}:${options.postgresExporter}`] });
  return jobs;
}

export async function startStackPrometheus(options: {
  config: Config;
  dir: string;
  runDir: string;
  databaseUrl: string;
  temporalServerMetricsPort?: number;
  say: (msg: string) => void;
}): Promise<StackPrometheus | undefined> {
  const { config, say } = options;
  const port = config.PROMETHEUS_PORT;
  let binaries: Awaited<ReturnType<typeof ensurePrometheus>>;
  try {
    binaries = await ensurePrometheus(say);
  } catch (err) {
    say(`WARNING: no Prometheus: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  const base = path.join(options.dir, 'prometheus');
  mkdirSync(base, { recursive: true });
  const logFile = path.join(options.dir, 'logs', 'prometheus.log');

  let exporter: Supervised | undefined;
  const exporterBin = await ensurePostgresExporter(say);
  if (exporterBin) {
    exporter = startProcess(
      'postgres-exporter',
      exporterBin,
      [`--web.listen-address=127.0.0.1:${port + 1}`, '--log.level=warn'],
      {
        env: { PATH: process.env.PATH, DATA_SOURCE_NAME: withSslDisabled(options.databaseUrl) },
        runDir: options.runDir,
        quiet: true,
      },
    );
    await waitForPort('127.0.0.1', port + 1, 30_000).catch(() =>
      say('WARNING: the PostgreSQL exporter did not start'),
    );
  } else {
    say('WARNING: no prometheus-postgres-exporter: PostgreSQL is not scraped');
  }

  const rulesDir = path.join(base, 'rules');
  const ruleFiles = renderRules(rulesDir);
  const jobs = stackScrapeJobs(config, {
    ...(exporter ? { postgresExporter: port + 1 } : {}),
    ...(options.temporalServerMetricsPort ? { temporalServer: options.temporalServerMetricsPort } : {}),
  });
  const configFile = path.join(base, 'prometheus.yml');
  writeFileSync(configFile, prometheusConfig({ jobs, ruleFiles }));
  const prometheus = await startPrometheus({
    binary: binaries.prometheus,
    configFile,
    dataDir: path.join(base, 'data'),
    port,
    runDir: options.runDir,
    logFile,
  });
  say(
    `Prometheus on ${prometheus.url} scraping ${jobs.map((j) => `${j.job} (${j.targets.length})`).join(', ')}`,
  );
  return {
    prometheus,
    jobs,
    rulesDir,
    async stop() {
      await prometheus.stop();
      await exporter?.stop();
    },
  };
}

/** The exporter connects with libpq's defaults (sslmode=prefer fails on a server without TLS in 0.11). */
function withSslDisabled(url: string): string {
  const u = new URL(url);
  if (!u.searchParams.has('sslmode')) u.searchParams.set('sslmode', 'disable');
  return u.toString();
}
