/**
 * Settlement throughput and latency against its floors, in one run on one stack (one Temporal
 * server, the same standalone worker settings), at 1 and at 20 concurrent clients:
 *
 *   direct       the two signed wallet calls (debit, credit), no Temporal, no journal
 *   floor        floorRound (two no-op local activities) started and awaited as the API does, from
 *                a plain client Connection; the standalone worker (services/worker) runs it
 *   floor eager  the same started with requestEagerStart from a client on the NativeConnection of a
 *                worker in the bench process (as the API's hosted worker); checks each start was eager
 *   local        round + intent insert, then settleRound (local activities) from the bench client
 *   regular      the same with regular activities (half the rounds)
 *   spin off     POST /api/runtime/spin through the game server, GAME_SETTLEMENT_WORKER=off (starts not eager)
 *   spin on      the same with GAME_SETTLEMENT_WORKER=on (hosted worker, eager starts)
 *   spin jp      the same spin by players of an operator whose operator jackpot (two levels, hits
 *                rare: hit_every 10^12 and 10^15) holds the title: the contribution path's cost;
 *                every other run measures it before spin on (interleaved), and a closing block
 *                prints each run's pair, the medians and ranges, and the CPU difference per spin
 *   spin jp hit  the same with frequent hits (the mini every 20 spins): one more jackpot_win credit
 *   free round   a campaign's free round through the same game server (free_round: true; credit only),
 *                for players of their own granted 1,000 rounds each
 *
 * Prints each measurement, then a table: rounds/s, p50, p99, CPU per round by process (temporal,
 * worker, api, game (the game server), pg, wallet, client; tpg on the cluster), and the ratios spin/floor (rounds/s, p50)
 * and spin/direct (p50).
 *
 * Temporal: the CLI's dev server (default, as `npm start`), or with TEMPORAL=cluster (or --cluster)
 * the real server v1.32.1 (tools/devstack/src/temporal-cluster.ts, as `npm run start:cluster`)
 * with its databases on a second embedded PostgreSQL of its own, so that its CPU is apart: the
 * table's `temporal` is the server process, `tpg` Temporal's PostgreSQL, `pg` the platform's (and
 * the wallet's). Every mode, the floors included, runs on it: the floor per topology.
 * HISTORY_SHARDS (default 4) sets its shards; TEMPORAL_LOG=<file> keeps its log.
 *
 *   npm run bench -- settlement            the full run (RUNS=3, ROUNDS=1000 at 20 clients, 250 at 1)
 *   npm run bench -- settlement --quick    a quick try (QUICK=1 too): 1 run, 300 rounds (80 at 1 client)
 *   TEMPORAL=cluster npm run bench -- settlement [--quick]     the same on the real Temporal server
 *
 * Knobs: ROUNDS (per measurement at the highest concurrency), SERIAL_ROUNDS (at 1 client; default
 * ROUNDS/4), CONCURRENCY=1,20 (levels), RUNS, WARMUP (rounds whenever a mode's processes are new),
 * MODES=direct,floor,floor-eager,local,regular,spin-off,spin,spin-jackpot,spin-jackpot-hits,free
 * (a subset, in any order; by default every mode but the two jackpot ones),
 * SKIP_REGULAR=1 (no regular activities), SPIN=0 (no spins through the API; SPIN=1, the old switch,
 * is the default now), WORKER_PROCESSES, API_PROCESSES, TEMPORAL_DB=memory and TEMPORAL_DYNAMIC_CONFIG
 * (dev server only), TEMPORAL=cluster, HISTORY_SHARDS, PG_STAT_STATEMENTS=1|all (each measurement's
 * statements per round; on the cluster Temporal's own too, from its PostgreSQL), TEMPORAL_PPROF_PORT
 * (cluster only: the server's Go profiler on localhost, e.g. `curl localhost:<port>/debug/pprof/profile?seconds=15`).
 */
import {
  runSettlementBench,
  SETTLEMENT_MODES,
  type SettlementMode,
  temporalFromEnv,
} from './lib/settlement-bench.js';

const quick = process.argv.includes('--quick') || process.env.QUICK === '1';
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

let modes: SettlementMode[];
if (process.env.MODES) {
  modes = process.env.MODES.split(',').map((m) => m.trim() as SettlementMode);
  const unknown = modes.filter((m) => !SETTLEMENT_MODES.includes(m));
  if (unknown.length) {
    process.stderr.write(`unknown MODES ${unknown.join(', ')} (known: ${SETTLEMENT_MODES.join(', ')})\n`);
    process.exit(2);
  }
} else {
  // The jackpot modes only when named (MODES=spin,spin-jackpot): the full run stays as it was.
  modes = SETTLEMENT_MODES.filter((m) => m !== 'spin-jackpot' && m !== 'spin-jackpot-hits');
  if (process.env.SKIP_REGULAR) modes = modes.filter((m) => m !== 'regular');
  if (process.env.SPIN === '0') modes = modes.filter((m) => m !== 'spin' && m !== 'spin-off' && m !== 'free');
}
const rounds = env('ROUNDS', quick ? 300 : 1000);
await runSettlementBench({
  rounds,
  serialRounds: env('SERIAL_ROUNDS', quick ? 80 : Math.ceil(rounds / 4)),
  concurrency: (process.env.CONCURRENCY ?? '1,20').split(',').map(Number),
  runs: env('RUNS', quick ? 1 : 3),
  warmupRounds: env('WARMUP', quick ? 60 : Math.min(200, rounds)),
  modes,
  workerProcesses: env('WORKER_PROCESSES', 1),
  // The spinning side's processes: game servers (API_PROCESSES, its name before issue 24, still read).
  apiProcesses: env('GAME_PROCESSES', env('API_PROCESSES', 1)),
  temporal: temporalFromEnv(),
  historyShards: env('HISTORY_SHARDS', 4),
});
console.log('targets: >= 100 rounds/s sustained; p50 <= 3x the direct path');
