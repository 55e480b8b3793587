import { type RoundIntent, type RoundOutcome, startSettlement } from '@opi/workflows';
import type { WorkflowHandle } from '@temporalio/client';
import type { ApiDeps } from '../deps.js';

/**
 * Starts (or attaches to) a round's settlement workflow from a runtime route. With the process's
 * hosted settlement worker polling, the start is eager on the client that shares its connection:
 * the first workflow task comes back in the start response and runs in this process. Otherwise an
 * ordinary start on the process's client.
 */
export function startRoundSettlement(
  temporal: NonNullable<ApiDeps['temporal']>,
  intent: RoundIntent,
): Promise<WorkflowHandle<(input: unknown) => Promise<RoundOutcome>>> {
  const eager = temporal.eagerClient;
  return eager
    ? startSettlement(eager, temporal.taskQueue, intent, undefined, { eager: true })
    : startSettlement(temporal.client, temporal.taskQueue, intent);
}
