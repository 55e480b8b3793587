import type { Pool, SecretBox } from '@opi/db';
import { createActivities } from '@opi/workflows';
import { NativeConnection, Worker } from '@temporalio/worker';

export interface WorkerOptions {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  pool: Pool;
  box: SecretBox;
  walletTimeoutMs: number;
  requireHttps: boolean;
  log?: (level: 'warn' | 'error' | 'info', msg: string, fields: Record<string, unknown>) => void;
  /** Path of the workflow bundle built ahead of time (workflows/dist/workflow-bundle.js). */
  bundlePath: string;
  maxConcurrentActivities?: number;
  maxConcurrentWorkflowTasks?: number;
  identity?: string;
}

/** Connects to Temporal and creates the settlement worker; the caller runs and shuts it down. */
export async function createWorker(
  options: WorkerOptions,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: options.temporalAddress });
  try {
    const worker = await Worker.create({
      connection,
      namespace: options.namespace,
      taskQueue: options.taskQueue,
      workflowBundle: { codePath: options.bundlePath },
      activities: createActivities({
        pool: options.pool,
        box: options.box,
        settlement: {
          walletTimeoutMs: options.walletTimeoutMs,
          requireHttps: options.requireHttps,
          ...(options.log ? { log: options.log } : {}),
        },
      }),
      maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? 100,
      maxConcurrentWorkflowTaskExecutions: options.maxConcurrentWorkflowTasks ?? 100,
      ...(options.identity ? { identity: options.identity } : {}),
    });
    return { worker, connection };
  } catch (err) {
    await connection.close();
    throw err;
  }
}
