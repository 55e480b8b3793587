/**
 * Settlement throughput and latency, spin to settled, through Temporal with the sandbox wallet on
 * loopback; and in the same run the physical baseline: the same two wallet calls (debit, credit)
 * made directly, without Temporal or the journal. Both at the same concurrency. Local and
 * regular activities are both measured (the workflow uses local ones by default).
 *
 *   npm run bench -- settlement       (ROUNDS=2000 CONCURRENCY=20 by default)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSecretBox } from '@opi/db';
import {
  findOrBuildTemporalCli,
  freePort,
  REPO_ROOT,
  startTemporalDevServer,
  waitForPort,
} from '@opi/devstack';
import { createWalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { migrateWallet } from '@opi/wallet-sandbox/migrate';
import {
  buildCallbackBody,
  buildWorkflowBundle,
  type RoundIntent,
  recordRound,
  sendWalletCallback,
  startSettlement,
  transactionIdsFor,
} from '@opi/workflows';
import { Client, Connection } from '@temporalio/client';
import { cpuPerUnit, cpuSnapshot } from './lib/cpu.js';
import { BENCH_SERVICE_SECRET, startBenchStack } from './lib/stack.js';
import { fmt, median, percentile } from './lib/stats.js';

const ROUNDS = Number(process.env.ROUNDS ?? 2000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 20);
const WALLET_SECRET = 'wsec_bench_secret_0123456789abcdef';
const ADMIN_TOKEN = 'bench-wallet-admin-token-0123';
const OPERATOR = 'op_bench';

const stack = await startBenchStack();
const children: ChildProcess[] = [];
const tmp = await mkdtemp(path.join(os.tmpdir(), 'opi-bench-temporal-'));
const spawnService = (entry: string, env: Record<string, string>) => {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.WORKER_CPU_PROF && entry.includes('worker')
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.WORKER_CPU_PROF}`]
        : []),
      '--conditions=source',
      ...(process.env.WORKER_EXTRA_IMPORT && entry.includes('worker')
        ? ['--import', process.env.WORKER_EXTRA_IMPORT]
        : []),
      '--import',
      'tsx',
      path.join(REPO_ROOT, entry),
    ],
    {
      env: { ...process.env, ...stack.env, LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  children.push(child);
  return child;
};

try {
  await migrateWallet(stack.databaseUrl);
  const cli = await findOrBuildTemporalCli({
    ...(process.env.TEMPORAL_CLI_PATH ? { explicitPath: process.env.TEMPORAL_CLI_PATH } : {}),
  });
  const temporal = await startTemporalDevServer({
    cliPath: cli,
    port: await freePort(),
    headless: true,
    // TEMPORAL_DB=memory: the dev server without its SQLite file (default: a file with WAL, as npm start).
    ...(process.env.TEMPORAL_DB === 'memory' ? {} : { dbFile: path.join(tmp, 'temporal.db') }),
    ...(process.env.TEMPORAL_DYNAMIC_CONFIG
      ? {
          dynamicConfig: JSON.parse(process.env.TEMPORAL_DYNAMIC_CONFIG) as Record<
            string,
            string | number | boolean
          >,
        }
      : {}),
  });
  await buildWorkflowBundle();

  const walletPort = await freePort();
  spawnService('services/wallet-sandbox/src/main.ts', {
    WALLET_PORT: String(walletPort),
    WALLET_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  await waitForPort('127.0.0.1', walletPort, 30_000);
  const walletBase = `http://127.0.0.1:${walletPort}`;
  const admin = createWalletAdminClient({ baseUrl: walletBase, token: ADMIN_TOKEN });
  await admin.setSecret(OPERATOR, WALLET_SECRET);

  const box = createSecretBox(BENCH_SERVICE_SECRET);
  await stack.pool.query(
    `INSERT INTO operators (operator_id, name, default_currency, wallet_base_url, wallet_secret_enc)
     VALUES ($1, 'Bench', 'EUR', $2, $3)`,
    [OPERATOR, `${walletBase}/wallet`, box.encrypt(WALLET_SECRET)],
  );
  const symbol = (
    await stack.pool.query<{ symbol: string }>(
      `SELECT symbol FROM games WHERE provider_id = 'prov_b' LIMIT 1`,
    )
  ).rows[0]!.symbol;

  // One player and session per concurrent client, each with plenty of money.
  const players: { pk: string; ext: string; session: string }[] = [];
  for (let i = 0; i < CONCURRENCY; i++) {
    const p = {
      pk: `p_${randomUUID()}`,
      ext: `bench-${i}-${randomUUID().slice(0, 6)}`,
      session: `s_${randomUUID()}`,
    };
    await stack.pool.query(
      `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ($1, $2, $3, 'global')`,
      [p.pk, OPERATOR, p.ext],
    );
    await stack.pool.query(
      `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
       VALUES ($1, $2, $3, $4, 'prov_b', 'EUR')`,
      [p.session, OPERATOR, p.pk, symbol],
    );
    await admin.createPlayer({
      operatorId: OPERATOR,
      playerId: p.ext,
      currency: 'EUR',
      balanceMinor: 10_000_000_000,
    });
    players.push(p);
  }
  const intentFor = (i: number, p: (typeof players)[number]): RoundIntent => {
    const roundId = `r_${randomUUID()}`;
    return {
      roundId,
      operatorId: OPERATOR,
      sessionId: p.session,
      playerId: p.ext,
      gameSymbol: symbol,
      providerId: 'prov_b',
      currency: 'EUR',
      actionType: 'spin',
      stakeMinor: '100',
      winMinor: String(i % 3 === 0 ? 250 : 0),
      transactions: transactionIdsFor(roundId),
    };
  };

  /** `CONCURRENCY` clients, each settling rounds one after another; latency per round. */
  async function drive(rounds: number, one: (i: number, p: (typeof players)[number]) => Promise<void>) {
    let next = 0;
    const latencies: number[] = [];
    const cpu0 = cpuSnapshot();
    const t0 = performance.now();
    await Promise.all(
      players.map(async (p) => {
        for (;;) {
          const i = next++;
          if (i >= rounds) return;
          const s = performance.now();
          await one(i, p);
          latencies.push(performance.now() - s);
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuPerUnit(cpu0, cpuSnapshot(), rounds);
    return {
      rps: rounds / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      seconds,
      cpu,
    };
  }

  // Baseline: the two wallet calls, signed, directly.
  const direct = async (i: number, p: (typeof players)[number]) => {
    const intent = intentFor(i, p);
    for (const op of ['debit', 'credit'] as const) {
      const outcome = await sendWalletCallback({
        baseUrl: `${walletBase}/wallet`,
        operation: op,
        secret: WALLET_SECRET,
        body: buildCallbackBody(intent, op, op === 'debit' ? intent.stakeMinor : intent.winMinor!),
        requestId: randomUUID(),
        timeoutMs: 10_000,
      });
      if (outcome.kind !== 'success') throw new Error(`direct ${op}: ${JSON.stringify(outcome)}`);
    }
  };

  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection });
  const viaTemporal =
    (local: boolean, taskQueue: string) => async (i: number, p: (typeof players)[number]) => {
      const intent = intentFor(i, p);
      await recordRound(stack.pool, { intent, playerPk: p.pk });
      const handle = await startSettlement(client, taskQueue, intent, { local });
      const outcome = await handle.result();
      if (outcome.status !== 'completed')
        throw new Error(`round ${intent.roundId}: ${JSON.stringify(outcome)}`);
    };

  const taskQueue = `bench-${randomUUID()}`;
  spawnService('services/worker/src/main.ts', {
    NODE_ENV: 'development',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    WORKER_MAX_ACTIVITIES: '200',
    WORKER_MAX_WORKFLOW_TASKS: '200',
  });

  console.log(
    `settlement: ${ROUNDS} rounds per measurement, ${CONCURRENCY} concurrent clients, sandbox wallet on loopback`,
  );
  await drive(200, direct);
  await drive(200, viaTemporal(true, taskQueue));
  const rows: Record<string, { rps: number; p50: number; p99: number; cpu: [string, number][] }[]> = {
    direct: [],
    local: [],
    regular: [],
  };
  for (let run = 0; run < 3; run++) {
    rows.direct!.push(await drive(ROUNDS, direct));
    rows.local!.push(await drive(ROUNDS, viaTemporal(true, taskQueue)));
    if (!process.env.SKIP_REGULAR)
      rows.regular!.push(await drive(Math.floor(ROUNDS / 2), viaTemporal(false, taskQueue)));
    else rows.regular!.push({ rps: Number.NaN, p50: Number.NaN, p99: Number.NaN, cpu: [] });
    const last = (k: string) => rows[k]![rows[k]!.length - 1]!;
    console.log(
      `run ${run + 1}: direct ${fmt(last('direct').rps, 0)}/s p50 ${fmt(last('direct').p50, 2)} ms | ` +
        `temporal+local ${fmt(last('local').rps, 0)}/s p50 ${fmt(last('local').p50, 2)} p99 ${fmt(last('local').p99, 2)} ms | ` +
        `temporal+regular ${fmt(last('regular').rps, 0)}/s p50 ${fmt(last('regular').p50, 2)} p99 ${fmt(last('regular').p99, 2)} ms`,
    );
  }
  const m = (k: string, f: 'rps' | 'p50' | 'p99') => median(rows[k]!.map((r) => r[f]));
  console.log('\nCPU per round (ms, last run), by process');
  for (const k of ['direct', 'local', 'regular']) {
    const cpu = rows[k]![rows[k]!.length - 1]!.cpu;
    console.log(`  ${k.padEnd(8)} ${cpu.map(([l, ms]) => `${l} ${fmt(ms, 2)}`).join(', ')}`);
  }
  console.log('\nmedians of 3 runs');
  for (const k of ['direct', 'local', 'regular']) {
    console.log(
      `  ${k.padEnd(8)} ${fmt(m(k, 'rps'), 0).padStart(6)} rounds/s   p50 ${fmt(m(k, 'p50'), 2)} ms   p99 ${fmt(m(k, 'p99'), 2)} ms`,
    );
  }
  console.log(
    `  p50 ratio temporal/direct: local activities ${fmt(m('local', 'p50') / m('direct', 'p50'), 2)}x, ` +
      `regular activities ${fmt(m('regular', 'p50') / m('direct', 'p50'), 2)}x`,
  );
  console.log('targets: >= 100 rounds/s sustained; p50 <= 3x the direct path');
  const check = await admin.ledgerCheck();
  console.log(`wallet ledger consistent: ${check.ok}`);
  await connection.close();
  for (const c of children) c.kill('SIGTERM');
  await temporal.stop();
} finally {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  await stack.stop();
  await rm(tmp, { recursive: true, force: true });
}
