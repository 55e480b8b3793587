import type { MoneyOperation } from '@opi/wallet';
import type { RoundIntent } from '@opi/wallet/intent';

/*
 * What a wallet money step of a round is asked and answers (the workflow's view of the settlement
 * activities; activities.ts re-exports them).
 */

export interface WalletStepInput {
  intent: RoundIntent;
  operation: MoneyOperation;
  amountMinor: string;
  /** Round status to set in the same database transaction when this step succeeds. */
  roundStatusOnSuccess?: 'completed' | 'rolled_back' | 'cancelled';
  /** Round status to set when the wallet definitely rejects this step. */
  roundStatusOnRejection?: 'rejected';
  /**
   * A credit paying this jackpot level's win (intent.jackpot.wins): its own transaction
   * (`<round>:jackpot:<level>`), `action_type: jackpot_win`. The round's status is not touched.
   */
  jackpotLevel?: string;
  /**
   * Claim the journal row even on the activity's first attempt (a step after the one-step first
   * attempt: its row may have been attempted, or even settled, already).
   */
  claim?: boolean;
}

export type WalletStepResult = { status: 'success'; balance: string } | { status: 'rejected'; error: string };

/** A step of the one-step first attempt: its result, or why it is not settled yet. */
export type FirstAttemptStep = WalletStepResult | { status: 'unsettled'; reason: string };

/** A wallet answer as the journal records it. */
export interface StepOutcome {
  status: 'success' | 'failed';
  balance?: string;
  error?: string;
  httpStatus?: number;
}
