import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPool, ensureDatabase, type Pool, withDatabase } from '@opi/db';
import { startEmbeddedPostgres } from '@opi/db/embedded';
import { freePort, REPO_ROOT, waitForPort } from '@opi/devstack';
import { operatorSignatureHeaders } from '@opi/operator-sdk';
import { preparePlatformSchema } from './platform-schema.js';

export const BENCH_SERVICE_SECRET = 'bench-service-secret-0123456789abcdef';
export const BENCH_ADMIN_KEY = 'padm_bench_admin_key_0123456789abcdefghijkl';

export interface BenchStack {
  databaseUrl: string;
  pool: Pool;
  env: Record<string, string>;
  /**
   * An API process on a free port (production mode). `entry` services/api/src/cluster.ts with
   * API_PROCESSES > 1 in `extra` starts that many processes sharing the port.
   */
  startApi(
    extra?: Record<string, string>,
    entry?: string,
  ): Promise<{ origin: string; pid: number; child: ChildProcess }>;
  /**
   * A game-server process on a free port (production mode; launch URLs of startApi's processes
   * started after it point at it). `entry` services/game-server/src/cluster.ts with GAME_PROCESSES
   * > 1 in `extra` starts that many processes sharing the port.
   */
  startGameServer(
    extra?: Record<string, string>,
    entry?: string,
  ): Promise<{ origin: string; pid: number; child: ChildProcess }>;
  /** The second PostgreSQL server, for the Temporal server's databases (`temporalPostgres: true`). */
  temporalPostgres?: TemporalPostgresServer;
  stop(): Promise<void>;
}

export interface TemporalPostgresServer {
  /** Connection string of its `postgres` database (the Temporal server's databases are made by its schema tool). */
  url: string;
  /** The postmaster's pid: its process tree is this server's CPU (the table's `tpg`). */
  pid: number;
  /** A small pool on its `postgres` database with pg_stat_statements created (PG_STAT_STATEMENTS=1|all). */
  statementsPool?: Pool;
}

export interface BenchStackOptions {
  /**
   * A second embedded PostgreSQL server (own port and data folder, max_connections=300) for the
   * real Temporal server's databases: its CPU is its own process tree, apart from the platform's.
   */
  temporalPostgres?: boolean;
}

/**
 * A private PostgreSQL (embedded, temporary) with the schema and catalog, and API processes on
 * demand; with `temporalPostgres` a second one for the Temporal server.
 */
export async function startBenchStack(options: BenchStackOptions = {}): Promise<BenchStack> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'opi-bench-'));
  await chmod(dir, 0o755);
  // PG_STAT_STATEMENTS=1: the server loads pg_stat_statements (benchmarks print what each statement
  // costs); PG_STAT_STATEMENTS=all counts the statements run inside functions and triggers too.
  const statements = process.env.PG_STAT_STATEMENTS === '1' || process.env.PG_STAT_STATEMENTS === 'all';
  const statementSettings = statements
    ? [
        'shared_preload_libraries=pg_stat_statements',
        `pg_stat_statements.track=${process.env.PG_STAT_STATEMENTS === 'all' ? 'all' : 'top'}`,
        // PG_TRACK_PLANNING=1: planning time too (node-postgres plans every unnamed statement).
        ...(process.env.PG_TRACK_PLANNING === '1' ? ['pg_stat_statements.track_planning=on'] : []),
      ]
    : [];
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'pg'),
    port: await freePort(),
    ...(statementSettings.length ? { settings: statementSettings } : {}),
  });
  // Temporal's server: its persistence and visibility pools per service (SQL_MAX_CONNS and
  // SQL_VIS_MAX_CONNS for frontend, history, matching, worker) need the connections.
  let tpg: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  let temporalPostgres: TemporalPostgresServer | undefined;
  if (options.temporalPostgres) {
    const dataDir = path.join(dir, 'tpg');
    tpg = await startEmbeddedPostgres({
      dataDir,
      port: await freePort(),
      settings: ['max_connections=300', ...statementSettings],
    });
    const pid = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    temporalPostgres = { url: tpg.url, pid };
    if (statements) {
      const statementsPool = createPool(tpg.url, { max: 2 });
      await statementsPool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      temporalPostgres.statementsPool = statementsPool;
    }
  }
  await ensureDatabase(pg.url, 'opi');
  const databaseUrl = withDatabase(pg.url, 'opi');
  const pool = createPool(databaseUrl, { max: 4 });
  await preparePlatformSchema(databaseUrl, pool, {
    serviceSecret: BENCH_SERVICE_SECRET,
    adminKey: BENCH_ADMIN_KEY,
  });
  if (statements) await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    SERVICE_SECRET: BENCH_SERVICE_SECRET,
    PUBLIC_BASE_URL: 'https://api.bench.test',
    GAME_BASE_URL: 'https://games.bench.test',
    LOG_LEVEL: 'warn',
    SIGNED_REQUESTS: 'required',
  };
  const children: ChildProcess[] = [];
  /** One service process (the API or the game server) on a free port. */
  const startService = async (entry: string, portVariable: string, extra: Record<string, string>) => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        // API_CPU_PROF=<dir>: a CPU profile of the service process, written when it stops.
        ...(process.env.API_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.API_CPU_PROF}`] : []),
        path.join(REPO_ROOT, entry),
      ],
      {
        // Metrics ports 0: no metrics server (benchmarks scrape nothing; no port clashes).
        env: {
          ...process.env,
          API_METRICS_PORT: '0',
          GAME_METRICS_PORT: '0',
          ...env,
          ...extra,
          [portVariable]: String(port),
          HOST: '127.0.0.1',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    children.push(child);
    // A loaded machine compiles the TypeScript slowly: give it time to listen.
    await waitForPort('127.0.0.1', port, 120_000);
    return { origin: `http://127.0.0.1:${port}`, pid: child.pid!, child };
  };
  return {
    databaseUrl,
    pool,
    env,
    ...(temporalPostgres ? { temporalPostgres } : {}),
    startApi: (extra = {}, entry = 'services/api/src/main.ts') => startService(entry, 'PORT', extra),
    startGameServer: (extra = {}, entry = 'services/game-server/src/main.ts') =>
      startService(entry, 'GAME_SERVER_PORT', extra),
    async stop() {
      for (const c of children) c.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      await pool.end();
      await temporalPostgres?.statementsPool?.end();
      await pg.stop();
      await tpg?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Signed headers for one request (pp-operator-v1, a fresh nonce). */
export function signedHeaders(
  key: string,
  method: string,
  pathAndQuery: string,
  body = '',
): Record<string, string> {
  return {
    'x-provider-api-key': key,
    ...operatorSignatureHeaders(key, { method, pathAndQuery, body }),
    ...(body ? { 'content-type': 'application/json' } : {}),
  };
}

/** Admin API call with the bench admin key (signed: the bench API runs in production mode). */
export async function admin(origin: string, method: string, p: string, body?: unknown): Promise<any> {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const res = await fetch(origin + p, {
    method,
    headers: signedHeaders(BENCH_ADMIN_KEY, method, p, raw),
    ...(raw ? { body: raw } : {}),
  });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * Creates the benches' operator `op_bench` through the admin API, its wallet a placeholder unless
 * `fields` say otherwise (the benches that use it never settle), `fields` over the defaults.
 */
export async function createBenchOperator(
  origin: string,
  fields: Record<string, unknown> = {},
): Promise<void> {
  await admin(origin, 'POST', '/api/admin/v1/operators', {
    operator_id: 'op_bench',
    name: 'Bench',
    wallet_base_url: 'https://wallet.bench.test/wallet',
    ...fields,
  });
}

/** A new API key of `op_bench`. */
export async function benchApiKey(origin: string): Promise<string> {
  return (await admin(origin, 'POST', '/api/admin/v1/operators/op_bench/api-keys', {})).data
    .api_key as string;
}
