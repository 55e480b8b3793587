/**
 * Signed launch-url requests: 50 connections against the API in production mode (every request
 * signed with a fresh nonce). Each request launches a prov_a slot for one of PLAYERS players,
 * round robin, so the first pass creates players and sessions and later passes resume and refresh
 * them (a new token, a new deadline) — both paths write in one transaction. Prints requests/s, p50
 * and p99 per run and their medians, and the CPU per request by process.
 *
 *   npm run bench -- launch       (RUNS=3 SECONDS=10 CONNECTIONS=50 PLAYERS=20000 API_PROCESSES=1)
 */
import { runLaunchBench } from './lib/launch-bench.js';

await runLaunchBench({
  runs: Number(process.env.RUNS ?? 3),
  seconds: Number(process.env.SECONDS ?? 10),
  connections: Number(process.env.CONNECTIONS ?? 50),
  players: Number(process.env.PLAYERS ?? 20_000),
  apiProcesses: Number(process.env.API_PROCESSES ?? 1),
});
console.log('targets: >= 1000 req/s, p99 <= 50 ms');
