import cluster from 'node:cluster';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import client from 'prom-client';
import { LATENCY_SECONDS, walletCallbackMetrics } from './settlement-metrics.js';

/*
 * The API's Prometheus metrics (the global prom-client registry of the process). Under
 * API_PROCESSES > 1 every process keeps its own and the cluster primary serves their aggregate
 * (counters and histograms summed) on API_METRICS_PORT (see cluster.ts).
 */

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
    buckets: LATENCY_SECONDS,
    registers: [registry],
  });
  // With timeouts and resends: a game-server process's hosted worker sends debits and credits too.
  const walletDuration = walletCallbackMetrics(registry);
  certificateExpiryGauge(registry, process.env.TLS_CERT_FILE);
  // A cluster worker answers the primary's requests for its metrics.
  if (cluster.isWorker) new client.AggregatorRegistry();
  metrics = { registry, httpDuration, walletDuration };
  return metrics;
}

/**
 * `opi_tls_certificate_expiry_timestamp_seconds`: the notAfter of the certificate this process
 * serves (TLS_CERT_FILE), read again at each scrape so a renewed file shows at once. Absent when
 * the process serves plain HTTP (TLS ends in front of it). Under a cluster the primary reports the
 * earliest of its processes' (aggregator min).
 */
export function certificateExpiryGauge(registry: client.Registry, certFile: string | undefined) {
  if (!certFile) return undefined;
  return new client.Gauge({
    name: 'opi_tls_certificate_expiry_timestamp_seconds',
    help: 'When the certificate this process serves (TLS_CERT_FILE) expires, in Unix seconds',
    labelNames: ['subject'] as const,
    registers: [registry],
    aggregator: 'min',
    collect() {
      this.reset();
      try {
        const cert = new X509Certificate(readFileSync(certFile));
        this.set({ subject: cert.subject.replace(/\n/g, ', ') }, Date.parse(cert.validTo) / 1000);
      } catch {
        // Unreadable now (being replaced): no sample this scrape rather than a wrong one.
      }
    },
  });
}

export const METRICS_CONTENT_TYPE = client.register.contentType;
