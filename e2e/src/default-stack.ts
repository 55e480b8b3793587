/**
 * The default stack for a run without configuration: what `npm start` runs
 * (tools/devstack/src/stack.ts), in a fresh data folder on free ports, checked with the demo
 * operator's key. With `cluster`, what `npm run start:cluster` runs instead (stack.ts --cluster:
 * the real Temporal server, two API processes and two workers, NODE_ENV=production, signed
 * requests, HTTPS for the API and the sandbox wallet with a local certificate it makes in its data
 * folder). Stopped in order afterwards (one SIGINT to the stack, which stops its services in
 * reverse order) and its folder removed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { E2E_ROOT } from './settings.js';

export const REPO_ROOT = path.resolve(E2E_ROOT, '..');
const STACK_ENTRY = path.join(REPO_ROOT, 'tools', 'devstack', 'src', 'stack.ts');

export interface StackSecrets {
  providerAdminKey: string;
  demoWalletSecret: string;
  walletAdminToken: string;
  demoOperatorKey: string;
  /** The demo staff account's password (`demo`, admin of op_demo). */
  demoStaffPassword?: string;
}

export interface RunningStack {
  kind: 'default' | 'cluster';
  /** The operator API. */
  baseUrl: string;
  /** The game server (GAME_SERVER_PORT): the origin of every launch URL. */
  gameUrl: string;
  /** The sandbox wallet's base (its staff API is under /admin). */
  walletUrl: string;
  apiKey: string;
  dataDir: string;
  secrets: StackSecrets;
  /** The certificate the stack serves HTTPS with (the cluster stack only): trust it. */
  certFile?: string;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** The cluster stack (`npm run start:cluster`) instead of the default one. */
  cluster?: boolean;
  /** Extra environment for the stack, e.g. DATABASE_URL and TEMPORAL_ADDRESS of running servers. */
  env?: NodeJS.ProcessEnv;
  /** Where the stack's output goes (appended). */
  logFile?: string;
  log?: (line: string) => void;
  timeoutMs?: number;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free port between 20000 and 32000 (`freeLowPort` of tools/devstack/src/temporal-cluster.ts,
 * not imported: the package's index would load the Temporal client into the Playwright runner).
 * The cluster stack's Temporal frontend needs one: the server keeps member ports in a smallint.
 */
async function freeLowPort(taken: Set<number>, consecutive = 1): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const all = Array.from({ length: consecutive }, (_, k) => port + k);
    if (all.some((p) => taken.has(p))) continue;
    let free = true;
    for (const p of all) if (!(await portFree(p))) free = false;
    if (free) {
      for (const p of all) taken.add(p);
      return port;
    }
  }
  throw new Error('no free port between 20000 and 32000');
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function startDefaultStack(options: StackOptions = {}): Promise<RunningStack> {
  const log = options.log ?? (() => {});
  const cluster = options.cluster === true;
  const kind = cluster ? 'cluster' : 'default';
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `opi-golive-${cluster ? 'cluster-' : ''}`));
  await chmod(dataDir, 0o755); // the embedded PostgreSQL runs as the postgres user when we are root
  const names = [
    'PORT',
    'GAME_SERVER_PORT',
    'PG_PORT',
    'WALLET_PORT',
    'PORTAL_PORT',
    'API_METRICS_PORT',
    'GAME_METRICS_PORT',
  ];
  if (!cluster) names.push('TEMPORAL_PORT', 'TEMPORAL_UI_PORT', 'WORKER_METRICS_PORT');
  const ports: Record<string, string> = {};
  for (const n of names) ports[n] = String(await freePort());
  if (cluster) {
    // Worker i serves metrics on WORKER_METRICS_PORT + i (two workers: two consecutive ports);
    // the Temporal frontend below 32768.
    const taken = new Set(Object.values(ports).map(Number));
    ports.WORKER_METRICS_PORT = String(await freeLowPort(taken, 2));
    ports.TEMPORAL_PORT = String(await freeLowPort(taken));
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'warn',
    // The go-live checks need no staff portal (nor its `next build`).
    STACK_PORTAL: 'off',
    DATA_DIR: dataDir,
    ...ports,
  };
  // The cluster stack sets NODE_ENV (production for its services), the process counts, signed
  // requests and its certificate itself. Under production the demo operator (whose key the checks
  // use) and the demo staff account are made only on request (issue 34).
  if (!cluster) env.NODE_ENV = 'development';
  else env.STACK_DEMO = 'on';
  for (const k of [
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'PROVIDER_ADMIN_KEY',
    'SERVICE_SECRET',
    'PUBLIC_BASE_URL',
    'GAME_BASE_URL',
    ...(cluster
      ? [
          'NODE_ENV',
          'NODE_EXTRA_CA_CERTS',
          'TLS_CERT_FILE',
          'TLS_KEY_FILE',
          'API_PROCESSES',
          'GAME_PROCESSES',
          'WORKER_PROCESSES',
          'SIGNED_REQUESTS',
        ]
      : []),
  ])
    delete env[k];
  Object.assign(env, options.env ?? {});
  // The certificate the cluster stack serves: its own local one unless TLS_CERT_FILE/TLS_KEY_FILE
  // were given for it (GOLIVE_STACK_TLS_CERT_FILE, ...).
  const certFile = cluster
    ? env.TLS_CERT_FILE && env.TLS_KEY_FILE
      ? path.resolve(REPO_ROOT, env.TLS_CERT_FILE)
      : path.join(dataDir, 'tls', 'cert.pem')
    : undefined;

  if (options.logFile) await mkdir(path.dirname(options.logFile), { recursive: true });
  const file = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
  log(`starting the ${kind} stack (data in ${dataDir})`);
  const started = Date.now();
  // A process group of its own: a terminal's Ctrl-C reaches the run, whose teardown stops the
  // stack with one SIGINT, so its services stop in order rather than all at once (and a second
  // signal a few seconds later would make the stack exit at once).
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', STACK_ENTRY, ...(cluster ? ['--cluster'] : [])],
    {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  // If this process ends without stopping it (a forced exit), the stack must not outlive it.
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  };
  process.once('exit', killGroup);
  let tail = '';
  let stopping = false;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      file?.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-8000);
      if (tail.includes('[stack] ready in')) resolve();
      if (tail.includes('[stack] stopping')) stopping = true;
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`the stack exited (${code}) before it was ready:\n${tail}`)));
  });
  const timeoutMs = options.timeoutMs ?? 600_000;
  let timer: NodeJS.Timeout | undefined;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // One SIGINT (the cluster stack's launcher forwards it to the process it re-ran trusting its
      // certificate); none when the stack is stopping already.
      if (!stopping) child.kill('SIGINT');
      const killer = setTimeout(killGroup, cluster ? 120_000 : 60_000);
      await exited;
      clearTimeout(killer);
    }
    process.removeListener('exit', killGroup);
    file?.end();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await Promise.race([
      ready,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the stack was not ready within ${timeoutMs / 1000} s:\n${tail}`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (err) {
    await stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  log(`the ${kind} stack is ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const secrets = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as StackSecrets;
  const scheme = cluster ? 'https' : 'http';
  return {
    kind,
    baseUrl: `${scheme}://127.0.0.1:${ports.PORT}`,
    gameUrl: `${scheme}://127.0.0.1:${ports.GAME_SERVER_PORT}`,
    walletUrl: `${scheme}://127.0.0.1:${ports.WALLET_PORT}`,
    apiKey: secrets.demoOperatorKey,
    dataDir,
    secrets,
    ...(certFile ? { certFile } : {}),
    stop,
  };
}
