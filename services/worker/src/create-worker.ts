import type { WalletStepDeps } from '@opi/wallet';
import { createSettlementWorker } from '@opi/workflows/worker';
import { NativeConnection, type Worker } from '@temporalio/worker';

/** The wallet step's settings (pool, box, wallet timeout, address policy, log) and the worker's. */
export interface WorkerOptions extends WalletStepDeps {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  /** Path of the workflow bundle built ahead of time (workflows/dist/workflow-bundle.js). */
  bundlePath: string;
  maxConcurrentActivities?: number;
  maxConcurrentWorkflowTasks?: number;
  identity?: string;
  /** Worker Deployment Versioning (WORKER_DEPLOYMENT_NAME, WORKER_BUILD_ID); unversioned without. */
  deployment?: { name: string; buildId: string };
}

/** Connects to Temporal and creates the settlement worker; the caller runs and shuts it down. */
export async function createWorker(
  options: WorkerOptions,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: options.temporalAddress });
  try {
    const worker = await createSettlementWorker({
      connection,
      namespace: options.namespace,
      taskQueue: options.taskQueue,
      pool: options.pool,
      box: options.box,
      bundlePath: options.bundlePath,
      settlement: {
        walletTimeoutMs: options.walletTimeoutMs,
        requireHttps: options.requireHttps,
        ...(options.allowPrivateNetworks !== undefined
          ? { allowPrivateNetworks: options.allowPrivateNetworks }
          : {}),
        ...(options.log ? { log: options.log } : {}),
      },
      ...(options.maxConcurrentActivities
        ? { maxConcurrentActivities: options.maxConcurrentActivities }
        : {}),
      ...(options.maxConcurrentWorkflowTasks
        ? { maxConcurrentWorkflowTasks: options.maxConcurrentWorkflowTasks }
        : {}),
      ...(options.identity ? { identity: options.identity } : {}),
      ...(options.deployment ? { deployment: options.deployment } : {}),
    });
    return { worker, connection };
  } catch (err) {
    await connection.close();
    throw err;
  }
}
