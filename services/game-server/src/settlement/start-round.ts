import type { RoundIntent, RoundOutcome } from '@opi/wallet/intent';
import { startSettlement } from '@opi/workflows';
import type { WorkflowHandle } from '@temporalio/client';
import type { GameDeps } from '../deps.js';
import { firstOutcome, LOCAL_OUTCOME_GRACE_MS } from './local-outcomes.js';

export interface StartedRound {
  handle: WorkflowHandle<(input: unknown) => Promise<RoundOutcome>>;
  /** Whether the server handed the first workflow task to this process (eager start). */
  eager: boolean;
  /**
   * The round's outcome, or null once `waitMs` has passed. Eager: as this process's hosted worker
   * announces it (the journal and the round's status committed), else the workflow's result.
   */
  settled(waitMs?: number): Promise<RoundOutcome | null>;
}

/**
 * Starts (or attaches to) a round's settlement workflow from a runtime route. With the process's
 * hosted settlement worker polling, the start is eager on the client that shares its connection:
 * the first workflow task comes back in the start response and runs in this process, which then
 * learns the outcome from its own activities (local-outcomes.ts) instead of a
 * long poll for the workflow's result. Otherwise an ordinary start on the process's client.
 */
export async function startRoundSettlement(
  temporal: NonNullable<GameDeps['temporal']>,
  intent: RoundIntent,
  options: {
    /** The caller will call `settled()`: listen for the outcome from the start on. */
    awaitOutcome?: boolean;
  } = {},
): Promise<StartedRound> {
  const eagerClient = temporal.eagerClient;
  const local =
    options.awaitOutcome && eagerClient && temporal.outcomes
      ? temporal.outcomes.wait(intent.roundId)
      : undefined;
  let handle: Awaited<ReturnType<typeof startSettlement>>;
  try {
    handle = eagerClient
      ? await startSettlement(eagerClient, temporal.taskQueue, intent, undefined, { eager: true })
      : await startSettlement(temporal.client, temporal.taskQueue, intent);
  } catch (err) {
    local?.cancel();
    throw err;
  }
  const eager = local !== undefined && handle.eagerlyStarted === true;
  if (!eager) local?.cancel();
  return {
    handle,
    eager,
    settled: async (waitMs) => {
      const first = await firstOutcome({
        local,
        eager,
        result: () => handle.result() as Promise<RoundOutcome>,
        graceMs: LOCAL_OUTCOME_GRACE_MS,
        ...(waitMs !== undefined ? { waitMs } : {}),
      });
      return first ? first.outcome : null;
    },
  };
}
