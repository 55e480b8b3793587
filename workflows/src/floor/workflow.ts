import type { RoundIntent } from '@opi/wallet/intent';
import { proxyLocalActivities } from '@temporalio/workflow';
import { DEFAULT_TUNING } from '../settle-round/workflow.js';
import type { FloorActivities } from './activities.js';

export interface FloorRoundInput {
  /** A round's intent, carried only so the payloads weigh what settlement's do. */
  intent: RoundIntent;
  /** One step instead of two (what a round costs Temporal if its debit and credit were one local activity). */
  oneStep?: boolean;
}

export interface FloorRoundResult {
  /** Pids of the processes that ran the debit and the credit step. */
  pids: [number, number];
}

// The local activity options of settleRound (durable steps: no attempt limit).
const { floorDebit, floorCredit } = proxyLocalActivities<FloorActivities>({
  startToCloseTimeout: '60 seconds',
  retry: {
    initialInterval: DEFAULT_TUNING.initialRetryMs,
    maximumInterval: DEFAULT_TUNING.maxRetryMs,
    backoffCoefficient: 2,
  },
});

/**
 * The Temporal floor of a settlement: settleRound's shape (debit, then credit, as local
 * activities) with no-op steps. Benchmarks start it the way the API starts a round; what it
 * costs is what Temporal costs, whatever the wallet and the journal add on top.
 */
export async function floorRound(input: FloorRoundInput): Promise<FloorRoundResult> {
  const { intent } = input;
  if (input.oneStep) {
    const both = await floorCredit({ intent, operation: 'credit', amountMinor: intent.winMinor ?? '0' });
    return { pids: [both.pid, both.pid] };
  }
  const debit = await floorDebit({ intent, operation: 'debit', amountMinor: intent.stakeMinor });
  const credit = await floorCredit({ intent, operation: 'credit', amountMinor: intent.winMinor ?? '0' });
  return { pids: [debit.pid, credit.pid] };
}
