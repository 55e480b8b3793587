/**
 * Scaling on this machine: the launch benchmark with one, then two, API processes, and the
 * settlement benchmark with as many game-server processes and settlement workers (each service's
 * cluster.ts shares its port round robin; the workers share the task queue). Settlement is measured
 * both ways: spins through the game server (the page's path: outcome, round, intent, workflow, its
 * result; game servers and workers scale together) and
 * rounds started by the client on Temporal (workers only). Prints each measurement, then the table.
 * TEMPORAL=cluster (or --cluster) settles on the real Temporal server (v1.32.1 on its own
 * PostgreSQL, HISTORY_SHARDS shards, default 4) instead of the CLI's dev server: rounds per second
 * with 1 and 2 game-server processes and workers on the production topology's Temporal. The launch
 * benchmark needs no Temporal and is the same either way.
 *
 *   npm run bench -- scaling      (PROCESSES=1,2 RUNS=3 SECONDS=10 CONNECTIONS=50 PLAYERS=20000
 *                                  ROUNDS=1000 CONCURRENCY=20)
 *   TEMPORAL=cluster npm run bench -- scaling
 */
import os from 'node:os';
import { type LaunchBenchResult, runLaunchBench } from './lib/launch-bench.js';
import { runSettlementBench, type SettlementBenchResult, temporalFromEnv } from './lib/settlement-bench.js';
import { fmt } from './lib/stats.js';

const counts = (process.env.PROCESSES ?? '1,2').split(',').map(Number);
const runs = Number(process.env.RUNS ?? 3);
const temporal = temporalFromEnv();
const historyShards = Number(process.env.HISTORY_SHARDS ?? 4);
const quiet = (prefix: string) => (line: string) =>
  console.log(
    line
      .split('\n')
      .map((l) => `${prefix} ${l}`)
      .join('\n'),
  );

const launch: LaunchBenchResult[] = [];
const settle: SettlementBenchResult[] = [];
for (const n of counts) {
  launch.push(
    await runLaunchBench({
      runs,
      seconds: Number(process.env.SECONDS ?? 10),
      connections: Number(process.env.CONNECTIONS ?? 50),
      players: Number(process.env.PLAYERS ?? 20_000),
      apiProcesses: n,
      log: quiet(`[launch x${n}]`),
    }),
  );
  settle.push(
    await runSettlementBench({
      rounds: Number(process.env.ROUNDS ?? 1000),
      concurrency: Number(process.env.CONCURRENCY ?? 20),
      runs,
      modes: ['spin', 'local'],
      workerProcesses: n,
      apiProcesses: n,
      temporal,
      historyShards,
      log: quiet(`[settlement x${n}]`),
    }),
  );
}

const base = (i: number, v: number, of: number[]) => (i === 0 ? '' : ` (${fmt(v / of[0]!, 2)}x)`);
const lr = launch.map((r) => r.rps);
const sr = settle.map((r) => r.modes.spin!.rps);
const cr = settle.map((r) => r.modes.local!.rps);
console.log(
  `\nscaling on ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown CPU'}), medians of ${runs} runs; ` +
    `settlement on Temporal's ${settle[0]?.temporal ?? temporal}`,
);
console.log(
  'processes | launch req/s (p50 / p99 ms) | spin via game server rounds/s (p50 / p99 ms) | client-started rounds/s (p50 ms)',
);
counts.forEach((n, i) => {
  const l = launch[i]!;
  const s = settle[i]!.modes.spin!;
  const c = settle[i]!.modes.local!;
  console.log(
    `${String(n).padStart(9)} | ${fmt(l.rps, 0)}${base(i, l.rps, lr)} (${fmt(l.p50, 1)} / ${fmt(l.p99, 1)}) | ` +
      `${fmt(s.rps, 0)}${base(i, s.rps, sr)} (${fmt(s.p50, 0)} / ${fmt(s.p99, 0)}) | ` +
      `${fmt(c.rps, 0)}${base(i, c.rps, cr)} (${fmt(c.p50, 0)})`,
  );
});
console.log(
  `wallet ledgers consistent: ${settle.every((s) => s.ledgerConsistent)}; launch errors: ${launch.map((l) => l.errors).join(', ')}`,
);
console.log('CPU per round by process (spin via game server, last run):');
counts.forEach((n, i) => {
  console.log(`  x${n}: ${settle[i]!.modes.spin!.cpu.map(([p, ms]) => `${p} ${fmt(ms, 1)}`).join(', ')}`);
});
