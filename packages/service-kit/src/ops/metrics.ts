import cluster from 'node:cluster';
import { observeWalletCallbacks } from '@opi/workflows';
import client from 'prom-client';

/*
 * The API's Prometheus metrics (the global prom-client registry of the process). Under
 * API_PROCESSES > 1 every process keeps its own and the cluster primary serves their aggregate
 * (counters and histograms summed) on API_METRICS_PORT (see cluster.ts).
 */

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface ApiMetrics {
  registry: client.Registry;
  /** Every request, by method, matched route template (`/api/provider/v1/games/:symbol`) and status. */
  httpDuration: client.Histogram<'method' | 'route' | 'status'>;
  /** Every wallet callback attempt this process sends (balance reads), by type, operator and outcome. */
  walletDuration: client.Histogram<'type' | 'operator' | 'outcome'>;
}

let metrics: ApiMetrics | undefined;

/** The process's metrics, registered once (tests build several apps in one process). */
export function apiMetrics(): ApiMetrics {
  if (metrics) return metrics;
  const registry = client.register;
  client.collectDefaultMetrics({ register: registry });
  const httpDuration = new client.Histogram({
    name: 'opi_http_request_duration_seconds',
    help: 'API request latency by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  const walletDuration = walletCallbackHistogram(registry);
  observeWalletCallbacks((o) =>
    walletDuration.observe({ type: o.operation, operator: o.operatorId, outcome: o.outcome.kind }, o.seconds),
  );
  // A cluster worker answers the primary's requests for its metrics.
  if (cluster.isWorker) new client.AggregatorRegistry();
  metrics = { registry, httpDuration, walletDuration };
  return metrics;
}

/** `opi_wallet_callback_duration_seconds`: the same definition in the API and the worker. */
export function walletCallbackHistogram(registry: client.Registry) {
  return new client.Histogram({
    name: 'opi_wallet_callback_duration_seconds',
    help: 'Wallet callback attempts by transaction type, operator and outcome (success, rejected, config_fault, uncertain)',
    labelNames: ['type', 'operator', 'outcome'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
}

export const METRICS_CONTENT_TYPE = client.register.contentType;
