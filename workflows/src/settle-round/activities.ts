import {
  createWalletStep,
  type MoneyOperation,
  WALLET_CONFIG_FAULT,
  WALLET_NOT_CONFIGURED,
  WALLET_REJECTED_RETRY,
  WALLET_UNCERTAIN,
  type WalletCallResult,
  type WalletStepDeps,
} from '@opi/wallet';
import type { RoundIntent, RoundOutcome } from '@opi/wallet/intent';
import { ApplicationFailure } from '@temporalio/activity';
import { CREDIT_ALREADY_APPLIED, createRoundJournal } from './round-journal.js';
import type { FirstAttemptStep, WalletStepInput, WalletStepResult } from './step-input.js';

/*
 * The settlement activities: a round's wallet steps. Each is the journal's part (round-journal.ts:
 * the row to send, then the outcome and what follows from it in one statement, outcome-statement.ts)
 * around @opi/wallet's wallet step (the signed HTTP call, its classification and log), and the
 * round's outcome announced to the process that started it.
 */

export interface SettlementDeps extends WalletStepDeps {
  /** Attempts after which an unresolved transaction marks its round stuck. */
  stuckAfterAttempts: number;
  /**
   * Told a round's outcome once the statement recording its last money step has committed (see
   * services/game-server/src/settlement/local-outcomes.ts): the process that started the round can answer without the workflow's result.
   */
  announce?: (roundId: string, outcome: RoundOutcome) => void;
}

export type { FirstAttemptStep, MoneyOperation, WalletStepInput, WalletStepResult };
/** Failure types the workflow distinguishes (@opi/wallet's wallet step; listed as retryable types). */
/** A cancel refused because the round's credit is already applied (the workflow credits on). */
export {
  CREDIT_ALREADY_APPLIED,
  WALLET_CONFIG_FAULT,
  WALLET_NOT_CONFIGURED,
  WALLET_REJECTED_RETRY,
  WALLET_UNCERTAIN,
};

/** A wallet step's result as the activity answers it: settled, or a failure of the step's type. */
export function settledOrThrow(result: WalletCallResult): WalletStepResult {
  switch (result.status) {
    case 'success':
      return { status: 'success', balance: result.balance };
    case 'rejected':
      return result;
    case 'retry':
      throw ApplicationFailure.retryable(result.message, result.type);
    case 'fail':
      throw ApplicationFailure.nonRetryable(result.message, result.type);
  }
}

/** What settleRound returns after a step that ends the round, as the announcement carries it. */
function roundOutcomeOf(
  input: WalletStepInput,
  answer: { status: 'success'; balance: string } | { status: 'rejected'; error: string },
): RoundOutcome | null {
  if (answer.status === 'success') {
    if (!input.roundStatusOnSuccess) return null;
    return input.roundStatusOnSuccess === 'completed'
      ? { status: 'completed', winMinor: input.amountMinor, balance: answer.balance }
      : { status: input.roundStatusOnSuccess, balance: answer.balance };
  }
  return input.roundStatusOnRejection ? { status: 'rejected', error: answer.error } : null;
}

export function createSettlementActivities(deps: SettlementDeps) {
  const wallet = createWalletStep(deps);
  const journal = createRoundJournal(deps.pool, deps);

  /** Tells the process that started the round its outcome, when this step ended the round. */
  function announce(input: WalletStepInput, answer: Parameters<typeof roundOutcomeOf>[1]): void {
    if (!deps.announce) return;
    const outcome = roundOutcomeOf(input, answer);
    if (outcome) deps.announce(input.intent.roundId, outcome);
  }

  /** One wallet money step: debit, credit, cancel or rollback (@opi/wallet's wallet step). */
  async function walletStep(input: WalletStepInput): Promise<WalletStepResult> {
    if (input.operation === 'cancel') await journal.refuseCancelAfterCredit(input.intent);
    const { intent } = input;
    const row = await journal.rowFor(input);
    const result = await wallet.run({
      operation: input.operation,
      operatorId: intent.operatorId,
      roundId: intent.roundId,
      row,
      label: input.operation,
      rejectionIsFinal: input.operation === 'debit',
      ...(intent.trace ? { traceparent: intent.trace.traceparent } : {}),
      logFields: {
        // The operator's (or the page's) request that created the round, and its trace.
        origin_request_id: intent.trace?.requestId ?? null,
        trace_id: intent.trace?.traceparent.split('-')[1] ?? null,
      },
      onSuccess: async ({ balance, httpStatus }) => {
        await journal.recordOutcome(input, row.transaction_id, { status: 'success', balance, httpStatus });
        announce(input, { status: 'success', balance });
      },
      onRejected: async ({ error, httpStatus }) => {
        await journal.recordOutcome(input, row.transaction_id, { status: 'failed', error, httpStatus });
        announce(input, { status: 'rejected', error });
      },
      onUnresolved: (attempts, refused) => journal.markStuck(intent, attempts, refused),
    });
    return settledOrThrow(result);
  }

  /** A step of the one-step first attempt: never throws (what it cannot settle is `unsettled`). */
  async function firstAttemptStep(input: WalletStepInput): Promise<FirstAttemptStep> {
    try {
      return await walletStep(input);
    } catch (err) {
      return { status: 'unsettled', reason: err instanceof Error ? err.message : String(err) };
    }
  }

  return {
    walletStep,
    /**
     * The one-step first attempt of a single-step journal-ahead round (intent.oneStep): the debit,
     * and after its success the credit, in one local activity (one trip between the workflow and
     * its activities instead of two). It never throws and is never retried: the workflow continues
     * whatever is not settled through walletStep, so budgets, compensation and cancels are as for
     * any round.
     */
    async debitThenCredit(input: {
      intent: RoundIntent;
    }): Promise<{ debit: FirstAttemptStep; credit?: FirstAttemptStep }> {
      const { intent } = input;
      const debit = await firstAttemptStep({
        intent,
        operation: 'debit',
        amountMinor: intent.stakeMinor,
        roundStatusOnRejection: 'rejected',
      });
      if (debit.status !== 'success' || intent.winMinor === null) return { debit };
      const credit = await firstAttemptStep({
        intent,
        operation: 'credit',
        amountMinor: intent.winMinor,
        roundStatusOnSuccess: 'completed',
      });
      return { debit, credit };
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
