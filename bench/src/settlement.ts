/**
 * Settlement throughput and latency, spin to settled, through Temporal with the sandbox wallet on
 * loopback; and in the same run the physical baseline: the same two wallet calls (debit, credit)
 * made directly, without Temporal or the journal. Both at the same concurrency. Local and
 * regular activities are both measured (the workflow uses local ones by default).
 *
 *   npm run bench -- settlement       (ROUNDS=2000 CONCURRENCY=20 WORKER_PROCESSES=1 by default;
 *                                      SKIP_REGULAR=1 skips regular activities; SPIN=1 adds spins
 *                                      through the API, API_PROCESSES of them)
 */
import { runSettlementBench, type SettlementMode } from './lib/settlement-bench.js';

const modes: SettlementMode[] = ['direct', 'local'];
if (!process.env.SKIP_REGULAR) modes.push('regular');
if (process.env.SPIN) modes.push('spin');
await runSettlementBench({
  rounds: Number(process.env.ROUNDS ?? 2000),
  concurrency: Number(process.env.CONCURRENCY ?? 20),
  runs: 3,
  modes,
  workerProcesses: Number(process.env.WORKER_PROCESSES ?? 1),
  apiProcesses: Number(process.env.API_PROCESSES ?? 1),
});
console.log('targets: >= 100 rounds/s sustained; p50 <= 3x the direct path');
