import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  type WriteStream,
  writeFileSync,
} from 'node:fs';
import { chmod, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPool, ensureDatabase, type Pool, withDatabase } from '@opi/db';
import { type EmbeddedPostgresHandle, startEmbeddedPostgres } from '@opi/db/embedded';
import {
  findOrBuildTemporalCli,
  findOrBuildTemporalServer,
  freePort,
  REPO_ROOT,
  type Supervised,
  setupTemporalSchema,
  sleep,
  startTemporalClusterServer,
  startTemporalDevServer,
  stopLeftovers,
  TEMPORAL_SERVER_VERSION,
  type TemporalClusterServerOptions,
  type TemporalServerBinaries,
  temporalClusterEnv,
  temporalPostgresFromUrl,
  waitForPort,
} from '@opi/devstack';
import { createWalletAdminClient, type WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { migrateWallet } from '@opi/wallet-sandbox/migrate';
import { buildWorkflowBundle } from '@opi/workflows';
import { Connection } from '@temporalio/client';
import { preparePlatformSchema } from '../lib/platform-schema.js';

export const SERVICE_SECRET = 'reliability-service-secret-0123456789abcdef';
export const ADMIN_KEY = 'padm_reliability_admin_key_0123456789abcdefgh';
export const WALLET_ADMIN_TOKEN = 'reliability-wallet-admin-token-0123';

/**
 * Pid files of what a run starts, so a later run of the same checkout stops what a killed run left
 * behind. One folder per checkout: a run from another clone (a CI run beside a long run) has its
 * own, and never stops this one's servers (it did, when the folder was shared).
 */
const RUN_DIR = path.join(
  os.tmpdir(),
  `opi-reliability-run-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}`,
);

/**
 * The pid-file folder of this run: RUN_DIR, unless another run of the same checkout is live right
 * now (its `owner.run` names a live process; a full `npm test` beside a reliability run is one),
 * whose processes are not leftovers: then a folder of this run's own, and nothing is stopped.
 * Two runs at once in one checkout otherwise stopped each other's servers at start.
 */
function claimRunDir(): { dir: string; shared: boolean } {
  mkdirSync(RUN_DIR, { recursive: true });
  const ownerFile = path.join(RUN_DIR, 'owner.run');
  let owner = Number.NaN;
  try {
    owner = Number(readFileSync(ownerFile, 'utf8'));
  } catch {}
  if (Number.isInteger(owner) && owner > 1 && owner !== process.pid && processAlive(owner)) {
    const dir = `${RUN_DIR}-${process.pid}`;
    mkdirSync(dir, { recursive: true });
    return { dir, shared: true };
  }
  writeFileSync(ownerFile, String(process.pid));
  return { dir: RUN_DIR, shared: false };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type ServiceKind = 'api' | 'game' | 'worker' | 'wallet';

export interface ProcessEvent {
  at: number;
  service: string;
  event: 'killed' | 'restarted' | 'exited unexpectedly' | 'started';
  detail?: string;
}

/**
 * One of our Node services as a child process (`node --conditions=source --import tsx <entry>`),
 * its output appended to a log file. A supervisor: an exit we did not ask for is recorded and the
 * process is started again after a second, as a process manager would.
 */
export class Service {
  child: ChildProcess | undefined;
  /** The checkout whose code it runs (the upgrade drill moves it between releases). */
  root = REPO_ROOT;
  /** Serving: started and not since killed or exited (a load balancer's health check). */
  ready = false;
  private expectingExit = false;
  private stopped = false;
  private readonly log: WriteStream;
  readonly pidFile: string;

  constructor(
    readonly name: string,
    readonly kind: ServiceKind,
    private readonly entry: string,
    private env: NodeJS.ProcessEnv,
    readonly port: number | undefined,
    logDir: string,
    private readonly events: ProcessEvent[],
    runDir: string,
  ) {
    this.log = createWriteStream(path.join(logDir, `${name}.log`), { flags: 'a' });
    this.pidFile = path.join(runDir, `${name}.pid`);
  }

  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  /** Starts the process and waits until it serves (its port answers, or the worker says so). */
  async start(): Promise<void> {
    this.stopped = false;
    this.expectingExit = false;
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', path.join(this.root, this.entry)],
      { env: this.env, stdio: ['ignore', 'pipe', 'pipe'], cwd: this.root },
    );
    this.child = child;
    if (child.pid) writeFileSync(this.pidFile, String(child.pid));
    let ready: () => void = () => {};
    const started = new Promise<void>((r) => {
      ready = r;
    });
    let buffered = '';
    const watch = (chunk: Buffer) => {
      this.log.write(chunk);
      if (this.kind === 'worker') {
        buffered = (buffered + chunk.toString('utf8')).slice(-4096);
        // Our own line, at LOG_LEVEL=info (the reliability stack's workers also open a port).
        if (buffered.includes('"worker started"') || buffered.includes("state: 'RUNNING'")) ready();
      }
    };
    child.stdout!.on('data', watch);
    child.stderr!.on('data', watch);
    child.on('exit', (code, signal) => {
      this.ready = false;
      this.log.write(`--- exit code=${code} signal=${signal} at ${new Date().toISOString()}\n`);
      ready();
      if (this.stopped || this.expectingExit) return;
      this.events.push({
        at: Date.now(),
        service: this.name,
        event: 'exited unexpectedly',
        detail: `code ${code}, signal ${signal}`,
      });
      setTimeout(() => {
        if (!this.stopped && this.child === child) void this.start().catch(() => {});
      }, 1000);
    });
    const deadline = Date.now() + 60_000;
    if (this.port !== undefined) {
      await waitForPort('127.0.0.1', this.port, 60_000, () =>
        child.exitCode !== null || child.signalCode !== null ? `${this.name} exited during start` : undefined,
      );
    } else {
      await Promise.race([started, sleep(60_000)]);
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${this.name} exited during start`);
      if (Date.now() > deadline) throw new Error(`${this.name} did not start within 60 s`);
    }
    this.ready = true;
    this.events.push({ at: Date.now(), service: this.name, event: 'started' });
  }

  /** SIGKILL (or another signal); resolves once the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.expectingExit = true;
    this.ready = false;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await gone;
    this.events.push({ at: Date.now(), service: this.name, event: 'killed', detail: signal });
  }

  async restart(): Promise<void> {
    await this.start();
    this.events.push({ at: Date.now(), service: this.name, event: 'restarted' });
  }

  /**
   * A rolling upgrade's step for this process: taken out of the load balancer (no new requests),
   * `drainMs` for the requests in flight, then SIGTERM (a graceful stop: a game server's hosted
   * worker finishes the tasks in hand), and the process started again from `root` with `env`
   * merged in. Resolves once the new one serves.
   */
  async replace(root: string, env: NodeJS.ProcessEnv, drainMs = 2_000): Promise<void> {
    this.ready = false;
    await sleep(drainMs);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      this.expectingExit = true;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([gone, sleep(30_000)]);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await gone;
      }
    }
    const from = this.root;
    this.root = root;
    this.env = { ...this.env, ...env };
    await this.start();
    this.events.push({
      at: Date.now(),
      service: this.name,
      event: 'restarted',
      detail: `replaced: ${path.basename(from)} -> ${path.basename(root)}`,
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([gone, sleep(10_000)]);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await gone;
      }
    }
    this.log.end();
  }
}

/**
 * The game servers' public base address: every launch URL the API processes hand out names it (their
 * GAME_BASE_URL), as production's would name https://games.example.com. Nothing resolves it: the
 * suite reads the launch URL's token and sends the player's requests to a game-server process itself.
 */
export const GAME_BASE_URL = 'http://games.reliability.test';
/** The operator API's public base address (artwork URLs in the catalog). */
export const API_BASE_URL = 'http://api.reliability.test';

export interface ReliabilityStackOptions {
  /** Operator-side processes (services/api): provider API, audit, admin, staff. */
  apiProcesses: number;
  /**
   * Player-side processes (services/game-server): pages, runtime routes, event streams, each with
   * its hosted settlement worker (rounds started eagerly). Defaults to apiProcesses.
   */
  gameProcesses?: number;
  workerProcesses: number;
  log: (msg: string) => void;
  /**
   * The production topology's Temporal (`--cluster`): the real Temporal server on the platform's
   * PostgreSQL instead of the dev server. RELIABILITY_CLUSTER=1 when not given (reliability.ts
   * sets it for --cluster).
   */
  cluster?: boolean;
  /** The cluster's history shards; RELIABILITY_HISTORY_SHARDS or 4 when not given. */
  historyShards?: number;
  /**
   * Another release's checkout (tools/devstack release.ts): its migrations, seed and workflow
   * bundle make the stack, and every service starts from its code (the upgrade drill's N-1).
   */
  release?: string;
}

/** A running Temporal, the dev server or the real server. */
export interface TemporalHandle {
  address: string;
  process: Supervised;
  stop(): Promise<void>;
}

/** The name of the real Temporal server's process: its pid file, events and memory series. */
export const TEMPORAL_SERVER = 'temporal-server';

/**
 * The stack under test, every part its own process: the platform's PostgreSQL (embedded), the
 * operator wallet's own PostgreSQL (a second embedded server: the operator's side of the wire
 * stays up when ours goes down), the Temporal dev server on a SQLite file (so it restarts with its
 * history), the sandbox wallet with its wire log, API processes (the operator side), game-server processes
 * (the players' side, each hosting a settlement worker that round workflows start on eagerly) and
 * worker processes.
 *
 * In cluster mode the dev server is replaced by the real Temporal server (v1.32.1, the production
 * topology's) with its two databases, temporal and temporal_visibility, on the platform's
 * PostgreSQL: restarting that PostgreSQL takes Temporal's persistence down too. The stack
 * supervises the server as a process manager would: an exit it did not ask for is recorded and the
 * server started again on the same ports (so every client reconnects), with a growing pause
 * between attempts while it cannot start.
 */
export class ReliabilityStack {
  readonly events: ProcessEvent[] = [];
  readonly services: Service[] = [];
  readonly cluster: boolean;
  readonly historyShards: number;
  dir!: string;
  /** Where the pid files go (claimRunDir). */
  runDir = RUN_DIR;
  pg!: EmbeddedPostgresHandle;
  pgPort!: number;
  walletPg!: EmbeddedPostgresHandle;
  temporal!: TemporalHandle;
  temporalPort!: number;
  temporalCli!: string;
  /** Cluster mode: the server's options and its environment (ports included), kept for restarts. */
  private temporalServerOptions: TemporalClusterServerOptions | undefined;
  private temporalEnv: NodeJS.ProcessEnv | undefined;
  /** An exit of the Temporal server that was asked for (a scenario's kill, the stack's stop). */
  private temporalExitExpected = false;
  private stopping = false;
  /** The supervisor's restart of the Temporal server, while one is under way. */
  private temporalRevival: Promise<void> | undefined;
  databaseUrl!: string;
  walletDatabaseUrl!: string;
  pool!: Pool;
  walletPool!: Pool;
  walletBase!: string;
  walletAdmin!: WalletAdminClient;
  wireLogFile!: string;

  readonly gameProcesses: number;

  constructor(private readonly options: ReliabilityStackOptions) {
    this.gameProcesses = options.gameProcesses ?? options.apiProcesses;
    this.cluster = options.cluster ?? process.env.RELIABILITY_CLUSTER === '1';
    this.historyShards = options.historyShards ?? Number(process.env.RELIABILITY_HISTORY_SHARDS || 4);
    if (!Number.isInteger(this.historyShards) || this.historyShards < 1)
      throw new Error(`RELIABILITY_HISTORY_SHARDS must be a positive integer, not ${this.historyShards}`);
  }

  /** What runs Temporal, for the log and the report. */
  get temporalDescription(): string {
    return this.cluster
      ? `Temporal server v${TEMPORAL_SERVER_VERSION} on the platform's PostgreSQL (${this.historyShards} history shards)`
      : 'Temporal dev server (SQLite)';
  }

  get apis(): Service[] {
    return this.services.filter((s) => s.kind === 'api');
  }
  get games(): Service[] {
    return this.services.filter((s) => s.kind === 'game');
  }
  get workers(): Service[] {
    return this.services.filter((s) => s.kind === 'worker');
  }
  get wallet(): Service {
    return this.services.find((s) => s.kind === 'wallet')!;
  }
  apiOrigin(s: Service): string {
    return `http://127.0.0.1:${s.port}`;
  }
  /** Where a game-server process serves the players' side (pages, /api/runtime/...). */
  gameOrigin(s: Service): string {
    return `http://127.0.0.1:${s.port}`;
  }

  async start(): Promise<void> {
    const say = this.options.log;
    const claimed = claimRunDir();
    this.runDir = claimed.dir;
    if (claimed.shared)
      say(
        `another reliability run of this checkout is live: its servers are left alone (pid files in ${this.runDir})`,
      );
    else await stopLeftovers(this.runDir, say);
    this.dir = await mkdtemp(path.join(os.tmpdir(), 'opi-reliability-'));
    // As root, PostgreSQL runs as the postgres user: it must be able to reach its data directory.
    await chmod(this.dir, 0o755);
    const logDir = path.join(this.dir, 'logs');
    mkdirSync(logDir, { recursive: true });
    say(`run directory ${this.dir} (process logs in logs/)`);

    this.pgPort = await freePort();
    await this.startPg();
    await ensureDatabase(this.pg.url, 'opi');
    this.databaseUrl = withDatabase(this.pg.url, 'opi');
    this.pool = createPool(this.databaseUrl, { max: 4, applicationName: 'opi-reliability' });
    if (this.options.release) await this.prepareSchemaWith(this.options.release);
    else
      await preparePlatformSchema(this.databaseUrl, this.pool, {
        serviceSecret: SERVICE_SECRET,
        adminKey: ADMIN_KEY,
      });

    this.walletPg = await startEmbeddedPostgres({
      dataDir: path.join(this.dir, 'wallet-pg'),
      port: await freePort(),
    });
    this.recordPostmaster(path.join(this.dir, 'wallet-pg'), 'wallet-postgres');
    await ensureDatabase(this.walletPg.url, 'wallet');
    this.walletDatabaseUrl = withDatabase(this.walletPg.url, 'wallet');
    await migrateWallet(this.walletDatabaseUrl);
    this.walletPool = createPool(this.walletDatabaseUrl, { max: 4, applicationName: 'opi-reliability' });

    if (this.cluster) {
      const binaries: TemporalServerBinaries = await findOrBuildTemporalServer({ log: say });
      const temporalPg = temporalPostgresFromUrl(this.pg.url);
      say(`Temporal schema on the platform's PostgreSQL (temporal-sql-tool, v${TEMPORAL_SERVER_VERSION})`);
      await setupTemporalSchema({ sqlTool: binaries.sqlTool, pg: temporalPg, log: say });
      this.temporalServerOptions = {
        binaries,
        pg: temporalPg,
        numHistoryShards: this.historyShards,
        runDir: this.runDir,
        logFile: path.join(logDir, 'temporal-server.log'),
        processName: TEMPORAL_SERVER,
        log: say,
      };
      // Chosen once: every restart reuses the ports, so the API processes and workers reconnect.
      this.temporalEnv = await temporalClusterEnv(this.temporalServerOptions);
      this.temporalPort = Number(this.temporalEnv.FRONTEND_GRPC_PORT);
      say(
        `starting the Temporal server v${TEMPORAL_SERVER_VERSION} on 127.0.0.1:${this.temporalPort} (${this.historyShards} history shards; log in logs/temporal-server.log)`,
      );
    } else {
      this.temporalCli = await findOrBuildTemporalCli({
        ...(process.env.TEMPORAL_CLI_PATH ? { explicitPath: process.env.TEMPORAL_CLI_PATH } : {}),
        log: say,
      });
      this.temporalPort = await freePort();
    }
    await this.startTemporal();
    // A release's workers use its own bundle (prepareRelease built it).
    if (!this.options.release) {
      say('building the workflow bundle');
      await buildWorkflowBundle();
    }

    const base: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      SERVICE_SECRET,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      // No metrics listeners: fixed default ports would collide with a dev stack and each other.
      API_METRICS_PORT: '0',
      GAME_METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      // The run's jackpot hits often (setup.ts: about 21 % of the stake back) so that hits meet
      // every fault: above the production ceiling of 5 %.
      JACKPOT_MAX_SHARE_PPM: '250000',
    };
    const walletPort = await freePort();
    this.wireLogFile = path.join(this.dir, 'wallet-wire.jsonl');
    this.walletBase = `http://127.0.0.1:${walletPort}`;
    this.services.push(
      new Service(
        'wallet',
        'wallet',
        'services/wallet-sandbox/src/main.ts',
        {
          ...base,
          DATABASE_URL: this.walletDatabaseUrl,
          WALLET_PORT: String(walletPort),
          WALLET_ADMIN_TOKEN,
          WALLET_WIRE_LOG: this.wireLogFile,
        },
        walletPort,
        logDir,
        this.events,
        this.runDir,
      ),
    );
    const platform = {
      ...base,
      DATABASE_URL: this.databaseUrl,
      TEMPORAL_ADDRESS: this.temporal.address,
    };
    for (let i = 1; i <= this.options.apiProcesses; i++) {
      const port = await freePort();
      this.services.push(
        new Service(
          `api-${i}`,
          'api',
          'services/api/src/main.ts',
          {
            ...platform,
            PORT: String(port),
            // Every keyed request signed, as in production; HTTP wallets and page URLs stay allowed.
            SIGNED_REQUESTS: 'required',
            PUBLIC_BASE_URL: API_BASE_URL,
            // Launch URLs point at the game servers.
            GAME_BASE_URL,
          },
          port,
          logDir,
          this.events,
          this.runDir,
        ),
      );
    }
    for (let i = 1; i <= this.gameProcesses; i++) {
      // It listens once its dependencies (the hosted settlement worker among them) are up.
      const port = await freePort();
      this.services.push(
        new Service(
          `game-${i}`,
          'game',
          'services/game-server/src/main.ts',
          {
            ...platform,
            GAME_SERVER_PORT: String(port),
            GAME_BASE_URL,
            // The hosted worker and eager starts, as in production (the default, said here).
            GAME_SETTLEMENT_WORKER: 'on',
          },
          port,
          logDir,
          this.events,
          this.runDir,
        ),
      );
    }
    for (let i = 1; i <= this.options.workerProcesses; i++) {
      // Its metrics port (free, so nothing collides) tells when it serves: it opens once the worker
      // is created, and at LOG_LEVEL=warn no start line is printed (the SDK's lines go through our
      // logger at that level too).
      const metricsPort = await freePort();
      this.services.push(
        new Service(
          `worker-${i}`,
          'worker',
          'services/worker/src/main.ts',
          { ...platform, WORKER_METRICS_PORT: String(metricsPort) },
          metricsPort,
          logDir,
          this.events,
          this.runDir,
        ),
      );
    }
    if (this.options.release) for (const s of this.services) s.root = this.options.release;
    for (const s of this.services) await s.start();
    this.walletAdmin = createWalletAdminClient({ baseUrl: this.walletBase, token: WALLET_ADMIN_TOKEN });
    say(
      `stack up: ${this.apis.length} API, ${this.games.length} game server (each hosting a settlement worker), ${this.workers.length} worker, wallet, PostgreSQL ×2, ${this.temporalDescription}`,
    );
  }

  /**
   * The schema, catalog and bootstrap admin key as `root`'s code makes them (another release's
   * migrations: a child process in its checkout, with its own modules).
   */
  async prepareSchemaWith(root: string): Promise<void> {
    const script = `
      const db = await import('@opi/db');
      const { seedCatalog } = await import('@opi/api');
      const url = process.env.OPI_SCHEMA_URL;
      await db.migrate(url);
      const pool = db.createPool(url, { max: 2 });
      await seedCatalog(pool);
      await db.ensureBootstrapAdminKey(pool, db.createSecretBox(process.env.SERVICE_SECRET), process.env.OPI_ADMIN_KEY);
      await pool.end();`;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script],
        {
          cwd: root,
          env: { ...process.env, OPI_SCHEMA_URL: this.databaseUrl, SERVICE_SECRET, OPI_ADMIN_KEY: ADMIN_KEY },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString('utf8');
      });
      child.stderr!.on('data', (c: Buffer) => {
        out += c.toString('utf8');
      });
      child.on('exit', (code) =>
        code === 0
          ? resolve()
          : reject(new Error(`schema from ${root} failed (${code}): ${out.slice(-2000)}`)),
      );
    });
  }

  /** This checkout's migrations, catalog and admin key on the running stack (a rolling upgrade's first step). */
  async upgradeSchema(): Promise<void> {
    await preparePlatformSchema(this.databaseUrl, this.pool, {
      serviceSecret: SERVICE_SECRET,
      adminKey: ADMIN_KEY,
    });
  }

  private recordPostmaster(dataDir: string, name: string) {
    try {
      const pid = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!;
      writeFileSync(path.join(this.runDir, `${name}.pid`), pid);
    } catch {}
  }

  async startPg(): Promise<void> {
    const dataDir = path.join(this.dir, 'pg');
    this.pg = await startEmbeddedPostgres({
      dataDir,
      port: this.pgPort,
      // Temporal's pools (persistence and visibility per service) beside the platform's.
      ...(this.cluster ? { settings: ['max_connections=300'] } : {}),
    });
    this.recordPostmaster(dataDir, 'postgres');
  }

  async stopPg(): Promise<void> {
    await this.pg.stop();
  }

  /**
   * Starts Temporal: the dev server on its SQLite file, or (cluster mode) the real server on the
   * same ports as before, supervised.
   */
  async startTemporal(): Promise<void> {
    if (!this.cluster) {
      this.temporal = await startTemporalDevServer({
        cliPath: this.temporalCli,
        port: this.temporalPort,
        headless: true,
        dbFile: path.join(this.dir, 'temporal.db'),
        runDir: this.runDir,
      });
      return;
    }
    const server = await startTemporalClusterServer({
      ...this.temporalServerOptions!,
      env: this.temporalEnv!,
    });
    this.temporal = server;
    this.temporalExitExpected = false;
    this.superviseTemporal(server.process);
  }

  /** Stops Temporal gracefully. */
  async stopTemporal(): Promise<void> {
    await this.temporalRevival;
    this.temporalExitExpected = true;
    await this.temporal.stop();
  }

  /**
   * Kills the Temporal server outright (cluster mode's temporal-restart): no graceful shutdown,
   * its shards and task queues left as they were. Resolves once the process is gone.
   */
  async killTemporal(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.temporalRevival;
    const proc = this.temporal.process;
    if (proc.exit) return;
    this.temporalExitExpected = true;
    const gone = new Promise((r) => proc.child.once('exit', r));
    proc.child.kill(signal);
    await gone;
    this.events.push({ at: Date.now(), service: TEMPORAL_SERVER, event: 'killed', detail: signal });
  }

  /**
   * Starts Temporal again after killTemporal or stopTemporal (cluster mode: on the same ports;
   * when that start fails, the supervisor's retries take over and this waits for them).
   */
  async restartTemporal(): Promise<void> {
    try {
      await this.startTemporal();
    } catch (err) {
      if (!this.cluster) throw err;
      this.options.log(`the Temporal server did not restart (${String(err).split('\n')[0]}); retrying`);
      this.temporalRevival = this.reviveTemporal().finally(() => {
        this.temporalRevival = undefined;
      });
      await this.temporalRevival;
      return;
    }
    this.events.push({
      at: Date.now(),
      service: this.cluster ? TEMPORAL_SERVER : 'temporal',
      event: 'restarted',
    });
  }

  /** The Temporal server's pid while it runs. */
  get temporalPid(): number | undefined {
    const proc = this.temporal?.process;
    return proc && !proc.exit ? proc.child.pid : undefined;
  }

  /** An exit nobody asked for is recorded and the server started again, as a process manager would. */
  private superviseTemporal(proc: Supervised): void {
    proc.child.once('exit', (code, signal) => {
      if (this.stopping || this.temporalExitExpected || this.temporal.process !== proc) return;
      this.events.push({
        at: Date.now(),
        service: TEMPORAL_SERVER,
        event: 'exited unexpectedly',
        detail: `code ${code}, signal ${signal}`,
      });
      this.options.log(
        `the Temporal server exited unexpectedly (code ${code}, signal ${signal}); restarting it on the same ports`,
      );
      this.temporalRevival = this.reviveTemporal().finally(() => {
        this.temporalRevival = undefined;
      });
    });
  }

  private async reviveTemporal(): Promise<void> {
    const since = Date.now();
    for (let attempt = 1; !this.stopping; attempt++) {
      // 1, 2, 4, then every 5 s: while its database is down the server cannot start (it exits
      // with "sql schema version compatibility check failed ... no usable database connection").
      await sleep(Math.min(1000 * 2 ** (attempt - 1), 5_000));
      if (this.stopping) return;
      try {
        await this.startTemporal();
        const detail = `by the supervisor, ${((Date.now() - since) / 1000).toFixed(1)} s after the exit, attempt ${attempt}`;
        this.events.push({ at: Date.now(), service: TEMPORAL_SERVER, event: 'restarted', detail });
        this.options.log(`the Temporal server is back (${detail})`);
        return;
      } catch (err) {
        // The error's first line says how it ended, its last the server's own last words.
        const lines = String(err).trim().split('\n');
        const said = lines.length > 1 ? ` … ${lines.at(-1)!.slice(-160)}` : '';
        this.options.log(
          `the Temporal server did not start (attempt ${attempt}): ${lines[0]!.slice(0, 200)}${said}`,
        );
      }
    }
  }

  /**
   * Waits (up to timeoutMs) until Temporal answers on its namespace, a visibility read included
   * (the namespace itself is cached in the frontend; the read goes to the database).
   */
  async temporalServing(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      let connection: Connection | undefined;
      try {
        connection = await Connection.connect({ address: this.temporal.address, connectTimeout: 2_000 });
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        await connection.workflowService.countWorkflowExecutions({ namespace: 'default', query: '' });
        return true;
      } catch {
        await sleep(500);
      } finally {
        await connection?.close().catch(() => {});
      }
    }
    return false;
  }

  /** Pids per part of the stack, for memory sampling. */
  pids(): { name: string; pids: number[] }[] {
    const out: { name: string; pids: number[] }[] = [];
    for (const s of this.services) if (s.pid) out.push({ name: s.name, pids: [s.pid] });
    const temporalPid = this.temporalPid;
    if (temporalPid) out.push({ name: this.cluster ? TEMPORAL_SERVER : 'temporal', pids: [temporalPid] });
    for (const [name, dir] of [
      ['postgres', path.join(this.dir, 'pg')],
      ['wallet-postgres', path.join(this.dir, 'wallet-pg')],
    ] as const) {
      const file = path.join(dir, 'postmaster.pid');
      if (!existsSync(file)) continue;
      const master = Number(readFileSync(file, 'utf8').split('\n')[0]);
      if (Number.isInteger(master) && master > 0) out.push({ name, pids: [master, ...childrenOf(master)] });
    }
    return out;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const s of [...this.services].reverse()) await s.stop().catch(() => {});
    await this.pool?.end().catch(() => {});
    await this.walletPool?.end().catch(() => {});
    await this.temporalRevival?.catch(() => {});
    await this.temporal?.stop().catch(() => {});
    await this.pg?.stop().catch(() => {});
    await this.walletPg?.stop().catch(() => {});
    // A folder of this run's own (another run held RUN_DIR) goes with it.
    if (this.runDir !== RUN_DIR) rmSync(this.runDir, { recursive: true, force: true });
  }
}

/** Direct children of a process (PostgreSQL backends of a postmaster), from /proc. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^[0-9]+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(e));
    } catch {}
  }
  return out;
}
