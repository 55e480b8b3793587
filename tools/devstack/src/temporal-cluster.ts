/**
 * The real Temporal server (not the CLI's dev server) on PostgreSQL, for the production-shaped
 * stacks: `npm run start:cluster`, the cluster test in `npm test`, the reliability suite's and the
 * benchmarks' cluster mode. The server binary and its SQL schema tool are built once with
 * `go install` into a cache outside the checkout (like the CLI); the schema tool creates and
 * upgrades Temporal's two databases from the schema it embeds; the server reads
 * deploy/temporal/config.yaml, the same file docker-compose.yml mounts, with every port chosen
 * free so that several stacks share one machine.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import { REPO_ROOT } from './paths.js';
import { type Supervised, startProcess } from './processes.js';
import { portFree, sleep, waitForPort } from './wait.js';
import { executable, onPath } from './which.js';

/**
 * The Temporal server version of the production topology: the newest `go install` accepts with
 * this machine's Go (1.26.8; v1.32.2 and the v1.31/v1.30 patch releases after v1.32.1 ask for Go
 * 1.26.10, and GOTOOLCHAIN=local refuses to fetch a toolchain). docker-compose.yml pins the same
 * image tags (tools/devstack/src/compose.test.ts checks it).
 */
export const TEMPORAL_SERVER_VERSION = '1.32.1';
const MODULE = 'go.temporal.io/server';

/** The shared server configuration and dynamic config (docker-compose.yml mounts the same files). */
export const TEMPORAL_CONFIG_FILE = path.join(REPO_ROOT, 'deploy/temporal/config.yaml');
export const TEMPORAL_DYNAMIC_CONFIG_FILE = path.join(REPO_ROOT, 'deploy/temporal/dynamicconfig.yaml');

export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
}

/** The server build cache: outside the checkout, shared by every clone on the machine. */
export function temporalServerCacheDir(configured?: string): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return configured ?? path.join(base, 'opi', `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, capture = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
    });
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString('utf8');
      if (!capture) process.stderr.write(c);
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(out)
        : reject(
            new Error(`${path.basename(command)} ${args.join(' ')} exited with ${code}: ${err.slice(-2000)}`),
          ),
    );
  });
}

/**
 * Finds the server and its schema tool in the cache, or builds both once with
 * `go install go.temporal.io/server/cmd/server@vX go.temporal.io/server/cmd/tools/sql@vX`
 * (a few minutes with the module downloads). TEMPORAL_SERVER_CACHE moves the cache.
 */
export async function findOrBuildTemporalServer(
  opts: { cacheDir?: string; log?: (msg: string) => void } = {},
): Promise<TemporalServerBinaries> {
  const log = opts.log ?? (() => {});
  const bin = path.join(temporalServerCacheDir(opts.cacheDir ?? process.env.TEMPORAL_SERVER_CACHE), 'bin');
  const found = { server: path.join(bin, 'temporal-server'), sqlTool: path.join(bin, 'temporal-sql-tool') };
  if (executable(found.server) && executable(found.sqlTool)) return found;

  const go = onPath('go');
  if (!go) {
    throw new Error(
      `No Temporal server in ${bin} and no Go to build it: install Go, or build it elsewhere with ` +
        `go install ${MODULE}/cmd/server@v${TEMPORAL_SERVER_VERSION} ${MODULE}/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION} ` +
        `and copy server and sql into ${bin} as temporal-server and temporal-sql-tool.`,
    );
  }
  const started = Date.now();
  log(
    `building the Temporal server v${TEMPORAL_SERVER_VERSION} and its schema tool into ${bin} (once; a few minutes)`,
  );
  // Built into a folder of its own, then moved into place: two clones building at once never see
  // a half-written binary.
  const staging = `${bin}.build-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  try {
    await run(
      go,
      [
        'install',
        `${MODULE}/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
        `${MODULE}/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
      ],
      { ...process.env, GOBIN: staging, CGO_ENABLED: '0', GOFLAGS: '-trimpath' },
    );
    mkdirSync(bin, { recursive: true });
    renameSync(path.join(staging, 'sql'), found.sqlTool);
    renameSync(path.join(staging, 'server'), found.server);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (!executable(found.server) || !executable(found.sqlTool))
    throw new Error(`go install finished but ${found.server} or ${found.sqlTool} is missing`);
  log(`built the Temporal server in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return found;
}

export interface TemporalPostgres {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** Connection settings of a PostgreSQL URL (postgres://user:password@host:port/db). */
export function temporalPostgresFromUrl(url: string): TemporalPostgres {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
}

export interface TemporalDatabases {
  /** Persistence (history, executions, task queues). */
  default: string;
  visibility: string;
}

export const DEFAULT_TEMPORAL_DATABASES: TemporalDatabases = {
  default: 'temporal',
  visibility: 'temporal_visibility',
};

/**
 * Creates Temporal's two databases when missing and brings their schema to the version the tool
 * embeds (`setup-schema -v 0.0` once, then `update-schema`), only through the schema tool. Safe to
 * run on every start: an up-to-date schema is left as it is.
 */
export async function setupTemporalSchema(options: {
  sqlTool: string;
  pg: TemporalPostgres;
  databases?: TemporalDatabases;
  log?: (msg: string) => void;
}): Promise<void> {
  const log = options.log ?? (() => {});
  const dbs = options.databases ?? DEFAULT_TEMPORAL_DATABASES;
  const { host, port, user, password } = options.pg;
  const tool = (db: string, args: string[]) =>
    run(
      options.sqlTool,
      ['--plugin', 'postgres12', '--ep', host, '-p', String(port), '-u', user, '--db', db, ...args],
      // The password through the environment, not the command line (ps shows arguments).
      { ...process.env, SQL_PASSWORD: password },
      true,
    );
  const admin = new pg.Client({ host, port, user, password, database: 'postgres' });
  await admin.connect();
  try {
    for (const [db, schema] of [
      [dbs.default, 'postgresql/v12/temporal'],
      [dbs.visibility, 'postgresql/v12/visibility'],
    ] as const) {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
      if (exists.rowCount === 0) {
        log(`creating the database ${db} (temporal-sql-tool create-database)`);
        await tool(db, ['create-database']);
      }
      const versioned = new pg.Client({ host, port, user, password, database: db });
      await versioned.connect();
      let hasVersionTable = false;
      try {
        const t = await versioned.query(`SELECT to_regclass('public.schema_version') IS NOT NULL AS ok`);
        hasVersionTable = t.rows[0].ok === true;
      } finally {
        await versioned.end();
      }
      if (!hasVersionTable) await tool(db, ['setup-schema', '-v', '0.0']);
      await tool(db, ['update-schema', '--schema-name', schema]);
    }
  } finally {
    await admin.end();
  }
}

export interface TemporalClusterServerOptions {
  binaries: TemporalServerBinaries;
  pg: TemporalPostgres;
  databases?: TemporalDatabases;
  /** History shards; fixed for the life of the databases (docs/deployment-and-scaling.md). */
  numHistoryShards?: number;
  /** The frontend's gRPC port; a free one when absent. */
  port?: number;
  namespace?: string;
  /** Prometheus metrics on 127.0.0.1:metricsPort when given. */
  metricsPort?: number;
  runDir?: string;
  /** Appends the server's log lines to this file (they are not printed). */
  logFile?: string;
  processName?: string;
  /** Connections per pool and service (persistence; visibility takes SQL_VIS_MAX_CONNS = 4). */
  maxConns?: number;
  log?: (msg: string) => void;
}

export interface TemporalClusterServer {
  address: string;
  port: number;
  namespace: string;
  process: Supervised;
  /** The server's environment (ports included): a restart reuses it, so clients reconnect. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/**
 * A free port below 32768. Temporal stores each member's membership port in a smallint column
 * (cluster_membership.rpc_port), so a kernel-chosen ephemeral port (32768 and up on Linux) makes
 * the server exit at start; below the ephemeral range nothing else is handed the port meanwhile.
 */
export async function freeLowPort(taken: Set<number> = new Set()): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    if (await portFree('127.0.0.1', port)) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free port between 20000 and 32000');
}

/** The nine ports one server process listens on (gRPC and membership per service, the frontend's HTTP). */
async function serverPorts(frontend?: number): Promise<Record<string, string>> {
  const names = [
    'FRONTEND_HTTP_PORT',
    'FRONTEND_MEMBERSHIP_PORT',
    'HISTORY_GRPC_PORT',
    'HISTORY_MEMBERSHIP_PORT',
    'MATCHING_GRPC_PORT',
    'MATCHING_MEMBERSHIP_PORT',
    'WORKER_GRPC_PORT',
    'WORKER_MEMBERSHIP_PORT',
  ];
  const taken = new Set<number>(frontend ? [frontend] : []);
  const ports: Record<string, string> = {
    FRONTEND_GRPC_PORT: String(frontend ?? (await freeLowPort(taken))),
  };
  for (const n of names) ports[n] = String(await freeLowPort(taken));
  return ports;
}

/** The environment that fills deploy/temporal/config.yaml for one server on this machine. */
export async function temporalClusterEnv(options: TemporalClusterServerOptions): Promise<NodeJS.ProcessEnv> {
  const dbs = options.databases ?? DEFAULT_TEMPORAL_DATABASES;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    POSTGRES_SEEDS: options.pg.host,
    DB_PORT: String(options.pg.port),
    POSTGRES_USER: options.pg.user,
    POSTGRES_PWD: options.pg.password,
    DBNAME: dbs.default,
    VISIBILITY_DBNAME: dbs.visibility,
    NUM_HISTORY_SHARDS: String(options.numHistoryShards ?? 4),
    SQL_MAX_CONNS: String(options.maxConns ?? 10),
    BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    DYNAMIC_CONFIG_FILE_PATH: TEMPORAL_DYNAMIC_CONFIG_FILE,
    TEMPORAL_LOG_LEVEL: process.env.TEMPORAL_LOG_LEVEL ?? 'warn',
    ...(await serverPorts(options.port)),
  };
  if (options.metricsPort) env.PROMETHEUS_ENDPOINT = `127.0.0.1:${options.metricsPort}`;
  // TEMPORAL_PPROF_PORT: the server's Go profiler (config.yaml's global.pprof), to profile a bench.
  if (process.env.TEMPORAL_PPROF_PORT) env.TEMPORAL_PPROF_PORT = process.env.TEMPORAL_PPROF_PORT;
  return env;
}

/**
 * Starts the server process on an environment from temporalClusterEnv and waits until its
 * frontend answers and the namespace (registered when missing, 72 h retention) takes workflows.
 */
export async function startTemporalClusterServer(
  options: TemporalClusterServerOptions & { env?: NodeJS.ProcessEnv },
): Promise<TemporalClusterServer> {
  const log = options.log ?? (() => {});
  const namespace = options.namespace ?? 'default';
  const env = options.env ?? (await temporalClusterEnv(options));
  const port = Number(env.FRONTEND_GRPC_PORT);
  let logStream: import('node:fs').WriteStream | undefined;
  if (options.logFile) {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    logStream = (await import('node:fs')).createWriteStream(options.logFile, { flags: 'a' });
  }
  const recent: string[] = [];
  const proc = startProcess(
    options.processName ?? 'temporal-server',
    options.binaries.server,
    ['--config-file', TEMPORAL_CONFIG_FILE, '--allow-no-auth', 'start'],
    {
      env,
      cwd: REPO_ROOT,
      ...(options.runDir ? { runDir: options.runDir } : {}),
      quiet: true,
      onLine: (line) => {
        logStream?.write(`${line}\n`);
        recent.push(line.length > 400 ? `${line.slice(0, 400)}…` : line);
        if (recent.length > 40) recent.shift();
      },
    },
  );
  proc.child.on('exit', () => logStream?.end());
  const address = `127.0.0.1:${port}`;
  const deadCheck = () =>
    proc.exit
      ? `the Temporal server exited (${JSON.stringify(proc.exit)}):\n${recent.slice(-8).join('\n')}`
      : undefined;
  try {
    await waitForPort('127.0.0.1', port, 120_000, deadCheck);
    await ensureNamespace(address, namespace, deadCheck, log);
  } catch (err) {
    await proc.stop(5_000);
    throw err;
  }
  return { address, port, namespace, process: proc, env, stop: () => proc.stop(20_000) };
}

/**
 * Registers the namespace when missing, then waits until the frontend takes a call that goes
 * through its namespace registry (which refreshes from the database every few seconds).
 */
async function ensureNamespace(
  address: string,
  namespace: string,
  deadCheck: () => string | undefined,
  log: (msg: string) => void,
): Promise<void> {
  const deadline = Date.now() + 120_000;
  let connection: Connection | undefined;
  for (;;) {
    try {
      connection = await Connection.connect({ address, connectTimeout: 5_000 });
      break;
    } catch (err) {
      if (Date.now() > deadline || deadCheck()) throw new Error(deadCheck() ?? String(err));
      await sleep(500);
    }
  }
  try {
    let registered = false;
    for (;;) {
      const dead = deadCheck();
      if (dead) throw new Error(dead);
      try {
        await connection.workflowService.describeNamespace({ namespace });
        // Known to the registry: a visibility read in the namespace answers.
        await connection.workflowService.countWorkflowExecutions({ namespace, query: '' });
        return;
      } catch (err) {
        const code = (err as { code?: number }).code;
        // 5 NOT_FOUND: the namespace is not there yet.
        if (code === 5 && !registered) {
          try {
            // Retention 72 h, as the compose file's namespace job. protobufjs takes a plain number
            // for the int64 `seconds` (its type says Long).
            const retention = { seconds: 72 * 3600 } as unknown as NonNullable<
              Parameters<
                typeof connection.workflowService.registerNamespace
              >[0]['workflowExecutionRetentionPeriod']
            >;
            await connection.workflowService.registerNamespace({
              namespace,
              workflowExecutionRetentionPeriod: retention,
            });
            log(`registered the Temporal namespace ${namespace}`);
          } catch (e) {
            // 6 ALREADY_EXISTS: another start registered it.
            if ((e as { code?: number }).code !== 6) throw e;
          }
          registered = true;
        }
        if (Date.now() > deadline) throw err;
        await sleep(500);
      }
    }
  } finally {
    await connection.close();
  }
}
