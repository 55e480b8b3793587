import type { Pool, SecretBox } from '@opi/db';
import { type NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from './activities.js';
import type { SettlementDeps } from './settle-round/activities.js';

export interface SettlementWorkerOptions {
  /** The connection the worker polls on (a client built on the same one can start workflows eagerly). */
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  pool: Pool;
  box: SecretBox;
  /** Path of the workflow bundle built ahead of time (WORKFLOW_BUNDLE_PATH). */
  bundlePath: string;
  settlement?: Partial<Omit<SettlementDeps, 'pool' | 'box'>>;
  maxConcurrentActivities?: number;
  maxConcurrentWorkflowTasks?: number;
  identity?: string;
  /**
   * Worker Deployment Versioning: the version this worker polls as. Workflows default to pinned
   * (a round, a payout runs to its end on the code it started on); runTournament declares
   * auto-upgrade (it outlives every deploy and carries its changes behind patched()).
   */
  deployment?: { name: string; buildId: string };
}

/**
 * The settlement worker, as the standalone worker process (services/worker) and each API process
 * (its hosted worker, which takes the workflows it starts eagerly) create it: the ahead-of-time
 * bundle and every activity. The caller runs it and shuts it down.
 */
export function createSettlementWorker(options: SettlementWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: { codePath: options.bundlePath },
    activities: createActivities({
      pool: options.pool,
      box: options.box,
      ...(options.settlement ? { settlement: options.settlement } : {}),
    }),
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? 100,
    maxConcurrentWorkflowTaskExecutions: options.maxConcurrentWorkflowTasks ?? 100,
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.deployment
      ? {
          workerDeploymentOptions: {
            useWorkerVersioning: true,
            version: { deploymentName: options.deployment.name, buildId: options.deployment.buildId },
            defaultVersioningBehavior: 'PINNED',
          },
        }
      : {}),
  });
}

export {
  installTemporalRuntime,
  type TemporalRuntimeOptions,
  temporalLogger,
  testTemporalLevel,
} from './runtime-logger.js';
