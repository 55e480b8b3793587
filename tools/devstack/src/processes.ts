import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processAlive } from '@opi/config/process';
import { sleep } from './wait.js';

export interface Supervised {
  name: string;
  child: ChildProcess;
  /** Set once the process has exited. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Starts a child process whose output lines are prefixed with its name, and records its pid
 * under runDir so a later start can stop it if this supervisor was killed outright.
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    runDir?: string;
    quiet?: boolean;
    onLine?: (line: string) => void;
  },
): Supervised {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pidFile = options.runDir && child.pid ? path.join(options.runDir, `${name}.pid`) : undefined;
  if (pidFile) {
    mkdirSync(path.dirname(pidFile), { recursive: true });
    writeFileSync(pidFile, String(child.pid));
  }
  const handle: Supervised = {
    name,
    child,
    async stop(timeoutMs = 10_000) {
      if (handle.exit || child.exitCode !== null) return;
      child.kill('SIGTERM');
      const deadline = Date.now() + timeoutMs;
      while (!handle.exit && Date.now() < deadline) await sleep(50);
      if (!handle.exit) {
        child.kill('SIGKILL');
        while (!handle.exit) await sleep(20);
      }
    },
  };
  const pipe = (stream: NodeJS.ReadableStream | null) => {
    let buf = '';
    stream?.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let i = buf.indexOf('\n');
      while (i >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        options.onLine?.(line);
        if (!options.quiet) process.stdout.write(`[${name}] ${line}\n`);
        i = buf.indexOf('\n');
      }
    });
  };
  pipe(child.stdout);
  pipe(child.stderr);
  child.on('exit', (code, signal) => {
    handle.exit = { code, signal };
    if (pidFile) rmSync(pidFile, { force: true });
  });
  return handle;
}

/** Stops processes a previous supervisor left behind (their pid files are still in runDir). */
export async function stopLeftovers(runDir: string, log: (msg: string) => void): Promise<void> {
  let files: string[] = [];
  try {
    files = readdirSync(runDir).filter((f) => f.endsWith('.pid'));
  } catch {
    return;
  }
  for (const file of files) {
    const pid = Number(readFileSync(path.join(runDir, file), 'utf8'));
    if (Number.isInteger(pid) && pid > 1 && processAlive(pid)) {
      log(`stopping ${file.replace(/\.pid$/, '')} left running by an earlier start (pid ${pid})`);
      process.kill(pid, 'SIGTERM');
      for (let i = 0; i < 100 && processAlive(pid); i++) await sleep(100);
      if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    rmSync(path.join(runDir, file), { force: true });
  }
}
