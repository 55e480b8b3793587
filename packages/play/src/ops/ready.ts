import type { Config } from '@opi/config';
import { createPool } from '@opi/db';
import type { Logger } from '@opi/service-kit/http/logger';
import { Client, Connection } from '@temporalio/client';
import type { PlayDeps } from '../deps.js';
import type { ReadinessResponse } from './schemas.js';

/**
 * What readiness found, with the details: why a check failed (driver and Temporal messages, which
 * can name hosts, ports, users) and the task queue. For the log and the metrics port only; the
 * public `GET /ready` answers `publicReadiness(report)` (issue 23 point 7).
 */
type CheckReport = { ok: boolean; ms: number; error?: string };
export interface ReadinessReport {
  status: 'ready' | 'not_ready';
  checks: {
    postgres: CheckReport;
    temporal: CheckReport;
    worker: CheckReport & { task_queue: string | null; pollers: number };
  };
}

/** The public answer: per check whether it passed, how long it took, and the poller count. */
export function publicReadiness(report: ReadinessReport): ReadinessResponse {
  const { postgres, temporal, worker } = report.checks;
  return {
    status: report.status,
    checks: {
      postgres: { ok: postgres.ok, ms: postgres.ms },
      temporal: { ok: temporal.ok, ms: temporal.ms },
      worker: { ok: worker.ok, ms: worker.ms, pollers: worker.pollers },
    },
  };
}

/** A poller seen within this window counts (a long poll lasts up to about 70 s). */
const POLLER_WINDOW_MS = 90_000;
const CHECK_TIMEOUT_MS = 2_000;
// temporal.api.enums.v1 values (the proto package is not a direct dependency).
const TASK_QUEUE_KIND_NORMAL = 1;
const TASK_QUEUE_TYPE_WORKFLOW = 1;
/** Load balancers probe often: one answer is shared for this long. */
const CACHE_MS = 1_000;

async function timed(run: () => Promise<void>): Promise<{ ok: boolean; ms: number; error?: string }> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      run(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
          CHECK_TIMEOUT_MS,
        );
      }),
    ]);
    return { ok: true, ms: Math.round((performance.now() - t0) * 10) / 10 };
  } catch (err) {
    const ms = Math.round((performance.now() - t0) * 10) / 10;
    return { ok: false, ms, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Readiness: PostgreSQL answers, Temporal answers, and at least one settlement worker has polled
 * the task queue within the last 90 s. Without Temporal configured the API cannot settle a round,
 * so it is not ready (fail closed).
 */
export function readiness(
  deps: Pick<PlayDeps, 'pool' | 'temporal'> & { logger?: Logger | undefined },
): () => Promise<ReadinessReport> {
  let cached: { at: number; value: Promise<ReadinessReport> } | undefined;
  // A failure is logged with its details when it starts or its reason changes, and once a minute
  // while it lasts (load balancers probe every few seconds); the recovery once.
  let lastFailure: { key: string; at: number } | undefined;
  const logOutcome = (report: ReadinessReport) => {
    const failed = Object.entries(report.checks)
      .filter(([, c]) => !c.ok)
      .map(([name, c]) => ({ check: name, error: c.error ?? null }));
    if (failed.length === 0) {
      if (lastFailure) deps.logger?.info('ready again', {});
      lastFailure = undefined;
      return;
    }
    const key = JSON.stringify(failed);
    const now = Date.now();
    if (lastFailure && lastFailure.key === key && now - lastFailure.at < 60_000) return;
    lastFailure = { key, at: now };
    deps.logger?.warn('not ready', { failed, task_queue: report.checks.worker.task_queue });
  };
  const check = async (): Promise<ReadinessReport> => {
    const postgres = await timed(async () => {
      await deps.pool.query('SELECT 1');
    });
    let pollers = 0;
    const t = deps.temporal;
    const notConfigured = { ok: false, ms: 0, error: 'TEMPORAL_ADDRESS is not configured' };
    const temporal = t
      ? await timed(async () => {
          await t.client.workflowService.getSystemInfo({});
        })
      : notConfigured;
    const worker = !t
      ? notConfigured
      : !temporal.ok
        ? { ok: false, ms: 0, error: 'Temporal does not answer' }
        : await timed(async () => {
            const res = await t.client.workflowService.describeTaskQueue({
              namespace: t.client.options.namespace,
              taskQueue: { name: t.taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
              taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
            });
            const now = Date.now();
            pollers = (res.pollers ?? []).filter((p) => {
              const seen = p.lastAccessTime?.seconds;
              return seen != null && now - Number(seen) * 1000 < POLLER_WINDOW_MS;
            }).length;
            if (pollers === 0) throw new Error(`no worker polls task queue ${t.taskQueue}`);
          });
    const ok = postgres.ok && temporal.ok && worker.ok;
    const report: ReadinessReport = {
      status: ok ? 'ready' : 'not_ready',
      checks: { postgres, temporal, worker: { ...worker, task_queue: t?.taskQueue ?? null, pollers } },
    };
    logOutcome(report);
    return report;
  };
  return () => {
    const now = Date.now();
    if (!cached || now - cached.at > CACHE_MS) cached = { at: now, value: check() };
    return cached.value;
  };
}

const shared = new WeakMap<object, () => Promise<ReadinessReport>>();

/** One readiness per process's dependencies: the public route and the metrics port share its cache and log. */
export function sharedReadiness(
  deps: Pick<PlayDeps, 'pool' | 'temporal' | 'logger'>,
): () => Promise<ReadinessReport> {
  let ready = shared.get(deps);
  if (!ready) {
    ready = readiness(deps);
    shared.set(deps, ready);
  }
  return ready;
}

/**
 * Readiness for a process without the API's dependencies (the cluster primary's metrics port under
 * API_PROCESSES > 1): its own one-connection pool and a lazy Temporal client.
 */
export function standaloneReadiness(config: Config, logger?: Logger): () => Promise<ReadinessReport> {
  const pool = config.DATABASE_URL
    ? createPool(config.DATABASE_URL, { max: 1, applicationName: 'opi-api-ready' })
    : undefined;
  const connection = config.TEMPORAL_ADDRESS
    ? Connection.lazy({ address: config.TEMPORAL_ADDRESS })
    : undefined;
  const temporal = connection
    ? {
        client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
      }
    : undefined;
  const noDatabase = {
    query: async () => {
      throw new Error('DATABASE_URL is not configured');
    },
  } as unknown as PlayDeps['pool'];
  return readiness({ pool: pool ?? noDatabase, temporal, logger });
}
