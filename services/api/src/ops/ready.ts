import type { ApiDeps } from '../deps.js';
import type { ReadinessResponse } from './schemas.js';

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
export function readiness(deps: Pick<ApiDeps, 'pool' | 'temporal'>): () => Promise<ReadinessResponse> {
  let cached: { at: number; value: Promise<ReadinessResponse> } | undefined;
  const check = async (): Promise<ReadinessResponse> => {
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
    return {
      status: ok ? 'ready' : 'not_ready',
      checks: { postgres, temporal, worker: { ...worker, task_queue: t?.taskQueue ?? null, pollers } },
    };
  };
  return () => {
    const now = Date.now();
    if (!cached || now - cached.at > CACHE_MS) cached = { at: now, value: check() };
    return cached.value;
  };
}
