import type { Pool } from '@opi/db';
import {
  isResend,
  isTimeout,
  settlementGauges,
  walletCallbackCounters,
} from '@opi/service-kit/ops/settlement-metrics';
import { observeWalletCallbacks } from '@opi/wallet';
import client from 'prom-client';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The worker's Prometheus metrics, served on WORKER_METRICS_PORT: its wallet callbacks (latency
 * and outcome by type and operator, the same histogram as the API's; timeouts and resends), and the
 * settlement state from the database (@opi/service-kit/ops/settlement-metrics; every worker and
 * the API report the same database figures: take max() across them).
 */
export function workerMetrics(pool: Pool, taskQueue: string): client.Registry {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const wallet = new client.Histogram({
    name: 'opi_wallet_callback_duration_seconds',
    help: 'Wallet callback attempts by transaction type, operator and outcome (success, rejected, config_fault, uncertain)',
    labelNames: ['type', 'operator', 'outcome'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  const { timeouts, resends } = walletCallbackCounters(registry);
  observeWalletCallbacks((o) => {
    const labels = { type: o.operation, operator: o.operatorId };
    wallet.observe({ ...labels, outcome: o.outcome.kind }, o.seconds);
    if (isTimeout(o.outcome)) timeouts.inc(labels);
    if (isResend(o.requestId)) resends.inc(labels);
  });

  settlementGauges(registry, pool);
  new client.Gauge({
    name: 'opi_worker_info',
    help: 'The settlement worker and its task queue',
    labelNames: ['task_queue'] as const,
    registers: [registry],
  }).set({ task_queue: taskQueue }, 1);
  return registry;
}
