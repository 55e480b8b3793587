import { existsSync } from 'node:fs';
import type { Logger } from '@opi/config';
import type { WalletStepDeps } from '@opi/wallet';
import { WORKFLOW_BUNDLE_PATH } from '@opi/workflows';
import { createSettlementWorker } from '@opi/workflows/worker';
import { Client } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { LocalOutcomes } from './local-outcomes.js';

/** The wallet step's settings (pool, box, wallet timeout, address policy; it logs to `logger`) and the worker's. */
export interface HostedWorkerOptions extends Omit<WalletStepDeps, 'log'> {
  address: string;
  namespace: string;
  taskQueue: string;
  maxConcurrentActivities: number;
  maxConcurrentWorkflowTasks: number;
  logger: Logger;
  /** Called with the client built on the worker's connection once the worker polls; null when it stops. */
  onEagerClient(client: Client | null): void;
  /** Where its activities announce the rounds they settle (for the routes that started them). */
  outcomes?: LocalOutcomes;
  /** Delay between attempts while Temporal does not answer (ms). */
  retryMs?: number;
  /** Worker Deployment Versioning (WORKER_DEPLOYMENT_NAME, WORKER_BUILD_ID); unversioned without. */
  deployment?: { name: string; buildId: string };
}

export interface HostedWorker {
  /** Whether the worker is polling (starts are eager). */
  readonly running: boolean;
  /**
   * Graceful stop: no new tasks; workflow tasks and local activities in hand finish (a money step
   * already sent is recorded), then the connection closes.
   */
  stop(): Promise<void>;
}

/**
 * The game-server process's own settlement worker (GAME_SETTLEMENT_WORKER=on). It polls the same task queue
 * as the worker processes on a NativeConnection that the process's round-starting client shares,
 * so a round workflow the API starts with `requestEagerStart` gets its first workflow task back in
 * the start response and runs here, without a trip through matching. Anything not eager (retries
 * after a crash, resumed rounds, signals, timers) goes to whichever worker polls first.
 *
 * It starts in the background: the API serves before Temporal answers (starts are ordinary until
 * then). When Temporal is unreachable or the worker fails, starts fall back to ordinary ones and
 * the worker is created again after `retryMs`.
 */
export function startHostedWorker(options: HostedWorkerOptions): HostedWorker {
  const retryMs = options.retryMs ?? 2_000;
  const log = options.logger;
  if (!existsSync(WORKFLOW_BUNDLE_PATH)) {
    // Nothing to run: starts stay ordinary and the worker processes take every round.
    log.warn('no workflow bundle: the hosted settlement worker is off (npm run build -w workflows)', {
      path: WORKFLOW_BUNDLE_PATH,
    });
    return { running: false, stop: async () => {} };
  }
  let stopping = false;
  let worker: Worker | undefined;
  let running = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function runOnce(): Promise<void> {
    const connection = await NativeConnection.connect({ address: options.address });
    try {
      if (stopping) return;
      worker = await createSettlementWorker({
        connection,
        namespace: options.namespace,
        taskQueue: options.taskQueue,
        pool: options.pool,
        box: options.box,
        bundlePath: WORKFLOW_BUNDLE_PATH,
        settlement: {
          walletTimeoutMs: options.walletTimeoutMs,
          requireHttps: options.requireHttps,
          ...(options.allowPrivateNetworks !== undefined
            ? { allowPrivateNetworks: options.allowPrivateNetworks }
            : {}),
          log: (level, msg, fields) => log[level](msg, fields),
          ...(options.outcomes ? { announce: options.outcomes.announce } : {}),
        },
        maxConcurrentActivities: options.maxConcurrentActivities,
        maxConcurrentWorkflowTasks: options.maxConcurrentWorkflowTasks,
        identity: `game-${process.pid}@${options.taskQueue}`,
        ...(options.deployment ? { deployment: options.deployment } : {}),
      });
      const run = worker.run();
      running = true;
      try {
        if (stopping) {
          worker.shutdown();
        } else {
          // An eager start's first workflow task is recorded under the starter's identity.
          options.onEagerClient(
            new Client({
              connection,
              namespace: options.namespace,
              identity: `game-${process.pid}-start@${options.taskQueue}`,
            }),
          );
          log.info('hosted settlement worker polling', { task_queue: options.taskQueue });
        }
        await run;
      } finally {
        running = false;
        options.onEagerClient(null);
      }
    } finally {
      worker = undefined;
      await connection.close().catch(() => {});
    }
  }

  const loop = (async () => {
    while (!stopping) {
      try {
        await runOnce();
        if (!stopping) log.warn('hosted settlement worker stopped; starting it again', {});
      } catch (err) {
        if (!stopping) {
          log.warn('hosted settlement worker unavailable; round starts are not eager meanwhile', {
            error: err instanceof Error ? err.message : String(err),
          });
        }
      }
      if (!stopping) await pause(retryMs);
    }
  })();

  return {
    get running() {
      return running;
    },
    async stop() {
      stopping = true;
      wake?.();
      if (worker && running && worker.getState() === 'RUNNING') worker.shutdown();
      await loop;
    },
  };
}
