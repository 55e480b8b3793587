import type { RoundIntent } from '@opi/wallet/intent';
import type { Client, WorkflowHandleWithStartDetails } from '@temporalio/client';
import type { floorRound } from './workflow.js';

/**
 * Starts the floor workflow for `intent` with the start options of a round's settlement
 * (workflow id = round id, attach to a running one, never rerun a finished one). `eager` asks for
 * eager start: the client must be built on a NativeConnection that a Worker on `taskQueue` in
 * this process shares; the handle's `eagerlyStarted` says whether the server granted it.
 */
export function startFloorRound(
  client: Client,
  taskQueue: string,
  intent: RoundIntent,
  opts: { eager?: boolean; oneStep?: boolean } = {},
): Promise<WorkflowHandleWithStartDetails<typeof floorRound>> {
  return client.workflow.start<typeof floorRound>('floorRound', {
    taskQueue,
    workflowId: intent.roundId,
    args: [{ intent, ...(opts.oneStep ? { oneStep: true } : {}) }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    ...(opts.eager ? { requestEagerStart: true } : {}),
  });
}
