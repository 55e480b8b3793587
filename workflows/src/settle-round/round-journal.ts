import { type Pool, prepared } from '@opi/db';
import {
  claimJournalRow,
  type JournalRow,
  journalEntry,
  journalStatus,
  journalUnattempted,
  roundJournalRow,
} from '@opi/wallet';
import type { RoundIntent } from '@opi/wallet/intent';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { outcomeStatement, outcomesStatement, type RecordedStep } from './outcome-statement.js';
import type { StepOutcome, WalletStepInput } from './step-input.js';

/*
 * A round's wallet steps in the journal (journal first: a row with its exact body before any
 * send) and in the round: the row a step sends, the outcome it records, the stuck flag. The
 * settlement activities (activities.ts) put these around the wallet call.
 */

/** A cancel refused because the round's credit is already applied (the workflow credits on). */
export const CREDIT_ALREADY_APPLIED = 'CreditAlreadyApplied';

/** Whether this is the activity's first attempt (false outside an activity). */
function firstAttempt(): boolean {
  try {
    return Context.current().info.attempt === 1;
  } catch {
    return false;
  }
}

/**
 * A journal-ahead round's debit, and a single-step one's credit, had their pending rows written
 * before this step could run (with the round; with the debit's success). On the first attempt the
 * row is not read again: its bytes follow from the intent. A later attempt claims it as usual
 * (counts the attempt, and answers a recorded outcome from the journal). A first attempt run
 * again after a worker died resends the same bytes; the wallet answers the stored result.
 */
function journalledAhead(input: WalletStepInput): boolean {
  const { intent, operation } = input;
  if (!intent.journalAhead || input.claim || input.jackpotLevel !== undefined) return false;
  if (operation !== 'debit' && !(operation === 'credit' && intent.winMinor !== null)) return false;
  return firstAttempt();
}

/** The pending row written ahead, as the intent gives it (its first attempt). */
function aheadRow(input: WalletStepInput): JournalRow {
  const entry = journalEntry(input.intent, input.operation, input.amountMinor);
  return {
    transaction_id: entry.transactionId,
    status: 'pending',
    request_body: entry.body,
    attempts: 1,
    error_code: null,
    wallet_balance: null,
  };
}

export function createRoundJournal(pool: Pool, config: { stuckAfterAttempts: number }) {
  /**
   * A rollback or cancel names the round's debit, so the debit needs a journal row. It has none
   * only when no debit attempt got as far as the journal (the database was unreachable through
   * the whole debit budget of a prov_a round): journal first means such a debit was never sent.
   * Its row is written then, never attempted (attempts 0), so that the compensation can be
   * journalled and still sent — the wallet's tombstone refuses a debit that might yet arrive —
   * instead of failing on the foreign key forever, leaving the round open and unflagged.
   */
  async function journalOriginalDebit(intent: RoundIntent): Promise<void> {
    await journalUnattempted(pool, roundJournalRow(intent, 'debit', intent.stakeMinor));
  }

  /**
   * Journal first: the pending row with its exact body is written (once) before any send; every
   * attempt sends the stored bytes. A terminal row is answered from the journal without calling
   * the wallet again.
   */
  async function claimAttempt(input: WalletStepInput): Promise<JournalRow> {
    const { intent, operation, amountMinor } = input;
    if (operation === 'rollback' || operation === 'cancel') await journalOriginalDebit(intent);
    return claimJournalRow(pool, roundJournalRow(intent, operation, amountMinor, input.jackpotLevel));
  }

  return {
    /** The row this attempt sends: written ahead (first attempt of a journal-ahead step), else claimed. */
    async rowFor(input: WalletStepInput): Promise<JournalRow> {
      return journalledAhead(input) ? aheadRow(input) : await claimAttempt(input);
    },

    /**
     * A cancel never follows an applied credit. The workflow decides to cancel once the debit is
     * known, but a workflow task whose completion the server refused (a signal arrived meanwhile)
     * runs again with local activities re-executed: the earlier run may already have sent and
     * recorded the credit, which the new run's decision did not see. The journal did.
     */
    async refuseCancelAfterCredit(intent: RoundIntent): Promise<void> {
      if ((await journalStatus(pool, intent.transactions.credit)) === 'success')
        throw ApplicationFailure.nonRetryable(
          `round ${intent.roundId}: its credit is already applied; no cancel`,
          CREDIT_ALREADY_APPLIED,
        );
    },

    /** The outcome and what follows from it, in one statement (outcome-statement.ts). */
    async recordOutcome(input: WalletStepInput, txId: string, outcome: StepOutcome): Promise<void> {
      const { text, params } = outcomeStatement(input, txId, outcome);
      // Named per variant (the parts that apply): a connection plans each variant once.
      await pool.query(prepared(text, params));
    },

    /**
     * Several steps' outcomes in one statement, so one transaction (a credit-ahead round's debit
     * and credit, each applied: outcome-statement.ts's outcomesStatement).
     */
    async recordOutcomes(steps: readonly RecordedStep[]): Promise<void> {
      const { text, params } = outcomesStatement(steps);
      await pool.query(prepared(text, params));
    },

    /** After an unresolved attempt: the round shows as stuck once the step has failed often enough. */
    async markStuck(intent: RoundIntent, attempts: number, refused: boolean): Promise<void> {
      if (refused || attempts >= config.stuckAfterAttempts) {
        await pool.query(
          `UPDATE rounds SET stuck = true, updated_at = now() WHERE round_id = $1 AND NOT stuck`,
          [intent.roundId],
        );
      }
    },
  };
}
