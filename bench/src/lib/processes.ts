import { type ChildProcess, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '@opi/devstack';
import { procTable } from './cpu.js';

/** The pids whose parent is `pid` (Linux /proc; empty elsewhere). */
export function childrenOf(pid: number): number[] {
  return [...procTable()].filter(([, e]) => e.ppid === pid).map(([child]) => child);
}

/**
 * Waits until an API cluster primary has forked `n` processes, then gives them `settleMs` to load
 * and listen (the port answers as soon as the first listens; the primary hands connections only to
 * processes that listen, so a late one would be skipped by the warm-up, not by the measurement).
 */
export async function waitForApiProcesses(primary: number, n: number, settleMs = 6000): Promise<number[]> {
  if (n <= 1) return [primary];
  const deadline = Date.now() + 60_000;
  let kids = childrenOf(primary);
  while (kids.length < n) {
    if (Date.now() > deadline) throw new Error(`the API cluster forked ${kids.length} of ${n} processes`);
    await new Promise((r) => setTimeout(r, 100));
    kids = childrenOf(primary);
  }
  await new Promise((r) => setTimeout(r, settleMs));
  return kids;
}

/**
 * A service of the repository (`entry`, run from its TypeScript source) on the bench stack's
 * environment (`stackEnv`) with `env` over it: only its errors logged, to this process's stderr;
 * its metrics ports free unless `env` names them. `nodeArgs` come first (profiling flags),
 * `imports` are loaded before the entry. Added to `children`, which the bench stops at its end.
 */
export function spawnService(o: {
  entry: string;
  stackEnv: Record<string, string>;
  env: Record<string, string>;
  children: ChildProcess[];
  nodeArgs?: string[];
  imports?: string[];
}): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      ...(o.nodeArgs ?? []),
      '--conditions=source',
      ...(o.imports ?? []).flatMap((i) => ['--import', i]),
      '--import',
      'tsx',
      path.join(REPO_ROOT, o.entry),
    ],
    {
      env: {
        ...process.env,
        ...o.stackEnv,
        LOG_LEVEL: 'error',
        API_METRICS_PORT: '0',
        WORKER_METRICS_PORT: '0',
        ...o.env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  o.children.push(child);
  return child;
}

/**
 * A bench's teardown, each step whatever the one before did: its Temporal connections closed, its
 * service processes sent SIGTERM, Temporal stopped, half a second for them to go, then the stack
 * and the temp folder.
 */
export async function tearDown(o: {
  connections: ({ close(): Promise<void> } | undefined)[];
  children: ChildProcess[];
  stopTemporal: (() => Promise<void>) | undefined;
  stack: { stop(): Promise<void> };
  tmp: string;
}): Promise<void> {
  for (const c of o.connections) await c?.close().catch(() => {});
  for (const child of o.children) child.kill('SIGTERM');
  await o.stopTemporal?.().catch(() => {});
  await new Promise((r) => setTimeout(r, 500));
  await o.stack.stop();
  await rm(o.tmp, { recursive: true, force: true });
}
