/**
 * Signed catalog reads: 50 connections against one API process (production mode: every
 * request signed, a fresh nonce each), on this machine. Prints requests/s, p50, p99 and the API
 * process's peak RSS for each run and their medians.
 *
 *   npm run bench -- catalog            (RUNS=3 SECONDS=10 CONNECTIONS=50 by default)
 */
import { runLoad, summarizeLoad } from './lib/load.js';
import { rssOf } from './lib/rss.js';
import { admin, benchApiKey, createBenchOperator, signedHeaders, startBenchStack } from './lib/stack.js';
import { fmt, median } from './lib/stats.js';

const RUNS = Number(process.env.RUNS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);

const stack = await startBenchStack();
try {
  const api = await stack.startApi();
  await createBenchOperator(api.origin);
  const { rows } = await stack.pool.query<{ symbol: string }>('SELECT symbol FROM games');
  for (const r of rows)
    await admin(api.origin, 'PUT', `/api/admin/v1/operators/op_bench/games/${r.symbol}`, { enabled: true });
  const key = await benchApiKey(api.origin);
  const path = '/api/provider/v1/games';
  const make = () => ({ method: 'GET' as const, path, headers: signedHeaders(key, 'GET', path) });
  const probe = await fetch(api.origin + path, { headers: make().headers });
  const items = ((await probe.json()) as { data: { total: number } }).data.total;
  console.log(`catalog: ${items} games per response; warm-up 3 s`);
  await runLoad({ origin: api.origin, connections: CONNECTIONS, durationMs: 3000, make });

  const runs: { rps: number; p50: number; p99: number; errors: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await runLoad({
      origin: api.origin,
      connections: CONNECTIONS,
      durationMs: SECONDS * 1000,
      make,
    });
    const { row, line } = summarizeLoad(r, i);
    runs.push(row);
    console.log(line);
  }
  const rss = rssOf(api.pid);
  console.log(
    `\nmedian of ${RUNS} runs (${CONNECTIONS} connections, ${SECONDS} s each): ${fmt(median(runs.map((r) => r.rps)), 0)} req/s, ` +
      `p50 ${fmt(median(runs.map((r) => r.p50)), 2)} ms, p99 ${fmt(median(runs.map((r) => r.p99)), 2)} ms; ` +
      `API peak RSS ${fmt(rss.peakMb, 0)} MB (now ${fmt(rss.currentMb, 0)} MB)`,
  );
  console.log('targets: >= 3000 req/s, p99 <= 20 ms, RSS <= 200 MB');
} finally {
  await stack.stop();
}
