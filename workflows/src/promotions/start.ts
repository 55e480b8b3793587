import { type Client, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { tournamentCancelSignal } from './messages.js';
import type { PromoTuning, payPromo, runTournament } from './workflow.js';

/** The workflow id of a tournament: `tournament-<id>`. */
export function tournamentWorkflowId(tournamentId: string): string {
  return `tournament-${tournamentId}`;
}

/**
 * Starts a tournament's workflow (or attaches to the running one); a finished one is never run
 * again (`started: false`).
 */
export async function startTournamentWorkflow(
  client: Client,
  taskQueue: string,
  tournamentId: string,
  tuning?: Partial<PromoTuning>,
): Promise<{ handle: WorkflowHandle<typeof runTournament>; started: boolean }> {
  const workflowId = tournamentWorkflowId(tournamentId);
  try {
    const handle = await client.workflow.start<typeof runTournament>('runTournament', {
      taskQueue,
      workflowId,
      args: [{ tournamentId, ...(tuning ? { tuning } : {}) }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    return { handle, started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError)
      return { handle: client.workflow.getHandle(workflowId), started: false };
    throw err;
  }
}

/** Wakes a tournament's workflow after a cancel (it reads the database); false if none runs. */
export async function signalTournamentCancel(client: Client, tournamentId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(tournamentWorkflowId(tournamentId)).signal(tournamentCancelSignal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts the payout's workflow (workflow id = payout id). A second start while it runs attaches
 * to it; once it finished it is never run again (`started: false`): a payout is paid once.
 */
export async function startPayPromo(
  client: Client,
  taskQueue: string,
  payoutId: string,
  tuning?: Partial<PromoTuning>,
): Promise<{ handle: WorkflowHandle<typeof payPromo>; started: boolean }> {
  try {
    const handle = await client.workflow.start<typeof payPromo>('payPromo', {
      taskQueue,
      workflowId: payoutId,
      args: [{ payoutId, ...(tuning ? { tuning } : {}) }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    return { handle, started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError)
      return { handle: client.workflow.getHandle(payoutId), started: false };
    throw err;
  }
}
