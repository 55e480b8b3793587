import { Pool } from 'undici';
import { fmt, percentile } from './stats.js';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<number, number>;
  seconds: number;
  rps: number;
  latenciesMs: number[];
}

/**
 * A closed-loop load: `connections` concurrent clients on keep-alive connections, each sending
 * its next request as soon as the last one answered, for `durationMs`. Requests are built per
 * call (so each can carry a fresh nonce and signature).
 */
export async function runLoad(opts: {
  origin: string;
  connections: number;
  durationMs: number;
  make: () => LoadRequest;
  expectStatus?: number;
}): Promise<LoadResult> {
  const pool = new Pool(opts.origin, {
    connections: opts.connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
  });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const started = performance.now();
  const deadline = started + opts.durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      const req = opts.make();
      const t0 = performance.now();
      try {
        const res = await pool.request({
          method: req.method,
          path: req.path,
          headers: req.headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
        });
        await res.body.dump();
        latencies.push(performance.now() - t0);
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode !== (opts.expectStatus ?? 200)) errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return {
    requests: latencies.length,
    errors,
    statuses,
    seconds,
    rps: latencies.length / seconds,
    latenciesMs: latencies,
  };
}

/** A load run's summary: throughput, median and p99 latency, errors. */
export interface LoadRow {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** The summary of run `i` (from 0), and its line: `run N: … req/s  p50 … ms  p99 … ms  errors …  statuses {…}`. */
export function summarizeLoad(r: LoadResult, i: number): { row: LoadRow; line: string } {
  const row = {
    rps: r.rps,
    p50: percentile(r.latenciesMs, 50),
    p99: percentile(r.latenciesMs, 99),
    errors: r.errors,
  };
  const line = `run ${i + 1}: ${fmt(row.rps, 0)} req/s  p50 ${fmt(row.p50, 2)} ms  p99 ${fmt(row.p99, 2)} ms  errors ${row.errors}  statuses ${JSON.stringify(r.statuses)}`;
  return { row, line };
}
