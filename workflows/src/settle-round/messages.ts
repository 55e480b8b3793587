// The settlement workflow's messages, shared by the workflow and its callers (the API's game
// runtimes, staff tools, tests). Definitions only: safe to import outside the workflow bundle.

import type { RoundOutcome } from '@opi/wallet/intent';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

export const finishUpdate = defineUpdate<RoundOutcome, [{ winMinor: string }]>('finish');
export const cancelUpdate = defineUpdate<RoundOutcome, [{ reason: string }]>('cancel');
/** A stage of a multi-step round: resets the abandon timer and sets the current cash-out offer. */
export const stageSignal = defineSignal<[{ cashoutMinor: string }]>('stage');
/** Staff cancel of an unfinished round: applied once the debit's outcome is known. */
export const staffCancelSignal = defineSignal<[{ reason: string }]>('staffCancel');
export const stateQuery = defineQuery<{ phase: string; outcome?: RoundOutcome }>('state');
