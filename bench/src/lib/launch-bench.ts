import { cpuPerUnit, cpuSnapshot } from './cpu.js';
import { runLoad, summarizeLoad } from './load.js';
import { waitForApiProcesses } from './processes.js';
import { rssOf } from './rss.js';
import { admin, benchApiKey, createBenchOperator, signedHeaders, startBenchStack } from './stack.js';
import { fmt, median } from './stats.js';

export interface LaunchBenchOptions {
  runs: number;
  seconds: number;
  connections: number;
  players: number;
  /** API processes sharing the port (services/api/src/cluster.ts); 1: one plain process. */
  apiProcesses?: number;
  log?: (line: string) => void;
}

export interface LaunchBenchResult {
  apiProcesses: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU per request by part of the stack, ms (last run). */
  cpu: [string, number][];
  runs: { rps: number; p50: number; p99: number; errors: number }[];
}

/**
 * Signed launch-url requests against the API (production mode: every request signed with a fresh
 * nonce), `connections` keep-alive connections. Each request launches a prov_a slot for one of
 * `players` players, round robin, so the first pass creates players and sessions and later passes
 * resume and refresh them (a new token, a new deadline) — both paths write in one transaction.
 */
export async function runLaunchBench(o: LaunchBenchOptions): Promise<LaunchBenchResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const processes = o.apiProcesses ?? 1;
  const stack = await startBenchStack();
  try {
    const api =
      processes > 1
        ? await stack.startApi({ API_PROCESSES: String(processes) }, 'services/api/src/cluster.ts')
        : await stack.startApi();
    await waitForApiProcesses(api.pid, processes);
    await createBenchOperator(api.origin, {
      default_currency: 'EUR',
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
    const key = await benchApiKey(api.origin);

    const path = '/api/provider/v1/launch-url';
    let n = 0;
    const make = () => {
      const body = JSON.stringify({
        symbol,
        external_player_id: `bench-player-${n++ % o.players}`,
        currency: 'EUR',
        return_url: 'https://casino.bench.test/lobby',
        device: n % 2 ? 'desktop' : 'mobile',
      });
      return { method: 'POST' as const, path, headers: signedHeaders(key, 'POST', path, body), body };
    };
    const first = make();
    const probe = await fetch(api.origin + path, {
      method: 'POST',
      headers: first.headers,
      body: first.body,
    });
    if (probe.status !== 200) throw new Error(`launch probe: ${probe.status} ${await probe.text()}`);
    log(
      `launch: ${symbol} (prov_a), ${o.players} players round robin, ${o.connections} connections, ` +
        `${processes} API process${processes > 1 ? 'es' : ''}; warm-up 3 s`,
    );
    await runLoad({ origin: api.origin, connections: o.connections, durationMs: 3000, make });

    const runs: LaunchBenchResult['runs'] = [];
    let cpu: [string, number][] = [];
    for (let i = 0; i < o.runs; i++) {
      const cpu0 = cpuSnapshot();
      const r = await runLoad({
        origin: api.origin,
        connections: o.connections,
        durationMs: o.seconds * 1000,
        make,
      });
      const { row, line } = summarizeLoad(r, i);
      runs.push(row);
      cpu = cpuPerUnit(cpu0, cpuSnapshot(), r.requests);
      log(`${line}\n       CPU per request (ms): ${cpu.map(([l, ms]) => `${l} ${fmt(ms, 2)}`).join(', ')}`);
    }
    const { rows: counts } = await stack.pool.query<{ players: string; sessions: string }>(
      `SELECT (SELECT count(*) FROM players) AS players, (SELECT count(*) FROM sessions) AS sessions`,
    );
    const result: LaunchBenchResult = {
      apiProcesses: processes,
      rps: median(runs.map((r) => r.rps)),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      errors: runs.reduce((a, r) => a + r.errors, 0),
      cpu,
      runs,
    };
    const rss = processes === 1 ? rssOf(api.pid) : undefined;
    log(
      `\nmedian of ${o.runs} runs (${o.connections} connections, ${o.seconds} s each): ${fmt(result.rps, 0)} req/s, ` +
        `p50 ${fmt(result.p50, 2)} ms, p99 ${fmt(result.p99, 2)} ms; ` +
        `${rss ? `API peak RSS ${fmt(rss.peakMb, 0)} MB; ` : ''}${counts[0]!.players} players, ${counts[0]!.sessions} sessions written`,
    );
    return result;
  } finally {
    await stack.stop();
  }
}
