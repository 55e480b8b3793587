import type { Pool } from '@opi/db';
import { settlementGauges, walletCallbackMetrics } from '@opi/service-kit/ops/settlement-metrics';
import client from 'prom-client';

/**
 * The worker's Prometheus metrics, served on WORKER_METRICS_PORT: its wallet callbacks (latency
 * and outcome by type and operator, the same histogram as the API's; timeouts and resends), and the
 * settlement state from the database (@opi/service-kit/ops/settlement-metrics; every worker and
 * the API report the same database figures: take max() across them).
 */
export function workerMetrics(pool: Pool, taskQueue: string): client.Registry {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  walletCallbackMetrics(registry);
  settlementGauges(registry, pool);
  new client.Gauge({
    name: 'opi_worker_info',
    help: 'The settlement worker and its task queue',
    labelNames: ['task_queue'] as const,
    registers: [registry],
  }).set({ task_queue: taskQueue }, 1);
  return registry;
}
