/**
 * The default stack for a run without configuration: what `npm start` runs
 * (packages/devstack/src/stack.ts), in a fresh data folder on free ports, checked with the demo
 * operator's key. Stopped (Ctrl-C, in order) and its folder removed afterwards.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { E2E_ROOT } from './settings.js';

export const REPO_ROOT = path.resolve(E2E_ROOT, '..');
const STACK_ENTRY = path.join(REPO_ROOT, 'packages', 'devstack', 'src', 'stack.ts');

export interface StackSecrets {
  providerAdminKey: string;
  demoWalletSecret: string;
  walletAdminToken: string;
  demoOperatorKey: string;
}

export interface RunningStack {
  baseUrl: string;
  /** The sandbox wallet's base (its staff API is under /admin). */
  walletUrl: string;
  apiKey: string;
  dataDir: string;
  secrets: StackSecrets;
  stop(): Promise<void>;
}

export interface StackOptions {
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

export async function startDefaultStack(options: StackOptions = {}): Promise<RunningStack> {
  const log = options.log ?? (() => {});
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'opi-golive-'));
  await chmod(dataDir, 0o755); // the embedded PostgreSQL runs as the postgres user when we are root
  const names = [
    'PORT',
    'PG_PORT',
    'TEMPORAL_PORT',
    'TEMPORAL_UI_PORT',
    'WALLET_PORT',
    'PORTAL_PORT',
    'API_METRICS_PORT',
    'WORKER_METRICS_PORT',
  ];
  const ports: Record<string, string> = {};
  for (const n of names) ports[n] = String(await freePort());
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    // The go-live checks need no staff portal (nor its `next build`).
    STACK_PORTAL: 'off',
    DATA_DIR: dataDir,
    ...ports,
  };
  for (const k of [
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'PROVIDER_ADMIN_KEY',
    'SERVICE_SECRET',
    'PUBLIC_BASE_URL',
  ])
    delete env[k];
  Object.assign(env, options.env ?? {});

  if (options.logFile) await mkdir(path.dirname(options.logFile), { recursive: true });
  const file = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
  log(`starting the default stack (data in ${dataDir})`);
  const started = Date.now();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', STACK_ENTRY],
    {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let tail = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      file?.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-8000);
      if (tail.includes('[stack] ready in')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`the stack exited (${code}) before it was ready:\n${tail}`)));
  });
  const timeoutMs = options.timeoutMs ?? 600_000;
  let timer: NodeJS.Timeout | undefined;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(killer);
    }
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
  log(`the default stack is ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const secrets = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as StackSecrets;
  return {
    baseUrl: `http://127.0.0.1:${ports.PORT}`,
    walletUrl: `http://127.0.0.1:${ports.WALLET_PORT}`,
    apiKey: secrets.demoOperatorKey,
    dataDir,
    secrets,
    stop,
  };
}
