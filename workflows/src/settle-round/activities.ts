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

  /** A success as the wallet answered it, before it is recorded. */
  type Answer = { balance: string; httpStatus: number };

  /**
   * One wallet call of a step on its journal row. `onSuccess` records the success (by default the
   * step's own outcome statement); a final refusal and an unresolved attempt are recorded as for
   * every step.
   */
  async function send(
    input: WalletStepInput,
    row: Awaited<ReturnType<typeof journal.rowFor>>,
    onSuccess: (answer: Answer) => Promise<void>,
  ): Promise<WalletCallResult> {
    const { intent } = input;
    return wallet.run({
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
      onSuccess,
      onRejected: async ({ error, httpStatus }) => {
        await journal.recordOutcome(input, row.transaction_id, { status: 'failed', error, httpStatus });
        announce(input, { status: 'rejected', error });
      },
      onUnresolved: (attempts, refused) => journal.markStuck(intent, attempts, refused),
    });
  }

  /** One wallet money step: debit, credit, cancel or rollback (@opi/wallet's wallet step). */
  async function walletStep(input: WalletStepInput): Promise<WalletStepResult> {
    if (input.operation === 'cancel') await journal.refuseCancelAfterCredit(input.intent);
    const row = await journal.rowFor(input);
    const result = await send(input, row, async ({ balance, httpStatus }) => {
      await journal.recordOutcome(input, row.transaction_id, { status: 'success', balance, httpStatus });
      announce(input, { status: 'success', balance });
    });
    return settledOrThrow(result);
  }

  /** Why a step of the first attempt is not settled. */
  const unsettled = (err: unknown): FirstAttemptStep => ({
    status: 'unsettled',
    reason: err instanceof Error ? err.message : String(err),
  });

  /**
   * The one-step first attempt of a credit-ahead round (both rows written with the round): the
   * debit is sent, and on its success the credit at once; both successes are recorded in one
   * statement (one transaction: the debit's and the credit's outcomes, the round completed). Every
   * other answer is recorded as for any step: a refused debit by its own statement (which closes
   * the unsent credit row); after the debit's success, a credit not settled (uncertain, refused,
   * a configuration fault, the statement failing) leaves its row pending with its reason, and the
   * debit's success is then recorded alone. What is not recorded is `unsettled`: the workflow's
   * ordinary steps claim those rows and resend the same bytes, and the wallet answers the stored
   * result (never a second debit). A credit once sent is reported (settled or not), so the
   * workflow never replaces it by a cancel.
   */
  async function debitThenCreditAhead(intent: RoundIntent & { winMinor: string }) {
    const debitInput: WalletStepInput = {
      intent,
      operation: 'debit',
      amountMinor: intent.stakeMinor,
      roundStatusOnRejection: 'rejected',
    };
    const creditInput: WalletStepInput = {
      intent,
      operation: 'credit',
      amountMinor: intent.winMinor,
      roundStatusOnSuccess: 'completed',
    };
    let debitAnswer: Answer | undefined;
    let debit: FirstAttemptStep;
    let debitRow: Awaited<ReturnType<typeof journal.rowFor>>;
    try {
      debitRow = await journal.rowFor(debitInput);
      // A success is recorded below, with the credit's (or alone if the credit does not settle).
      debit = settledOrThrow(
        await send(debitInput, debitRow, async (answer) => {
          debitAnswer = answer;
        }),
      );
    } catch (err) {
      return { debit: unsettled(err) };
    }
    if (debit.status !== 'success') return { debit };
    const debitSuccess = (a: Answer) =>
      ({ input: debitInput, txId: debitRow.transaction_id, outcome: { status: 'success', ...a } }) as const;
    let recorded = debitAnswer === undefined; // undefined: the journal held the debit's success already
    try {
      const creditRow = await journal.rowFor(creditInput);
      const credit = settledOrThrow(
        await send(creditInput, creditRow, async (answer) => {
          const credited = { input: creditInput, txId: creditRow.transaction_id, outcome: answer };
          await journal.recordOutcomes([
            ...(debitAnswer ? [debitSuccess(debitAnswer)] : []),
            { ...credited, outcome: { status: 'success', ...credited.outcome } },
          ]);
          recorded = true;
          announce(creditInput, { status: 'success', balance: answer.balance });
        }),
      );
      return { debit, credit };
    } catch (err) {
      if (!recorded && debitAnswer) {
        try {
          await journal.recordOutcome(debitInput, debitRow.transaction_id, {
            status: 'success',
            ...debitAnswer,
          });
        } catch (recordErr) {
          return { debit: unsettled(recordErr), credit: unsettled(err) };
        }
      }
      return { debit, credit: unsettled(err) };
    }
  }

  /** A step of the one-step first attempt: never throws (what it cannot settle is `unsettled`). */
  async function firstAttemptStep(input: WalletStepInput): Promise<FirstAttemptStep> {
    try {
      return await walletStep(input);
    } catch (err) {
      return unsettled(err);
    }
  }

  return {
    walletStep,
    /**
     * The one-step first attempt of a single-step journal-ahead round (intent.oneStep): the debit,
     * and after its success the credit, in one local activity (one trip between the workflow and
     * its activities instead of two). It never throws and is never retried: the workflow continues
     * whatever is not settled through walletStep, so budgets, compensation and cancels are as for
     * any round. A credit-ahead round records both successes in one statement (debitThenCreditAhead).
     */
    async debitThenCredit(input: {
      intent: RoundIntent;
    }): Promise<{ debit: FirstAttemptStep; credit?: FirstAttemptStep }> {
      const { intent } = input;
      if (intent.creditAhead && intent.journalAhead && intent.winMinor !== null && !intent.freeRound)
        return debitThenCreditAhead({ ...intent, winMinor: intent.winMinor });
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
