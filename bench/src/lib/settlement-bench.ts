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
import { cpuPerUnit, cpuSnapshot } from './cpu.js';
import { waitForApiProcesses } from './processes.js';
import { admin as adminCall, BENCH_SERVICE_SECRET, signedHeaders, startBenchStack } from './stack.js';
import { fmt, median, percentile } from './stats.js';

export type SettlementMode =
  /** The two wallet calls (debit, credit), signed, made directly: the physical baseline. */
  | 'direct'
  /** Round + intent insert, then the workflow with local activities (the default), from this client. */
  | 'local'
  /** The same with regular activities. */
  | 'regular'
  /** POST /api/runtime/spin through the API processes (outcome, round, intent, workflow, its result). */
  | 'spin';

export interface SettlementBenchOptions {
  /** Rounds per measurement (regular activities: half). */
  rounds: number;
  concurrency: number;
  /** Measurements per mode; medians are reported. */
  runs: number;
  modes: SettlementMode[];
  /** Settlement workers on the task queue. */
  workerProcesses?: number;
  /** API processes for the `spin` mode (services/api/src/cluster.ts). */
  apiProcesses?: number;
  log?: (line: string) => void;
}

export interface ModeResult {
  rps: number;
  p50: number;
  p99: number;
  /** CPU per round by part of the stack, ms (last run). */
  cpu: [string, number][];
}

export interface SettlementBenchResult {
  workerProcesses: number;
  apiProcesses: number;
  modes: Partial<Record<SettlementMode, ModeResult>>;
  ledgerConsistent: boolean;
}

const WALLET_SECRET = 'wsec_bench_secret_0123456789abcdef';
const ADMIN_TOKEN = 'bench-wallet-admin-token-0123';
const OPERATOR = 'op_bench';

/**
 * Settlement throughput and latency, spin to settled, through Temporal with the sandbox wallet on
 * loopback, against the direct path; `concurrency` clients each settling rounds one after another.
 */
export async function runSettlementBench(o: SettlementBenchOptions): Promise<SettlementBenchResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const workers = o.workerProcesses ?? 1;
  const apis = o.apiProcesses ?? 1;
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
        env: {
          ...process.env,
          ...stack.env,
          LOG_LEVEL: 'error',
          API_METRICS_PORT: '0',
          WORKER_METRICS_PORT: '0',
          ...env,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    children.push(child);
    return child;
  };

  // Stopped in `finally` too: a failed measurement must not leave the dev server running.
  let stopTemporal: (() => Promise<void>) | undefined;
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
    stopTemporal = () => temporal.stop();
    await buildWorkflowBundle();

    const walletPort = await freePort();
    spawnService('services/wallet-sandbox/src/main.ts', {
      WALLET_PORT: String(walletPort),
      WALLET_ADMIN_TOKEN: ADMIN_TOKEN,
      WALLET_AUTO_CREATE_PLAYERS_MINOR: '10000000000',
    });
    await waitForPort('127.0.0.1', walletPort, 30_000);
    const walletBase = `http://127.0.0.1:${walletPort}`;
    const walletAdmin = createWalletAdminClient({ baseUrl: walletBase, token: ADMIN_TOKEN });
    await walletAdmin.setSecret(OPERATOR, WALLET_SECRET);

    const taskQueue = `bench-${randomUUID()}`;
    for (let i = 0; i < workers; i++) {
      spawnService('services/worker/src/main.ts', {
        NODE_ENV: 'development',
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        WORKER_MAX_ACTIVITIES: '200',
        WORKER_MAX_WORKFLOW_TASKS: '200',
      });
    }

    // The operator: through the admin API when the API runs (spin mode), else directly.
    let api: { origin: string; pid: number } | undefined;
    let operatorKey = '';
    const box = createSecretBox(BENCH_SERVICE_SECRET);
    if (o.modes.includes('spin')) {
      // Development mode: the sandbox wallet is plain HTTP on loopback (production requires HTTPS).
      const extra = {
        NODE_ENV: 'development',
        SIGNED_REQUESTS: 'required',
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        API_PROCESSES: String(apis),
      };
      api =
        apis > 1 ? await stack.startApi(extra, 'services/api/src/cluster.ts') : await stack.startApi(extra);
      await waitForApiProcesses(api.pid, apis);
      await adminCall(api.origin, 'POST', '/api/admin/v1/operators', {
        operator_id: OPERATOR,
        name: 'Bench',
        default_currency: 'EUR',
        wallet_base_url: `${walletBase}/wallet`,
        wallet_secret: WALLET_SECRET,
      });
      operatorKey = (await adminCall(api.origin, 'POST', `/api/admin/v1/operators/${OPERATOR}/api-keys`, {}))
        .data.api_key;
    } else {
      await stack.pool.query(
        `INSERT INTO operators (operator_id, name, default_currency, wallet_base_url, wallet_secret_enc)
         VALUES ($1, 'Bench', 'EUR', $2, $3)`,
        [OPERATOR, `${walletBase}/wallet`, box.encrypt(WALLET_SECRET)],
      );
    }
    const family = o.modes.includes('spin') ? 'prov_a' : 'prov_b';
    const symbol = (
      await stack.pool.query<{ symbol: string }>(
        `SELECT g.symbol FROM games g WHERE g.provider_id = $1 AND ($1 <> 'prov_a' OR EXISTS (
           SELECT 1 FROM release_registry r WHERE r.symbol = g.symbol AND r.status = 'accepted'
             AND r.registry_version = g.installed_version)) ORDER BY g.symbol LIMIT 1`,
        [family],
      )
    ).rows[0]!.symbol;
    if (api)
      await adminCall(api.origin, 'PUT', `/api/admin/v1/operators/${OPERATOR}/games/${symbol}`, {
        enabled: true,
      });

    // One player and session per concurrent client, each with plenty of money.
    const players: { pk: string; ext: string; session: string; token: string }[] = [];
    for (let i = 0; i < o.concurrency; i++) {
      const ext = `bench-${i}-${randomUUID().slice(0, 6)}`;
      await walletAdmin.createPlayer({
        operatorId: OPERATOR,
        playerId: ext,
        currency: 'EUR',
        balanceMinor: 10_000_000_000,
      });
      if (api) {
        const path = '/api/provider/v1/launch-url';
        const body = JSON.stringify({ symbol, external_player_id: ext, currency: 'EUR' });
        const res = await fetch(api.origin + path, {
          method: 'POST',
          headers: signedHeaders(operatorKey, 'POST', path, body),
          body,
        });
        const launched = (await res.json()) as { session_id: string; launch_url: string };
        if (res.status !== 200) throw new Error(`launch: ${res.status} ${JSON.stringify(launched)}`);
        const { rows } = await stack.pool.query<{ player_id: string }>(
          'SELECT player_id FROM sessions WHERE session_id = $1',
          [launched.session_id],
        );
        players.push({
          pk: rows[0]!.player_id,
          ext,
          session: launched.session_id,
          token: new URL(launched.launch_url).searchParams.get('mgckey')!,
        });
      } else {
        const p = { pk: `p_${randomUUID()}`, ext, session: `s_${randomUUID()}`, token: '' };
        await stack.pool.query(
          `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ($1, $2, $3, 'global')`,
          [p.pk, OPERATOR, p.ext],
        );
        await stack.pool.query(
          `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
           VALUES ($1, $2, $3, $4, $5, 'EUR')`,
          [p.session, OPERATOR, p.pk, symbol, family],
        );
        players.push(p);
      }
    }
    const intentFor = (i: number, p: (typeof players)[number]): RoundIntent => {
      const roundId = `r_${randomUUID()}`;
      return {
        roundId,
        operatorId: OPERATOR,
        sessionId: p.session,
        playerId: p.ext,
        gameSymbol: symbol,
        providerId: family,
        currency: 'EUR',
        actionType: 'spin',
        stakeMinor: '100',
        winMinor: String(i % 3 === 0 ? 250 : 0),
        transactions: transactionIdsFor(roundId),
      };
    };

    /** `concurrency` clients, each settling rounds one after another; latency per round. */
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
      return {
        rps: rounds / seconds,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        cpu: cpuPerUnit(cpu0, cpuSnapshot(), rounds),
      };
    }

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
    const viaTemporal = (local: boolean) => async (i: number, p: (typeof players)[number]) => {
      const intent = intentFor(i, p);
      await recordRound(stack.pool, { intent, playerPk: p.pk });
      const handle = await startSettlement(client, taskQueue, intent, { local });
      const outcome = await handle.result();
      if (outcome.status !== 'completed')
        throw new Error(`round ${intent.roundId}: ${JSON.stringify(outcome)}`);
    };
    const viaApi = async (_i: number, p: (typeof players)[number]) => {
      const res = await fetch(`${api!.origin}/api/runtime/spin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-token': p.token },
        body: '{"bet_minor":100}',
      });
      const body = (await res.json()) as { status: string; round_id?: string };
      if (res.status !== 200) throw new Error(`spin: ${res.status} ${JSON.stringify(body)}`);
      // A spin answers `pending` when its settlement outlasts the page's wait (a loaded machine):
      // the round counts once its workflow has settled it.
      const status =
        body.status === 'pending' && body.round_id
          ? ((await client.workflow.getHandle(body.round_id).result()) as { status: string }).status
          : body.status;
      if (status !== 'completed') throw new Error(`spin: ${res.status} ${JSON.stringify(body)} -> ${status}`);
    };
    const driver: Record<SettlementMode, (i: number, p: (typeof players)[number]) => Promise<void>> = {
      direct,
      local: viaTemporal(true),
      regular: viaTemporal(false),
      spin: viaApi,
    };
    const roundsOf = (m: SettlementMode) => (m === 'regular' ? Math.floor(o.rounds / 2) : o.rounds);

    log(
      `settlement: ${o.rounds} rounds per measurement, ${o.concurrency} concurrent clients, sandbox wallet on loopback, ` +
        `${workers} worker${workers > 1 ? 's' : ''}${o.modes.includes('spin') ? `, ${apis} API process${apis > 1 ? 'es' : ''}` : ''}`,
    );
    // Warm-up: JIT, connections, the workers' caches.
    for (const m of o.modes) if (m !== 'regular') await drive(Math.min(200, o.rounds), driver[m]);
    const rows: Partial<Record<SettlementMode, ModeResult[]>> = {};
    for (let run = 0; run < o.runs; run++) {
      const parts: string[] = [];
      for (const m of o.modes) {
        const r = await drive(roundsOf(m), driver[m]);
        rows[m] = [...(rows[m] ?? []), r];
        parts.push(
          m === 'direct'
            ? `direct ${fmt(r.rps, 0)}/s p50 ${fmt(r.p50, 2)} ms`
            : `${m === 'spin' ? 'spin via API' : `temporal+${m}`} ${fmt(r.rps, 0)}/s p50 ${fmt(r.p50, 2)} p99 ${fmt(r.p99, 2)} ms`,
        );
      }
      log(`run ${run + 1}: ${parts.join(' | ')}`);
    }
    const modes: SettlementBenchResult['modes'] = {};
    for (const m of o.modes) {
      const list = rows[m]!;
      modes[m] = {
        rps: median(list.map((r) => r.rps)),
        p50: median(list.map((r) => r.p50)),
        p99: median(list.map((r) => r.p99)),
        cpu: list[list.length - 1]!.cpu,
      };
    }
    log('\nCPU per round (ms, last run), by process');
    for (const m of o.modes)
      log(`  ${m.padEnd(8)} ${modes[m]!.cpu.map(([l, ms]) => `${l} ${fmt(ms, 2)}`).join(', ')}`);
    log(`\nmedians of ${o.runs} runs`);
    for (const m of o.modes) {
      const r = modes[m]!;
      log(
        `  ${m.padEnd(8)} ${fmt(r.rps, 0).padStart(6)} rounds/s   p50 ${fmt(r.p50, 2)} ms   p99 ${fmt(r.p99, 2)} ms`,
      );
    }
    if (modes.direct && (modes.local || modes.regular)) {
      const ratio = (m: ModeResult | undefined) => (m ? fmt(m.p50 / modes.direct!.p50, 2) : 'n/a');
      log(
        `  p50 ratio temporal/direct: local activities ${ratio(modes.local)}x, regular activities ${ratio(modes.regular)}x`,
      );
    }
    const check = await walletAdmin.ledgerCheck();
    log(`wallet ledger consistent: ${check.ok}`);
    await connection.close();
    for (const c of children) c.kill('SIGTERM');
    await temporal.stop();
    stopTemporal = undefined;
    return { workerProcesses: workers, apiProcesses: apis, modes, ledgerConsistent: check.ok };
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await stopTemporal?.().catch(() => {});
    await new Promise((r) => setTimeout(r, 500));
    await stack.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}
