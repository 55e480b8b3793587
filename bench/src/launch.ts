/**
 * Signed launch-url requests: 50 connections against one API process in production mode (every
 * request signed with a fresh nonce). Each request launches a prov_a slot for one of PLAYERS
 * players, round robin, so the first pass creates players and sessions and later passes resume
 * and refresh them (a new token, a new deadline) — both paths write in one transaction.
 * Prints requests/s, p50 and p99 per run and their medians, and the direct database baseline:
 * the same transaction's statements issued from the bench process without HTTP, signing or Koa.
 *
 *   npm run bench -- launch       (RUNS=3 SECONDS=10 CONNECTIONS=50 PLAYERS=20000 by default)
 */
import { cpuPerUnit, cpuSnapshot } from './lib/cpu.js';
import { runLoad } from './lib/load.js';
import { rssOf } from './lib/rss.js';
import { admin, signedHeaders, startBenchStack } from './lib/stack.js';
import { fmt, median, percentile } from './lib/stats.js';

const RUNS = Number(process.env.RUNS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const PLAYERS = Number(process.env.PLAYERS ?? 20_000);

const stack = await startBenchStack();
try {
  const api = await stack.startApi();
  await admin(api.origin, 'POST', '/api/admin/v1/operators', {
    operator_id: 'op_bench',
    name: 'Bench',
    default_currency: 'EUR',
    wallet_base_url: 'https://wallet.bench.test/wallet',
    wallet_secret: 'wsec_bench_launch_secret_0123456789',
  });
  const { rows } = await stack.pool.query<{ symbol: string }>(
    `SELECT g.symbol FROM games g
     WHERE g.provider_id = 'prov_a'
       AND EXISTS (SELECT 1 FROM release_registry r
                   WHERE r.symbol = g.symbol AND r.status = 'accepted' AND r.registry_version = g.installed_version)
     ORDER BY g.symbol LIMIT 1`,
  );
  const symbol = rows[0]!.symbol;
  await admin(api.origin, 'PUT', `/api/admin/v1/operators/op_bench/games/${symbol}`, { enabled: true });
  const key = (await admin(api.origin, 'POST', '/api/admin/v1/operators/op_bench/api-keys', {})).data
    .api_key as string;

  const path = '/api/provider/v1/launch-url';
  let n = 0;
  const make = () => {
    const body = JSON.stringify({
      symbol,
      external_player_id: `bench-player-${n++ % PLAYERS}`,
      currency: 'EUR',
      return_url: 'https://casino.bench.test/lobby',
      device: n % 2 ? 'desktop' : 'mobile',
    });
    return { method: 'POST' as const, path, headers: signedHeaders(key, 'POST', path, body), body };
  };
  const probe = await fetch(api.origin + path, {
    method: 'POST',
    ...(() => {
      const r = make();
      return { headers: r.headers, body: r.body };
    })(),
  });
  if (probe.status !== 200) throw new Error(`launch probe: ${probe.status} ${await probe.text()}`);
  console.log(
    `launch: ${symbol} (prov_a), ${PLAYERS} players round robin, ${CONNECTIONS} connections; warm-up 3 s`,
  );
  await runLoad({ origin: api.origin, connections: CONNECTIONS, durationMs: 3000, make });

  const runs: { rps: number; p50: number; p99: number; errors: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpu0 = cpuSnapshot();
    const r = await runLoad({
      origin: api.origin,
      connections: CONNECTIONS,
      durationMs: SECONDS * 1000,
      make,
    });
    const row = {
      rps: r.rps,
      p50: percentile(r.latenciesMs, 50),
      p99: percentile(r.latenciesMs, 99),
      errors: r.errors,
    };
    runs.push(row);
    const cpu = cpuPerUnit(cpu0, cpuSnapshot(), r.requests);
    console.log(
      `run ${i + 1}: ${fmt(row.rps, 0)} req/s  p50 ${fmt(row.p50, 2)} ms  p99 ${fmt(row.p99, 2)} ms  errors ${row.errors}  statuses ${JSON.stringify(r.statuses)}\n` +
        `       CPU per request (ms): ${cpu.map(([l, ms]) => `${l} ${fmt(ms, 2)}`).join(', ')}`,
    );
  }
  const { rows: counts } = await stack.pool.query<{ players: string; sessions: string }>(
    `SELECT (SELECT count(*) FROM players) AS players, (SELECT count(*) FROM sessions) AS sessions`,
  );
  const rss = rssOf(api.pid);
  console.log(
    `\nmedian of ${RUNS} runs (${CONNECTIONS} connections, ${SECONDS} s each): ${fmt(median(runs.map((r) => r.rps)), 0)} req/s, ` +
      `p50 ${fmt(median(runs.map((r) => r.p50)), 2)} ms, p99 ${fmt(median(runs.map((r) => r.p99)), 2)} ms; ` +
      `API peak RSS ${fmt(rss.peakMb, 0)} MB; ${counts[0]!.players} players, ${counts[0]!.sessions} sessions written`,
  );
  console.log('targets: >= 1000 req/s, p99 <= 50 ms');
} finally {
  await stack.stop();
}
