import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@opi/config';
import { createSecretBox, type Pool } from '@opi/db';
import {
  findOrBuildTemporalCli,
  findOrBuildTemporalServer,
  freePort,
  setupTemporalSchema,
  startTemporalClusterServer,
  startTemporalDevServer,
  TEMPORAL_SERVER_VERSION,
  temporalPostgresFromUrl,
  waitForPort,
} from '@opi/devstack';
import {
  createLocalOutcomes,
  firstOutcome,
  LOCAL_OUTCOME_GRACE_MS,
} from '@opi/game-server/settlement/local-outcomes';
import { buildCallbackBody, type RoundIntent, sendWalletCallback, transactionIdsFor } from '@opi/wallet';
import { createWalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { migrateWallet } from '@opi/wallet-sandbox/migrate';
import {
  buildWorkflowBundle,
  createActivities,
  recordRound,
  startFloorRound,
  startSettlement,
} from '@opi/workflows';
import { installTemporalRuntime } from '@opi/workflows/worker';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { type CpuSnapshot, cpuPerUnit, cpuSnapshot, descendants, procTable } from './cpu.js';
import { spawnService as spawnBenchService, tearDown, waitForApiProcesses } from './processes.js';
import {
  admin as adminCall,
  BENCH_SERVICE_SECRET,
  type BenchStack,
  signedHeaders,
  startBenchStack,
} from './stack.js';
import { fmt, median, percentile } from './stats.js';

export type SettlementMode =
  /** The two wallet calls (debit, credit), signed, made directly: the physical baseline. */
  | 'direct'
  /**
   * The Temporal floor, not eager: floorRound (two no-op local activities) started from this
   * process on a plain client Connection and awaited as the API does; the standalone worker runs it.
   */
  | 'floor'
  /**
   * The Temporal floor, eager: the client is built on the NativeConnection of a worker in this
   * process (on the same task queue, same settings as the standalone one) and starts with
   * requestEagerStart, as the API's hosted worker does.
   */
  | 'floor-eager'
  /** Round + intent insert, then settleRound with local activities (the default), from this client. */
  | 'local'
  /** The same with regular activities. */
  | 'regular'
  /** POST /api/runtime/spin through the game-server processes, GAME_SETTLEMENT_WORKER=off (starts not eager). */
  | 'spin-off'
  /** The same with GAME_SETTLEMENT_WORKER=on (the default): a hosted worker per game-server process, eager starts. */
  | 'spin'
  /**
   * The same spin as `spin` (hosted worker on), by players of a second operator whose operator
   * jackpot holds the benchmark's title: two levels whose odds make hits rare (hit_every 10^12
   * and 10^15 minor units at a stake of 100), so what is measured is the contribution path (the
   * pools' row locks and updates in the spin's statement, the debit's jackpot fields, the round's
   * jackpot columns).
   */
  | 'spin-jackpot'
  /**
   * The same with frequent hits (a third operator's jackpot: its mini hits every 20 spins on
   * average, hit_every 2,000 at a stake of 100): each hit is one more `jackpot_win` credit,
   * journalled and sent after the round's credit. Reported apart.
   */
  | 'spin-jackpot-hits'
  /**
   * A free round of an operator's campaign through the same API (hosted worker on): POST
   * /api/runtime/spin with free_round true; the round is settled by its credit alone (no debit).
   * Its own players (a campaign would hold the others' paid spins).
   */
  | 'free';

export const SETTLEMENT_MODES: SettlementMode[] = [
  'direct',
  'floor',
  'floor-eager',
  'local',
  'regular',
  'spin-off',
  'spin',
  'spin-jackpot',
  'spin-jackpot-hits',
  'free',
];

/** Short names, as in MODES= and the table. */
export const MODE_NAME: Record<SettlementMode, string> = {
  direct: 'direct',
  floor: 'floor',
  'floor-eager': 'floor eager',
  local: 'local',
  regular: 'regular',
  'spin-off': 'spin off',
  spin: 'spin on',
  'spin-jackpot': 'spin jp',
  'spin-jackpot-hits': 'spin jp hit',
  free: 'free round',
};

/** The modes through the API (the others run without it). */
const isSpin = (m: SettlementMode) =>
  m === 'spin' || m === 'spin-off' || m === 'free' || m === 'spin-jackpot' || m === 'spin-jackpot-hits';
/** The jackpot modes (players of an operator of their own, whose operator jackpot holds the title). */
const isJackpot = (m: SettlementMode) => m === 'spin-jackpot' || m === 'spin-jackpot-hits';
/** Whether the mode's game-server process hosts a settlement worker. */
const hostsWorker = (m: SettlementMode) => m !== 'spin-off';

export interface SettlementBenchOptions {
  /** Rounds per measurement at the highest concurrency (regular activities: half). */
  rounds: number;
  /** Rounds per measurement at one client (default: a quarter of `rounds`). */
  serialRounds?: number;
  /** Concurrent clients: one level or several, each measured in the same run on the same stack. */
  concurrency: number | number[];
  /** Measurements per mode and concurrency; medians are reported. */
  runs: number;
  modes: SettlementMode[];
  /** Rounds of warm-up whenever a mode's processes are fresh (default min(200, rounds)). */
  warmupRounds?: number;
  /** Settlement workers on the task queue. */
  workerProcesses?: number;
  /** Game-server processes for the spin modes (services/game-server/src/cluster.ts); one API process beside them. */
  apiProcesses?: number;
  /**
   * Which Temporal: the CLI's dev server (default), or the real server (cluster: v1.32.1 on a second
   * embedded PostgreSQL of its own, as `npm run start:cluster` runs it). Default: TEMPORAL=cluster.
   */
  temporal?: 'dev' | 'cluster';
  /** The cluster's history shards (default HISTORY_SHARDS, else 4). */
  historyShards?: number;
  log?: (line: string) => void;
}

/** The Temporal server the benchmarks run on: TEMPORAL=cluster or a --cluster argument picks the real one. */
export function temporalFromEnv(argv: string[] = process.argv): 'dev' | 'cluster' {
  return process.env.TEMPORAL === 'cluster' || argv.includes('--cluster') ? 'cluster' : 'dev';
}

export interface ModeResult {
  rps: number;
  p50: number;
  p99: number;
  /** CPU per round by part of the stack, ms (last run). */
  cpu: [string, number][];
  /** How many rounds of the last run started eagerly, and ran in this (the client's) process (floor modes). */
  eager?: { started: number; inClient: number; of: number };
  /** How many rounds of the last run the standalone worker(s) settled (spin modes; the rest ran elsewhere). */
  standalone?: { rounds: number; of: number };
}

export interface SettlementBenchResult {
  /** The Temporal server measured on: `dev server` or `cluster (N shards)`. */
  temporal: string;
  workerProcesses: number;
  apiProcesses: number;
  /** The concurrency levels measured, in order. */
  concurrency: number[];
  /** Results per concurrency level. */
  byConcurrency: Record<number, Partial<Record<SettlementMode, ModeResult>>>;
  /** Results at the last (highest) concurrency level. */
  modes: Partial<Record<SettlementMode, ModeResult>>;
  ledgerConsistent: boolean;
}

const WALLET_SECRET = 'wsec_bench_secret_0123456789abcdef';
const ADMIN_TOKEN = 'bench-wallet-admin-token-0123';
const OPERATOR = 'op_bench';
/** The standalone workers' and the hosted workers' concurrency (WORKER_MAX_*), and the in-process one's. */
const MAX_ACTIVITIES = 200;
const MAX_WORKFLOW_TASKS = 200;

type Player = { pk: string; ext: string; session: string; token: string };

/** The free-round campaign's stake (the paid spins' too). */
const FREE_ROUND_BET_MINOR = 100;
/** Rounds per player of the bench's campaign: the most the operator API allows (FREE_ROUNDS_MAX). */
const FREE_ROUNDS_MAX = 1000;
type RoundInfo = { eager?: boolean; inClient?: boolean } | undefined;

/**
 * Settlement throughput and latency against its floors, on one stack: the direct path (the two
 * wallet calls), the Temporal floor (a no-op workflow of the same shape, eager and not), rounds
 * started by this client, and spins through the API with its hosted worker on and off; each at
 * every concurrency level (clients each settling rounds one after another).
 */
export async function runSettlementBench(o: SettlementBenchOptions): Promise<SettlementBenchResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const workers = o.workerProcesses ?? 1;
  const apis = o.apiProcesses ?? 1;
  const levels = (Array.isArray(o.concurrency) ? o.concurrency : [o.concurrency]).filter((c) => c > 0);
  const maxClients = Math.max(...levels);
  const modesInOrder = SETTLEMENT_MODES.filter((m) => o.modes.includes(m));
  const cluster = (o.temporal ?? temporalFromEnv([])) === 'cluster';
  const shards = o.historyShards ?? Number(process.env.HISTORY_SHARDS ?? 4);
  const temporalName = cluster
    ? `Temporal server v${TEMPORAL_SERVER_VERSION} on its own PostgreSQL, ${shards} history shard${shards > 1 ? 's' : ''}`
    : 'Temporal CLI dev server';
  const s = await startSettlementServices({ cluster, shards, workers, apis, modesInOrder, log });
  try {
    const players = await setUpPlayers(s, modesInOrder, maxClients);
    const drivers = modeDrivers(s, players);
    const plan: MeasurementPlan = {
      levels,
      modesInOrder,
      runs: o.runs,
      roundsAt: (m, clients) => {
        const n = clients === 1 && levels.length > 1 ? (o.serialRounds ?? Math.ceil(o.rounds / 4)) : o.rounds;
        return m === 'regular' ? Math.max(1, Math.floor(n / 2)) : n;
      },
      warmup: o.warmupRounds ?? Math.min(200, o.rounds),
      maxClients,
    };
    log(
      `settlement on the ${temporalName}: ${levels.map((c) => `${c} client${c > 1 ? 's' : ''} (${plan.roundsAt('direct', c)} rounds)`).join(', ')} per measurement, ` +
        `${o.runs} run${o.runs > 1 ? 's' : ''}, modes ${modesInOrder.map((m) => MODE_NAME[m]).join(', ')}; ` +
        `sandbox wallet on loopback, ${workers} standalone worker${workers > 1 ? 's' : ''}` +
        (players.withApi ? `, 1 API process, ${apis} game-server process${apis > 1 ? 'es' : ''}` : ''),
    );
    const rows = await measureModes(s, drivers, plan, log);
    await s.stopApi();
    const { byConcurrency, ledgerConsistent } = await reportSettlement(s, rows, {
      levels,
      modesInOrder,
      runs: o.runs,
      workers,
      apis,
      temporal: temporalName,
      jackpots: players.jackpotOperators.size > 0,
      log,
    });
    return {
      temporal: cluster ? `cluster (${shards} shards)` : 'dev server',
      workerProcesses: workers,
      apiProcesses: apis,
      concurrency: levels,
      byConcurrency,
      modes: byConcurrency[levels[levels.length - 1]!]!,
      ledgerConsistent,
    };
  } finally {
    await s.stop();
  }
}

/** The operator API (launch, admin: `origin`) and the game server the spins reach (`game`). */
interface ApiProcesses {
  origin: string;
  game: string;
  pid: number;
  children: ChildProcess[];
  mode: SettlementMode;
}

/** The stack a settlement bench runs on: its processes, Temporal, the wallet and the clients. */
interface SettlementServices {
  stack: BenchStack;
  /** The CPU snapshot, the cluster's parts apart. */
  snapshot: () => CpuSnapshot;
  temporalAddress: string;
  bundlePath: string;
  taskQueue: string;
  /** The sandbox wallet's base URL and its admin client. */
  walletBase: string;
  walletAdmin: ReturnType<typeof createWalletAdminClient>;
  box: ReturnType<typeof createSecretBox>;
  /** Debits (or credits) the standalone workers have sent so far. */
  standaloneDebits: (type?: 'debit' | 'credit') => Promise<number>;
  /** The running API (spin modes), if any. */
  api(): ApiProcesses | undefined;
  /**
   * The API for a spin mode (GAME_SETTLEMENT_WORKER is read at start): one API at a time, so a
   * hosted worker never takes the tasks of another mode. Returns whether it is freshly started.
   */
  ensureApi(mode: SettlementMode): Promise<boolean>;
  stopApi(): Promise<void>;
  /** A plain client, and the eager one built on the NativeConnection its in-process worker polls on. */
  client: Client;
  nativeConnection: NativeConnection | undefined;
  eagerClient: Client | undefined;
  /** Everything down: the API, the clients, the processes, Temporal, the stack, the temp folder. */
  stop(): Promise<void>;
}

/**
 * Stack set-up: the bench stack (PostgreSQL), Temporal, the workflow bundle, the sandbox wallet,
 * the standalone workers, the API on demand, and the Temporal clients. On a failure what was
 * started is stopped again.
 */
async function startSettlementServices(o: {
  cluster: boolean;
  shards: number;
  workers: number;
  apis: number;
  modesInOrder: SettlementMode[];
  log: (line: string) => void;
}): Promise<SettlementServices> {
  const { cluster, shards, workers, apis, log } = o;
  const stack = await startBenchStack({ temporalPostgres: cluster });
  const children: ChildProcess[] = [];
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'opi-bench-temporal-'));
  /** A service process (the standalone workers: profiled and preloaded as WORKER_* ask). */
  const spawnService = (entry: string, env: Record<string, string>) => {
    const worker = entry.includes('worker');
    const profile = process.env.WORKER_CPU_PROF;
    const preload = process.env.WORKER_EXTRA_IMPORT;
    return spawnBenchService({
      entry,
      stackEnv: stack.env,
      env,
      children,
      nodeArgs: worker && profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
      imports: worker && preload ? [preload] : [],
    });
  };

  // Stopped by `stop` (also on a failed start): a failed measurement must not leave the Temporal
  // server running.
  let stopTemporal: (() => Promise<void>) | undefined;
  let connection: Connection | undefined;
  let nativeConnection: NativeConnection | undefined;
  let api: ApiProcesses | undefined;
  const stopApi = async () => {
    if (!api) return;
    const { children: running } = api;
    api = undefined;
    for (const child of running) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const stop = async () => {
    await stopApi().catch(() => {});
    await tearDown({ connections: [connection, nativeConnection], children, stopTemporal, stack, tmp });
  };
  try {
    await migrateWallet(stack.databaseUrl);
    const temporal = await startTemporal({ cluster, shards, stack, tmp, log });
    stopTemporal = () => temporal.stop();
    const bundlePath = await buildWorkflowBundle();

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

    // The standalone workers, each with a metrics port (its wallet callbacks tell which rounds it ran).
    const taskQueue = `bench-${randomUUID()}`;
    const workerMetrics: string[] = [];
    for (let i = 0; i < workers; i++) {
      const port = await freePort();
      workerMetrics.push(`http://127.0.0.1:${port}/metrics`);
      spawnService('services/worker/src/main.ts', {
        NODE_ENV: 'development',
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        WORKER_MAX_ACTIVITIES: String(MAX_ACTIVITIES),
        WORKER_MAX_WORKFLOW_TASKS: String(MAX_WORKFLOW_TASKS),
        WORKER_METRICS_PORT: String(port),
      });
    }

    const ensureApi = async (mode: SettlementMode): Promise<boolean> => {
      if (api && hostsWorker(api.mode) === hostsWorker(mode)) return false;
      await stopApi();
      // Development mode: the sandbox wallet is plain HTTP on loopback (production requires HTTPS).
      const extra = {
        NODE_ENV: 'development',
        SIGNED_REQUESTS: 'required',
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        GAME_PROCESSES: String(apis),
        GAME_SETTLEMENT_WORKER: hostsWorker(mode) ? 'on' : 'off',
        WORKER_MAX_ACTIVITIES: String(MAX_ACTIVITIES),
        WORKER_MAX_WORKFLOW_TASKS: String(MAX_WORKFLOW_TASKS),
        // The `spin-jackpot-hits` jackpot hits every 20th spin (half the stake back): no ceiling.
        JACKPOT_MAX_SHARE_PPM: 'none',
      };
      // The spins' side: `apis` game-server processes (each hosting a worker in the eager modes).
      const game =
        apis > 1
          ? await stack.startGameServer(extra, 'services/game-server/src/cluster.ts')
          : await stack.startGameServer(extra);
      // The operator API (launch and admin; it hosts no worker): its launch URLs name the game server.
      const operatorApi = await stack.startApi({ ...extra, GAME_BASE_URL: game.origin });
      api = {
        origin: operatorApi.origin,
        game: game.origin,
        pid: game.pid,
        children: [game.child, operatorApi.child],
        mode,
      };
      await waitForApiProcesses(game.pid, apis);
      return true;
    };

    connection = await Connection.connect({ address: temporal.address });
    const client = new Client({ connection });
    // The eager client: built on the NativeConnection its in-process worker polls on.
    let eagerClient: Client | undefined;
    if (o.modesInOrder.includes('floor-eager')) {
      // No signal handlers of the SDK's runtime in the bench process (Ctrl-C stops it as before),
      // and only its warnings, one JSON line each through the project's logger.
      installTemporalRuntime({ level: 'warn', log: createLogger('bench', 'warn'), shutdownSignals: [] });
      nativeConnection = await NativeConnection.connect({ address: temporal.address });
      eagerClient = new Client({ connection: nativeConnection });
    }
    return {
      stack,
      snapshot: clusterCpuSnapshot(cluster, stack),
      temporalAddress: temporal.address,
      bundlePath,
      taskQueue,
      walletBase,
      walletAdmin,
      box: createSecretBox(BENCH_SERVICE_SECRET),
      standaloneDebits: standaloneCallbacks(workerMetrics),
      api: () => api,
      ensureApi,
      stopApi,
      client,
      nativeConnection,
      eagerClient,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The players each mode's clients play as, and what they play. */
interface BenchPlayers {
  /** Whether the operator and players came through the API (a spin mode is measured). */
  withApi: boolean;
  symbol: string;
  family: RoundIntent['providerId'];
  /** One player and session per concurrent client (the plain modes). */
  players: Player[];
  /** The jackpot modes' operators, and their players. */
  jackpotOperators: Map<SettlementMode, { id: string; key: string }>;
  jackpotPlayers: Map<SettlementMode, Player[]>;
  /** The free-round players, each granted the most rounds a campaign allows. */
  freePlayers: Player[];
}

/**
 * The operator (through the admin API when the API runs, the spin modes, else directly), its title,
 * the jackpot modes' operators, and a player and session per concurrent client for every mode.
 */
async function setUpPlayers(
  s: SettlementServices,
  modesInOrder: SettlementMode[],
  maxClients: number,
): Promise<BenchPlayers> {
  const { stack, walletAdmin, walletBase } = s;
  let operatorKey = '';
  const withApi = modesInOrder.some(isSpin);
  if (withApi) {
    await s.ensureApi(modesInOrder.find(isSpin)!);
    await adminCall(s.api()!.origin, 'POST', '/api/admin/v1/operators', {
      operator_id: OPERATOR,
      name: 'Bench',
      default_currency: 'EUR',
      wallet_base_url: `${walletBase}/wallet`,
      wallet_secret: WALLET_SECRET,
    });
    operatorKey = (
      await adminCall(s.api()!.origin, 'POST', `/api/admin/v1/operators/${OPERATOR}/api-keys`, {})
    ).data.api_key;
  } else {
    await stack.pool.query(
      `INSERT INTO operators (operator_id, name, default_currency, wallet_base_url, wallet_secret_enc)
       VALUES ($1, 'Bench', 'EUR', $2, $3)`,
      [OPERATOR, `${walletBase}/wallet`, s.box.encrypt(WALLET_SECRET)],
    );
  }
  const family = withApi ? 'prov_a' : 'prov_b';
  const symbol = (
    await stack.pool.query<{ symbol: string }>(
      `SELECT g.symbol FROM games g WHERE g.provider_id = $1 AND ($1 <> 'prov_a' OR EXISTS (
         SELECT 1 FROM release_registry r WHERE r.symbol = g.symbol AND r.status = 'accepted'
           AND r.registry_version = g.installed_version)) ORDER BY g.symbol LIMIT 1`,
      [family],
    )
  ).rows[0]!.symbol;
  if (withApi)
    await adminCall(s.api()!.origin, 'PUT', `/api/admin/v1/operators/${OPERATOR}/games/${symbol}`, {
      enabled: true,
    });
  // The jackpot modes: an operator each (the same wallet), whose operator jackpot holds the title.
  // The same game-server processes serve them and the plain spins, so the two differ only by the
  // jackpot the spin's statement feeds.
  const jackpotOperators = new Map<SettlementMode, { id: string; key: string }>();
  for (const m of modesInOrder.filter(isJackpot)) {
    const origin = s.api()!.origin;
    const id = m === 'spin-jackpot' ? 'op_bench_jp' : 'op_bench_jph';
    await adminCall(origin, 'POST', '/api/admin/v1/operators', {
      operator_id: id,
      name: `Bench ${MODE_NAME[m]}`,
      default_currency: 'EUR',
      wallet_base_url: `${walletBase}/wallet`,
      wallet_secret: WALLET_SECRET,
    });
    const key = (await adminCall(origin, 'POST', `/api/admin/v1/operators/${id}/api-keys`, {})).data.api_key;
    await adminCall(origin, 'PUT', `/api/admin/v1/operators/${id}/games/${symbol}`, { enabled: true });
    await walletAdmin.setSecret(id, WALLET_SECRET);
    await adminCall(
      origin,
      'PUT',
      `/api/admin/v1/jackpots/bench-${m}`,
      benchJackpot(id, symbol, m === 'spin-jackpot-hits'),
    );
    jackpotOperators.set(m, { id, key });
  }

  /** A session of `ext` launched through the API (signed, as an operator does). */
  const launchFor = async (ext: string, operator?: { id: string; key: string }): Promise<Player> => {
    const path = '/api/provider/v1/launch-url';
    const body = JSON.stringify({ symbol, external_player_id: ext, currency: 'EUR' });
    const res = await fetch(s.api()!.origin + path, {
      method: 'POST',
      headers: signedHeaders(operator?.key ?? operatorKey, 'POST', path, body),
      body,
    });
    const launched = (await res.json()) as { session_id: string; launch_url: string };
    if (res.status !== 200) throw new Error(`launch: ${res.status} ${JSON.stringify(launched)}`);
    const { rows } = await stack.pool.query<{ player_id: string }>(
      'SELECT player_id FROM sessions WHERE session_id = $1',
      [launched.session_id],
    );
    return {
      pk: rows[0]!.player_id,
      ext,
      session: launched.session_id,
      token: new URL(launched.launch_url).searchParams.get('mgckey')!,
    };
  };
  // One player and session per concurrent client, each with plenty of money.
  const players: Player[] = [];
  const newPlayer = async (
    i: number,
    prefix: string,
    operator?: { id: string; key: string },
  ): Promise<Player> => {
    const ext = `${prefix}-${i}-${randomUUID().slice(0, 6)}`;
    await walletAdmin.createPlayer({
      operatorId: operator?.id ?? OPERATOR,
      playerId: ext,
      currency: 'EUR',
      balanceMinor: 10_000_000_000,
    });
    if (withApi) {
      return launchFor(ext, operator);
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
      return p;
    }
  };
  for (let i = 0; i < maxClients; i++) players.push(await newPlayer(i, 'bench'));
  // The jackpot modes' players: their operators' own.
  const jackpotPlayers = new Map<SettlementMode, Player[]>();
  for (const [m, operator] of jackpotOperators) {
    const list: Player[] = [];
    for (let i = 0; i < maxClients; i++) list.push(await newPlayer(i, m, operator));
    jackpotPlayers.set(m, list);
  }
  // Free rounds: players of their own, each granted the most rounds a campaign allows.
  const freePlayers: Player[] = [];
  if (modesInOrder.includes('free')) {
    const grant: Player[] = [];
    for (let i = 0; i < maxClients; i++) {
      const ext = `free-${i}-${randomUUID().slice(0, 6)}`;
      await walletAdmin.createPlayer({
        operatorId: OPERATOR,
        playerId: ext,
        currency: 'EUR',
        balanceMinor: 0,
      });
      grant.push({ pk: '', ext, session: '', token: '' });
    }
    const path = '/api/provider/v1/free-rounds';
    const body = JSON.stringify({
      campaign_id: `bench-${randomUUID().slice(0, 8)}`,
      symbols: [symbol],
      currency: 'EUR',
      bet_minor: FREE_ROUND_BET_MINOR,
      rounds: FREE_ROUNDS_MAX,
      valid_from: new Date(Date.now() - 60_000).toISOString(),
      expires_at: new Date(Date.now() + 24 * 3600_000).toISOString(),
      players: grant.map((p) => p.ext),
    });
    const res = await fetch(s.api()!.origin + path, {
      method: 'POST',
      headers: signedHeaders(operatorKey, 'POST', path, body),
      body,
    });
    if (res.status >= 300) throw new Error(`free-round campaign: ${res.status} ${await res.text()}`);
    for (const g of grant) freePlayers.push(await launchFor(g.ext));
  }
  return { withApi, symbol, family, players, jackpotOperators, jackpotPlayers, freePlayers };
}

type Driver = (i: number, p: Player) => Promise<RoundInfo>;

/** Each mode's round (what one client does per round), the players it plays as, and what it tracks. */
interface ModeDrivers {
  driver: Record<SettlementMode, Driver>;
  poolOf(m: SettlementMode): Player[];
  /** The workflow id of the last round a Temporal mode started (its history is reported). */
  last: { workflowId: string | undefined };
  /** The local outcomes the eager floor's in-process worker announces. */
  outcomes: ReturnType<typeof createLocalOutcomes>;
}

/** The modes: one round of each, as its client plays it. */
function modeDrivers(s: SettlementServices, p: BenchPlayers): ModeDrivers {
  const { client, eagerClient, taskQueue, walletBase, stack } = s;
  const last: ModeDrivers['last'] = { workflowId: undefined };
  const intentFor = (i: number, player: Player): RoundIntent => {
    const roundId = `r_${randomUUID()}`;
    return {
      roundId,
      operatorId: OPERATOR,
      sessionId: player.session,
      playerId: player.ext,
      gameSymbol: p.symbol,
      providerId: p.family,
      currency: 'EUR',
      actionType: 'spin',
      stakeMinor: '100',
      winMinor: String(i % 3 === 0 ? 250 : 0),
      transactions: transactionIdsFor(roundId),
    };
  };
  const direct: Driver = async (i, player) => {
    const intent = intentFor(i, player);
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
    return undefined;
  };
  // The eager floor awaits its rounds as an API process does (services/api/src/settlement/
  // start-round.ts): the outcome its own worker's last step announces, else the workflow's result.
  const outcomes = createLocalOutcomes();
  const floor =
    (eager: boolean): Driver =>
    async (i, player) => {
      const intent = intentFor(i, player);
      last.workflowId = intent.roundId;
      const local = eager ? outcomes.wait(intent.roundId) : undefined;
      // FLOOR_ONE_STEP=1: the floor with one no-op local activity instead of two (an experiment).
      const handle = await startFloorRound(eager ? eagerClient! : client, taskQueue, intent, {
        eager,
        oneStep: process.env.FLOOR_ONE_STEP === '1',
      });
      const first = await firstOutcome({
        local,
        eager: handle.eagerlyStarted,
        result: () => handle.result(),
        graceMs: LOCAL_OUTCOME_GRACE_MS,
      });
      const inClient =
        first!.announced ||
        ('pids' in first!.outcome && first!.outcome.pids.every((pid) => pid === process.pid));
      return { eager: handle.eagerlyStarted, inClient };
    };
  const viaTemporal =
    (local: boolean): Driver =>
    async (i, player) => {
      const intent = intentFor(i, player);
      await recordRound(stack.pool, { intent, playerPk: player.pk });
      const handle = await startSettlement(client, taskQueue, intent, { local });
      const outcome = await handle.result();
      if (outcome.status !== 'completed')
        throw new Error(`round ${intent.roundId}: ${JSON.stringify(outcome)}`);
      return undefined;
    };
  const viaApi =
    (request: string): Driver =>
    async (_i, player) => {
      const res = await fetch(`${s.api()!.game}/api/runtime/spin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-token': player.token },
        body: request,
      });
      const body = (await res.json()) as { status: string; round_id?: string };
      if (res.status !== 200) throw new Error(`spin: ${res.status} ${JSON.stringify(body)}`);
      if (body.round_id) last.workflowId = body.round_id;
      // A spin answers `pending` when its settlement outlasts the page's wait (a loaded machine):
      // the round counts once its workflow has settled it.
      const status =
        body.status === 'pending' && body.round_id
          ? ((await client.workflow.getHandle(body.round_id).result()) as { status: string }).status
          : body.status;
      if (status !== 'completed') throw new Error(`spin: ${res.status} ${JSON.stringify(body)} -> ${status}`);
      return undefined;
    };
  return {
    driver: {
      direct,
      floor: floor(false),
      'floor-eager': floor(true),
      local: viaTemporal(true),
      regular: viaTemporal(false),
      'spin-off': viaApi('{"bet_minor":100}'),
      spin: viaApi('{"bet_minor":100}'),
      'spin-jackpot': viaApi('{"bet_minor":100}'),
      'spin-jackpot-hits': viaApi('{"bet_minor":100}'),
      free: viaApi(`{"bet_minor":${FREE_ROUND_BET_MINOR},"free_round":true}`),
    },
    poolOf: (m) => (m === 'free' ? p.freePlayers : isJackpot(m) ? p.jackpotPlayers.get(m)! : p.players),
    last,
    outcomes,
  };
}

/** `clients` clients, each settling rounds one after another; latency per round. */
async function drive(
  snapshot: () => CpuSnapshot,
  rounds: number,
  clients: number,
  one: Driver,
  pool: Player[],
) {
  let next = 0;
  const latencies: number[] = [];
  let eager = 0;
  let inClient = 0;
  const cpu0 = snapshot();
  const t0 = performance.now();
  await Promise.all(
    pool.slice(0, clients).map(async (p) => {
      for (;;) {
        const i = next++;
        if (i >= rounds) return;
        const s = performance.now();
        const info = await one(i, p);
        latencies.push(performance.now() - s);
        if (info?.eager) eager++;
        if (info?.inClient) inClient++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return {
    rps: rounds / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpu: cpuPerUnit(cpu0, snapshot(), rounds),
    eager: { started: eager, inClient, of: rounds },
  };
}

/** What is measured: the levels, the modes, the runs, the rounds per measurement and of warm-up. */
interface MeasurementPlan {
  levels: number[];
  modesInOrder: SettlementMode[];
  runs: number;
  roundsAt(m: SettlementMode, clients: number): number;
  warmup: number;
  maxClients: number;
}

/**
 * Interleaved: every other run measures the jackpot spin before the plain one (both run on the
 * same game-server processes), so that neither always comes first.
 */
function runOrder(modesInOrder: SettlementMode[], run: number): SettlementMode[] {
  const i = modesInOrder.indexOf('spin');
  const j = modesInOrder.indexOf('spin-jackpot');
  if (run % 2 === 0 || i < 0 || j < 0) return modesInOrder;
  const order = [...modesInOrder];
  order[i] = 'spin-jackpot';
  order[j] = 'spin';
  return order;
}

/**
 * The measurement: every run, every mode (its processes started as it needs them, warmed up when
 * fresh), every concurrency level; a line per measurement, and the results by `mode@clients`.
 */
async function measureModes(
  s: SettlementServices,
  d: ModeDrivers,
  plan: MeasurementPlan,
  log: (line: string) => void,
): Promise<Map<string, ModeResult[]>> {
  const { stack, snapshot } = s;
  const { levels } = plan;
  // PG_STAT_STATEMENTS=1 (the bench stack loads the extension): each measurement's statements;
  // on the cluster also the Temporal server's own, on its PostgreSQL (where a round's cost goes
  // inside Temporal).
  const statements = process.env.PG_STAT_STATEMENTS === '1' || process.env.PG_STAT_STATEMENTS === 'all';
  const temporalStatements = statements ? stack.temporalPostgres?.statementsPool : undefined;
  const rows = new Map<string, ModeResult[]>();
  const key = (m: SettlementMode, c: number) => `${m}@${c}`;
  const warmed = new Set<SettlementMode>();
  for (let run = 0; run < plan.runs; run++) {
    for (const m of runOrder(plan.modesInOrder, run)) {
      // Only the spin modes run beside an API (its hosted worker would take the others' tasks).
      let fresh = false;
      if (isSpin(m)) fresh = await s.ensureApi(m);
      else await s.stopApi();
      // The eager floor's worker lives for the mode's measurements, like an API's hosted worker.
      let inProcess: { worker: Worker; running: Promise<void> } | undefined;
      if (m === 'floor-eager') {
        const worker = await Worker.create({
          connection: s.nativeConnection!,
          taskQueue: s.taskQueue,
          workflowBundle: { codePath: s.bundlePath },
          activities: createActivities({
            pool: stack.pool,
            box: s.box,
            settlement: { walletTimeoutMs: 10_000, requireHttps: false, announce: d.outcomes.announce },
          }),
          maxConcurrentActivityTaskExecutions: MAX_ACTIVITIES,
          maxConcurrentWorkflowTaskExecutions: MAX_WORKFLOW_TASKS,
        });
        inProcess = { worker, running: worker.run() };
        fresh = true;
      }
      try {
        // Warm-up (JIT, connections, caches) whenever the mode's processes are new.
        if ((fresh || !warmed.has(m)) && plan.warmup > 0) {
          const rounds = m === 'regular' ? Math.ceil(plan.warmup / 2) : plan.warmup;
          await drive(snapshot, rounds, plan.maxClients, d.driver[m], d.poolOf(m));
          warmed.add(m);
        }
        for (const c of levels) {
          const rounds = plan.roundsAt(m, c);
          const settledBy = m === 'free' ? 'credit' : 'debit';
          const debits0 = isSpin(m) ? await s.standaloneDebits(settledBy) : 0;
          if (statements) await stack.pool.query('SELECT pg_stat_statements_reset()');
          if (temporalStatements) await temporalStatements.query('SELECT pg_stat_statements_reset()');
          if (IDLE_SECONDS > 0 && c === levels[levels.length - 1]) {
            // The processes' CPU while nothing is asked of them (long polls, timers, background
            // writers): a slower mode divides more of it into each round.
            const idle0 = snapshot();
            await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
            const idle = cpuPerUnit(idle0, snapshot(), IDLE_SECONDS);
            log(
              `idle CPU before ${MODE_NAME[m]}, ms per second: ` +
                idle.map(([name, ms]) => `${name} ${fmt(ms, 2)}`).join(', '),
            );
          }
          d.last.workflowId = undefined;
          const r = await drive(snapshot, rounds, c, d.driver[m], d.poolOf(m));
          if (d.last.workflowId && c === levels[levels.length - 1] && run === 0)
            log(await historyReport(s.client, d.last.workflowId, MODE_NAME[m]));
          if (statements) log(await statementReport(stack.pool, rounds, `${MODE_NAME[m]} at ${c}`));
          if (temporalStatements)
            log(
              await statementReport(temporalStatements, rounds, `${MODE_NAME[m]} at ${c}`, {
                of: "Temporal's PostgreSQL",
                databases: true,
              }),
            );
          const result: ModeResult = { rps: r.rps, p50: r.p50, p99: r.p99, cpu: r.cpu };
          if (m === 'floor' || m === 'floor-eager') result.eager = r.eager;
          if (isSpin(m))
            result.standalone = { rounds: (await s.standaloneDebits(settledBy)) - debits0, of: rounds };
          rows.set(key(m, c), [...(rows.get(key(m, c)) ?? []), result]);
          log(
            `run ${run + 1}, ${String(c).padStart(3)} client${c > 1 ? 's' : ' '}: ${MODE_NAME[m].padEnd(11)} ` +
              `${fmt(r.rps, 0).padStart(5)} rounds/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms` +
              noteOf(result),
          );
        }
      } finally {
        if (inProcess) {
          inProcess.worker.shutdown();
          await inProcess.running;
        }
      }
    }
  }
  return rows;
}

/**
 * Report printing: the medians table, the jackpot comparison and pools (when measured), and
 * whether the wallet's ledger is consistent.
 */
async function reportSettlement(
  s: SettlementServices,
  rows: Map<string, ModeResult[]>,
  o: {
    levels: number[];
    modesInOrder: SettlementMode[];
    runs: number;
    workers: number;
    apis: number;
    temporal: string;
    jackpots: boolean;
    log: (line: string) => void;
  },
): Promise<{ byConcurrency: SettlementBenchResult['byConcurrency']; ledgerConsistent: boolean }> {
  const { levels, log } = o;
  const byConcurrency = mediansByConcurrency(rows, levels, o.modesInOrder);
  const check = await s.walletAdmin.ledgerCheck();
  log('');
  log(
    settlementTable({
      byConcurrency,
      levels,
      runs: o.runs,
      workers: o.workers,
      apis: o.apis,
      temporal: o.temporal,
    }),
  );
  const jackpotLines = jackpotComparison(rows, levels);
  if (jackpotLines) log(jackpotLines);
  if (o.jackpots) log(await jackpotPoolReport(s.stack.pool));
  log(`wallet ledger consistent: ${check.ok}`);
  return { byConcurrency, ledgerConsistent: check.ok };
}

/**
 * The CPU snapshot of cpu.ts, with the cluster's parts apart: the Temporal server's process is
 * `temporal server`, and the second PostgreSQL's process tree (its postmaster and backends) is
 * `temporal postgresql`, taken out of `postgresql` (the platform's and the wallet's).
 */
function clusterCpuSnapshot(cluster: boolean, stack: BenchStack): () => CpuSnapshot {
  return () => {
    const s = cpuSnapshot();
    if (!cluster) return s;
    const server = s.get(DEV_SERVER_LABEL);
    if (server !== undefined) {
      s.delete(DEV_SERVER_LABEL);
      s.set(CLUSTER_SERVER_LABEL, server);
    }
    const tpg = stack.temporalPostgres ? postgresTreeSeconds(stack.temporalPostgres.pid) : undefined;
    if (tpg !== undefined) {
      s.set('postgresql', (s.get('postgresql') ?? 0) - tpg);
      s.set(TEMPORAL_PG_LABEL, tpg);
    }
    return s;
  };
}

/**
 * The Temporal server the bench measures on: the real server on its own PostgreSQL (`cluster`), or
 * the CLI's dev server; its files and log in `tmp`.
 */
async function startTemporal(o: {
  cluster: boolean;
  shards: number;
  stack: BenchStack;
  tmp: string;
  log: (line: string) => void;
}): Promise<{ address: string; stop(): Promise<void> }> {
  const { cluster, shards, stack, tmp, log } = o;
  if (cluster) {
    // The real server, everything else as with the dev server: the schema by its tool on the
    // second PostgreSQL, deploy/temporal/config.yaml and dynamicconfig.yaml (eager workflow start
    // is on by default there too; the floor-eager mode checks it), its log in the temp folder.
    const binaries = await findOrBuildTemporalServer({ log });
    const tpg = temporalPostgresFromUrl(stack.temporalPostgres!.url);
    await setupTemporalSchema({ sqlTool: binaries.sqlTool, pg: tpg });
    if (process.env.TEMPORAL_DB || process.env.TEMPORAL_DYNAMIC_CONFIG)
      log('TEMPORAL_DB and TEMPORAL_DYNAMIC_CONFIG apply to the dev server only: ignored on the cluster');
    const server = await startTemporalClusterServer({
      binaries,
      pg: tpg,
      numHistoryShards: shards,
      namespace: 'default',
      // TEMPORAL_LOG=<file>: keep the server's log (default: in the temp folder, removed at the end).
      logFile: process.env.TEMPORAL_LOG ?? path.join(tmp, 'temporal-server.log'),
      processName: 'bench-temporal-server',
    });
    return server;
  } else {
    const cli = await findOrBuildTemporalCli({
      ...(process.env.TEMPORAL_CLI_PATH ? { explicitPath: process.env.TEMPORAL_CLI_PATH } : {}),
    });
    // Eager workflow start needs no dynamic config: system.enableEagerWorkflowStart defaults to true
    // on the CLI's server (v1.29); the floor-eager mode checks that every start was eager.
    return startTemporalDevServer({
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
  }
}

/**
 * Debits (credits: free rounds have none) the standalone workers have sent so far, from their
 * metrics; NaN if unknown.
 */
function standaloneCallbacks(workerMetrics: string[]) {
  return async (type: 'debit' | 'credit' = 'debit'): Promise<number> => {
    let total = 0;
    for (const url of workerMetrics) {
      try {
        const text = await (await fetch(url)).text();
        for (const line of text.split('\n'))
          if (new RegExp(`^opi_wallet_callback_duration_seconds_count\\{[^}]*type="${type}"`).test(line))
            total += Number(line.slice(line.lastIndexOf(' ') + 1));
      } catch {
        return Number.NaN;
      }
    }
    return total;
  };
}

/** Each mode's medians over its runs, per concurrency level; the CPU and start notes of its last run. */
function mediansByConcurrency(
  rows: Map<string, ModeResult[]>,
  levels: number[],
  modesInOrder: SettlementMode[],
): SettlementBenchResult['byConcurrency'] {
  const byConcurrency: SettlementBenchResult['byConcurrency'] = {};
  for (const c of levels) {
    const at: Partial<Record<SettlementMode, ModeResult>> = {};
    for (const m of modesInOrder) {
      const list = rows.get(`${m}@${c}`)!;
      const last = list[list.length - 1]!;
      at[m] = {
        rps: median(list.map((r) => r.rps)),
        p50: median(list.map((r) => r.p50)),
        p99: median(list.map((r) => r.p99)),
        cpu: last.cpu,
        ...(last.eager ? { eager: last.eager } : {}),
        ...(last.standalone ? { standalone: last.standalone } : {}),
      };
    }
    byConcurrency[c] = at;
  }
  return byConcurrency;
}

/**
 * What one round's workflow weighs in Temporal (issue 27: the server's cost per round against the
 * floor's): its history's events by type, and the bytes of every payload in it (input, local
 * activity markers, result). Printed once per Temporal mode, for the last round of its first run
 * at the highest concurrency.
 */
export async function historyReport(client: Client, workflowId: string, label: string): Promise<string> {
  try {
    const handle = client.workflow.getHandle(workflowId);
    // The round may have answered before its last workflow task reached the server.
    await handle.result();
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    const types = new Map<string, number>();
    for (const e of events) {
      const name = EVENT_TYPES[Number(e.eventType)] ?? String(e.eventType);
      types.set(name, (types.get(name) ?? 0) + 1);
    }
    return (
      `history of one round (${label}): ${events.length} events, payloads ${payloadBytes(events)} bytes: ` +
      [...types].map(([t, n]) => (n > 1 ? `${t} x${n}` : t)).join(', ')
    );
  } catch (err) {
    return `history of one round (${label}): not read (${(err as Error).message})`;
  }
}

/** IDLE_SECONDS=N: measure each process's CPU while idle for N s before each mode's measurement. */
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 0);

/** temporal.api.enums.v1.EventType numbers of the events a round's workflow writes. */
const EVENT_TYPES: Record<number, string> = {
  1: 'started',
  2: 'completed',
  3: 'failed',
  5: 'task scheduled',
  6: 'task started',
  7: 'task completed',
  8: 'task timed out',
  9: 'task failed',
  10: 'activity scheduled',
  11: 'activity started',
  12: 'activity completed',
  25: 'marker',
  26: 'signaled',
};

/** The bytes of every payload (an object with `metadata` and `data`) anywhere under `value`. */
export function payloadBytes(value: unknown, seen = new Set<unknown>()): number {
  if (value === null || typeof value !== 'object' || seen.has(value)) return 0;
  seen.add(value);
  if (value instanceof Uint8Array) return 0;
  const o = value as { metadata?: unknown; data?: unknown };
  if (o.metadata && typeof o.metadata === 'object' && o.data instanceof Uint8Array) {
    let bytes = o.data.byteLength;
    for (const v of Object.values(o.metadata as Record<string, unknown>))
      if (v instanceof Uint8Array) bytes += v.byteLength;
    return bytes;
  }
  let total = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) total += payloadBytes(v, seen);
  return total;
}

/**
 * The statements PostgreSQL ran during one measurement: calls and execution time per round. `of`
 * names the server in the heading (Temporal's); `databases` tags each statement with its database
 * when it is not the first one listed (Temporal's visibility store: `[temporal_visibility]`).
 */
async function statementReport(
  pool: Pool,
  rounds: number,
  label: string,
  o: { of?: string; databases?: boolean } = {},
): Promise<string> {
  const { rows } = await pool.query<{
    query: string;
    calls: string;
    exec: number;
    plan: number;
    rows: string;
    db: string | null;
  }>(
    `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls, total_exec_time AS exec,
            total_plan_time AS plan, rows, (SELECT datname FROM pg_database d WHERE d.oid = s.dbid) AS db
       FROM pg_stat_statements s
      WHERE query NOT LIKE '%pg_stat_statements%'
      ORDER BY total_exec_time + total_plan_time DESC LIMIT 40`,
  );
  const total = rows.reduce((sum, r) => sum + r.exec + r.plan, 0);
  const calls = rows.reduce((sum, r) => sum + Number(r.calls), 0);
  const lines = [
    `pg_stat_statements${o.of ? ` (${o.of})` : ''}, ${label} client(s): per round ${fmt(calls / rounds, 2)} statements, ${fmt(total / rounds, 2)} ms`,
  ];
  for (const r of rows)
    lines.push(
      `  ${fmt(Number(r.calls) / rounds, 2).padStart(5)} calls ${fmt((r.exec + r.plan) / rounds, 3).padStart(7)} ms ` +
        (r.plan > 0 ? `(plan ${fmt(r.plan / rounds, 3)}) ` : '') +
        `${o.databases && r.db && r.db !== 'temporal' ? `[${r.db}] ` : ''}${r.query.slice(0, 150)}`,
    );
  return lines.join('\n');
}

const DEV_SERVER_LABEL = 'temporal dev server';
const CLUSTER_SERVER_LABEL = 'temporal server';
const TEMPORAL_PG_LABEL = 'temporal postgresql';

/**
 * CPU seconds of one PostgreSQL server's process tree: its postmaster and every descendant, user +
 * system + reaped children's (as cpu.ts counts, so a backend that ends keeps counting in its
 * parent); undefined when the postmaster is gone. Linux /proc.
 */
function postgresTreeSeconds(postmaster: number): number | undefined {
  const table = procTable();
  if (!table.has(postmaster)) return undefined;
  let seconds = 0;
  // Only what cpu.ts labels `postgresql` (a backend's title names its database, `temporal`: never
  // the dev server's pattern, but checked as cpu.ts checks it, first).
  for (const pid of descendants(table, postmaster)) {
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (/postgres/.test(cmd) && !/\btemporal\b.*server/.test(cmd)) seconds += table.get(pid)!.seconds;
  }
  return seconds;
}

/**
 * The jackpot modes' definition: an operator jackpot of `operatorId` over the title, two levels
 * (mini 0.5%, seed 10.00; mega 0.15%, seed 10,000.00). Rare hits: hit_every 10^12 and 10^15 minor
 * units (a spin of 1.00 hits the mini with probability 10^-10), so only contributions are
 * measured. Frequent (`hits`): the mini hits every 2,000 staked, one spin in 20 at 1.00.
 */
function benchJackpot(operatorId: string, symbol: string, hits: boolean) {
  return {
    name: hits ? 'Bench jackpot (frequent hits)' : 'Bench jackpot',
    scope: 'operator',
    operator_id: operatorId,
    titles: [symbol],
    levels: [
      {
        level: 'mini',
        contribution_rate_ppm: 5_000,
        currencies: { EUR: { seed_minor: 1_000, hit_every_minor: hits ? 2_000 : '1000000000000' } },
      },
      {
        level: 'mega',
        contribution_rate_ppm: 1_500,
        currencies: { EUR: { seed_minor: 1_000_000, hit_every_minor: '1000000000000000' } },
      },
    ],
  };
}

/** The jackpots' pools at the end: hits and contributions per level, and the rounds that fed each. */
async function jackpotPoolReport(pool: Pool): Promise<string> {
  const { rows } = await pool.query<{
    jackpot_id: string;
    level: string;
    hits: string;
    contributions_micros: string;
    wins_micros: string;
    rounds: string;
    hit_rows: string;
  }>(
    `SELECT p.jackpot_id, p.level, p.hits::text, p.contributions_micros::text, p.wins_micros::text,
            (SELECT count(*) FROM rounds r WHERE r.jackpot_id = p.jackpot_id)::text AS rounds,
            (SELECT count(*) FROM jackpot_hits h WHERE h.jackpot_id = p.jackpot_id AND h.level = p.level)::text AS hit_rows
       FROM jackpot_pools p ORDER BY p.jackpot_id, p.level`,
  );
  return [
    'jackpot pools at the end (every round of the run, warm-ups included):',
    ...rows.map(
      (r) =>
        `  ${r.jackpot_id} ${r.level}: ${r.rounds} rounds fed it, ${r.hits} hits (${r.hit_rows} jackpot_hits rows), ` +
        `contributions ${r.contributions_micros} micros, wins ${r.wins_micros} micros`,
    ),
  ].join('\n');
}

/**
 * The jackpot's cost: per concurrency level and per run, the plain spin (`spin on`) beside the
 * jackpot spins of the same run (interleaved), then the medians and ranges of rounds/s, p50 and
 * total CPU per spin, the median per-run difference of CPU per spin, and each process's median CPU
 * per spin over the runs.
 */
export function jackpotComparison(rows: Map<string, ModeResult[]>, levels: number[]): string | undefined {
  const out: string[] = [];
  const total = (r: ModeResult) => r.cpu.reduce((s, [, ms]) => s + ms, 0);
  const range = (xs: number[], d = 1) =>
    `${fmt(median(xs), d)} (${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})`;
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${fmt(x, 2)}`;
  for (const jm of ['spin-jackpot', 'spin-jackpot-hits'] as const) {
    for (const c of levels) {
      const base = rows.get(`spin@${c}`);
      const jp = rows.get(`${jm}@${c}`);
      if (!base?.length || !jp?.length) continue;
      const n = Math.min(base.length, jp.length);
      out.push(
        `jackpot cost, ${MODE_NAME[jm]} against spin on, ${c} client${c > 1 ? 's' : ''}, ${n} interleaved run${n > 1 ? 's' : ''}:`,
      );
      const diffs: number[] = [];
      for (let i = 0; i < n; i++) {
        const a = base[i]!;
        const b = jp[i]!;
        diffs.push(total(b) - total(a));
        out.push(
          `  run ${i + 1}: spin on ${fmt(a.rps, 1)} rounds/s, p50 ${fmt(a.p50, 2)} ms, CPU ${fmt(total(a), 2)} ms | ` +
            `${MODE_NAME[jm]} ${fmt(b.rps, 1)} rounds/s, p50 ${fmt(b.p50, 2)} ms, CPU ${fmt(total(b), 2)} ms | CPU ${signed(total(b) - total(a))} ms`,
        );
      }
      const a = base.slice(0, n);
      const b = jp.slice(0, n);
      out.push(
        `  medians (ranges): rounds/s ${range(a.map((r) => r.rps))} vs ${range(b.map((r) => r.rps))} ` +
          `(${fmt(median(b.map((r) => r.rps)) / median(a.map((r) => r.rps)), 2)}x); ` +
          `p50 ${range(
            a.map((r) => r.p50),
            2,
          )} vs ${range(
            b.map((r) => r.p50),
            2,
          )} ms; CPU per spin ${range(a.map(total), 2)} vs ${range(b.map(total), 2)} ms; ` +
          `difference per run ${signed(median(diffs))} ms (${signed(Math.min(...diffs))} to ${signed(Math.max(...diffs))})`,
      );
      const byProcess = (list: ModeResult[]) => {
        const labels = [...new Set(list.flatMap((r) => r.cpu.map(([l]) => l)))];
        return labels
          .map((l): [string, number] => [l, median(list.map((r) => r.cpu.find(([x]) => x === l)?.[1] ?? 0))])
          .sort((x, y) => y[1] - x[1]);
      };
      const pa = new Map(byProcess(a));
      const pb = byProcess(b);
      out.push(
        `  median CPU ms per spin by process, spin on -> ${MODE_NAME[jm]}: ` +
          pb.map(([l, ms]) => `${l} ${fmt(pa.get(l) ?? 0, 2)} -> ${fmt(ms, 2)}`).join(', '),
      );
    }
  }
  return out.length ? out.join('\n') : undefined;
}

function noteOf(r: ModeResult): string {
  if (r.eager)
    return `  eager ${r.eager.started}/${r.eager.of}, ran in client ${r.eager.inClient}/${r.eager.of}`;
  if (r.standalone) {
    const { rounds, of } = r.standalone;
    return Number.isNaN(rounds)
      ? '  standalone worker n/a'
      : `  standalone worker ran ${rounds}/${of}, the game server ${Math.max(0, of - rounds)}`;
  }
  return '';
}

/**
 * The CPU columns of the table: labels of bench/src/lib/cpu.ts (the Temporal server's process,
 * dev server or cluster, is `temporal`; `tpg`, the cluster's own PostgreSQL, only on the cluster).
 */
const CPU_COLUMNS: [string[], string][] = [
  [[DEV_SERVER_LABEL, CLUSTER_SERVER_LABEL], 'temporal'],
  [[TEMPORAL_PG_LABEL], 'tpg'],
  [['worker'], 'worker'],
  [['api'], 'api'],
  [['game'], 'game'],
  [['postgresql'], 'pg'],
  [['wallet sandbox'], 'wallet'],
  [['bench client'], 'client'],
];

/** The compact table: per concurrency, each mode's medians and CPU per round, then the ratios. */
export function settlementTable(o: {
  byConcurrency: SettlementBenchResult['byConcurrency'];
  levels: number[];
  runs: number;
  workers: number;
  apis: number;
  /** The Temporal server, as the heading names it. */
  temporal?: string;
}): string {
  const out: string[] = [];
  const pad = (s: string, n: number) => s.padStart(n);
  const all = o.levels.flatMap((c) => Object.values(o.byConcurrency[c] ?? {}));
  // The columns some result has (tpg only on the cluster), always the others.
  const columns = CPU_COLUMNS.filter(
    ([labels, h]) => h !== 'tpg' || all.some((r) => r?.cpu.some(([l]) => labels.includes(l))),
  );
  out.push(
    `settlement${o.temporal ? ` on the ${o.temporal}` : ''}: medians of ${o.runs} run${o.runs > 1 ? 's' : ''}; CPU ms per round by process (last run); ` +
      `${o.workers} standalone worker${o.workers > 1 ? 's' : ''}, 1 API process, ${o.apis} game-server process${o.apis > 1 ? 'es' : ''}`,
  );
  out.push(
    `${'clients'.padEnd(7)} ${'mode'.padEnd(11)} ${pad('rounds/s', 8)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)} |` +
      columns.map(([, h]) => pad(h, 8)).join('') +
      ` ${pad('total', 7)} | notes`,
  );
  for (const c of o.levels) {
    const at = o.byConcurrency[c]!;
    for (const m of SETTLEMENT_MODES) {
      const r = at[m];
      if (!r) continue;
      const cpu = new Map(r.cpu);
      const cell = (labels: string[]) => {
        const present = labels.filter((l) => cpu.has(l));
        const ms = present.reduce((sum, l) => sum + cpu.get(l)!, 0);
        return present.length ? fmt(ms, 2) : '-';
      };
      const total = r.cpu.reduce((s, [, ms]) => s + ms, 0);
      let note = noteOf(r).trim();
      if (m === 'floor-eager') note = `${note} (client CPU includes its worker)`;
      out.push(
        `${String(c).padEnd(7)} ${MODE_NAME[m].padEnd(11)} ${pad(fmt(r.rps, 0), 8)} ${pad(fmt(r.p50, 2), 7)} ${pad(fmt(r.p99, 2), 7)} |` +
          columns.map(([labels]) => pad(cell(labels), 8)).join('') +
          ` ${pad(fmt(total, 2), 7)} | ${note}`,
      );
    }
  }
  const x = (a: number, b: number) => `${fmt(a / b, 2)}x`;
  for (const c of o.levels) {
    const at = o.byConcurrency[c]!;
    const parts: string[] = [];
    const pairs: [SettlementMode, SettlementMode][] = [
      ['spin', 'floor-eager'],
      ['spin-off', 'floor'],
    ];
    for (const [spin, fl] of pairs) {
      const s = at[spin];
      const f = at[fl];
      if (s && f)
        parts.push(`${MODE_NAME[spin]}/${MODE_NAME[fl]} rounds/s ${x(s.rps, f.rps)} p50 ${x(s.p50, f.p50)}`);
      if (s && at.direct) parts.push(`${MODE_NAME[spin]}/direct p50 ${x(s.p50, at.direct.p50)}`);
    }
    if (at.local && at.direct) parts.push(`local/direct p50 ${x(at.local.p50, at.direct.p50)}`);
    for (const jm of ['spin-jackpot', 'spin-jackpot-hits'] as const) {
      const j = at[jm];
      if (j && at.spin) {
        const cpu = (r: ModeResult) => r.cpu.reduce((sum, [, ms]) => sum + ms, 0);
        parts.push(
          `${MODE_NAME[jm]}/spin on rounds/s ${x(j.rps, at.spin.rps)} p50 ${x(j.p50, at.spin.p50)} CPU ${fmt(cpu(j) - cpu(at.spin), 2)} ms (last run)`,
        );
      }
    }
    if (at.free && at.spin)
      parts.push(
        `free round/spin on rounds/s ${x(at.free.rps, at.spin.rps)} p50 ${x(at.free.p50, at.spin.p50)}`,
      );
    if (at.spin && at['spin-off'])
      parts.push(
        `spin on/spin off rounds/s ${x(at.spin.rps, at['spin-off'].rps)} p50 ${x(at.spin.p50, at['spin-off'].p50)}`,
      );
    if (parts.length) out.push(`ratios at ${c} client${c > 1 ? 's' : ''}: ${parts.join(' | ')}`);
  }
  for (const c of o.levels) {
    const line = overheadLine(o.byConcurrency[c]!, c, columns);
    if (line) out.push(line);
  }
  return out.join('\n');
}

/**
 * The project's own overhead (issue 27): what a spin costs beyond the eager Temporal floor and the
 * direct wallet path, in CPU ms per round, in total and per process column (last run of each mode).
 * The floor's client column holds its in-process worker, and the direct path's the bench client.
 */
export function overheadLine(
  at: Partial<Record<SettlementMode, ModeResult>>,
  clients: number,
  columns: [string[], string][] = CPU_COLUMNS,
): string | undefined {
  const spin = at.spin;
  const floor = at['floor-eager'];
  const direct = at.direct;
  if (!spin || !floor || !direct) return undefined;
  const sum = (r: ModeResult, labels?: string[]) =>
    r.cpu.reduce((t, [l, ms]) => (labels === undefined || labels.includes(l) ? t + ms : t), 0);
  const cells = columns
    .filter(([labels]) => [spin, floor, direct].some((r) => r.cpu.some(([l]) => labels.includes(l))))
    .map(([labels, h]) => `${h} ${fmt(sum(spin, labels) - sum(floor, labels) - sum(direct, labels), 2)}`);
  const total = sum(spin) - sum(floor) - sum(direct);
  return (
    `project overhead at ${clients} client${clients > 1 ? 's' : ''} (spin on - floor eager - direct), CPU ms per round: ` +
    `total ${fmt(total, 2)} (spin ${fmt(sum(spin), 2)}, floor eager ${fmt(sum(floor), 2)}, direct ${fmt(sum(direct), 2)}) | ${cells.join(' | ')}`
  );
}
