import { Connection } from '@temporalio/client';
import { type Supervised, startProcess } from './processes.js';
import { sleep, waitForPort } from './wait.js';

export interface TemporalDevServer {
  address: string;
  uiUrl?: string;
  process: Supervised;
  stop(): Promise<void>;
}

export interface TemporalDevServerOptions {
  cliPath: string;
  port: number;
  uiPort?: number;
  /** SQLite file for persistence; in memory when absent. */
  dbFile?: string;
  headless?: boolean;
  namespace?: string;
  runDir?: string;
  quiet?: boolean;
  /** Extra `--dynamic-config-value KEY=VALUE` settings (values are JSON-encoded). */
  dynamicConfig?: Record<string, string | number | boolean>;
}

/**
 * Starts `temporal server start-dev` on loopback. With a SQLite file it uses WAL journaling.
 * Resolves once the namespace answers.
 */
export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const namespace = options.namespace ?? 'default';
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    namespace,
    '--log-level',
    'warn',
    '--log-format',
    'json',
  ];
  if (options.dbFile) {
    args.push(
      '--db-filename',
      options.dbFile,
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
    );
  }
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {})) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  if (options.headless || !options.uiPort) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort), '--ui-ip', '127.0.0.1');

  const proc = startProcess('temporal', options.cliPath, args, {
    ...(options.runDir ? { runDir: options.runDir } : {}),
    quiet: options.quiet ?? true,
  });
  const address = `127.0.0.1:${options.port}`;
  const deadCheck = () =>
    proc.exit ? `the Temporal dev server exited (${JSON.stringify(proc.exit)})` : undefined;
  await waitForPort('127.0.0.1', options.port, 60_000, deadCheck);
  // The port opens before the namespace is registered: wait until it answers.
  const connection = await Connection.connect({ address });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await connection.workflowService.describeNamespace({ namespace });
        break;
      } catch (err) {
        if (Date.now() > deadline || deadCheck()) throw err;
        await sleep(200);
      }
    }
  } finally {
    await connection.close();
  }
  return {
    address,
    ...(options.uiPort && !options.headless ? { uiUrl: `http://127.0.0.1:${options.uiPort}` } : {}),
    process: proc,
    stop: () => proc.stop(15_000),
  };
}
