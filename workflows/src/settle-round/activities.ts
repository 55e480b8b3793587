import { blocksBets } from '@opi/contract';
import { prepared } from '@opi/db';
import {
  claimJournalRow,
  createWalletStep,
  type JournalRow,
  journalCloseUnsentSql,
  journalEntry,
  journalInsertSql,
  journalOutcomeSql,
  journalStatus,
  journalUnattempted,
  type MoneyOperation,
  roundJournalRow,
  WALLET_CONFIG_FAULT,
  WALLET_NOT_CONFIGURED,
  WALLET_REJECTED_RETRY,
  WALLET_UNCERTAIN,
  type WalletCallResult,
  type WalletStepDeps,
} from '@opi/wallet';
import type { RoundIntent, RoundOutcome } from '@opi/wallet/intent';
import { ApplicationFailure, Context } from '@temporalio/activity';

export interface SettlementDeps extends WalletStepDeps {
  /** Attempts after which an unresolved transaction marks its round stuck. */
  stuckAfterAttempts: number;
  /**
   * Told a round's outcome once the statement recording its last money step has committed (see
   * services/game-server/src/settlement/local-outcomes.ts): the process that started the round can answer without the workflow's result.
   */
  announce?: (roundId: string, outcome: RoundOutcome) => void;
}

export type { MoneyOperation };

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

/** Failure types the workflow distinguishes (@opi/wallet's wallet step; listed as retryable types). */
export { WALLET_CONFIG_FAULT, WALLET_NOT_CONFIGURED, WALLET_REJECTED_RETRY, WALLET_UNCERTAIN };
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

export function createSettlementActivities(deps: SettlementDeps) {
  const wallet = createWalletStep(deps);

  /**
   * A rollback or cancel names the round's debit, so the debit needs a journal row. It has none
   * only when no debit attempt got as far as the journal (the database was unreachable through
   * the whole debit budget of a prov_a round): journal first means such a debit was never sent.
   * Its row is written then, never attempted (attempts 0), so that the compensation can be
   * journalled and still sent — the wallet's tombstone refuses a debit that might yet arrive —
   * instead of failing on the foreign key forever, leaving the round open and unflagged.
   */
  async function journalOriginalDebit(intent: RoundIntent): Promise<void> {
    await journalUnattempted(deps.pool, roundJournalRow(intent, 'debit', intent.stakeMinor));
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

  /**
   * Journal first: the pending row with its exact body is written (once) before any send; every
   * attempt sends the stored bytes. A terminal row is answered from the journal without calling
   * the wallet again.
   */
  async function claimAttempt(input: WalletStepInput): Promise<JournalRow> {
    const { intent, operation, amountMinor } = input;
    if (operation === 'rollback' || operation === 'cancel') await journalOriginalDebit(intent);
    return claimJournalRow(deps.pool, roundJournalRow(intent, operation, amountMinor, input.jackpotLevel));
  }

  /**
   * The outcome and, in the same statement (one round trip, atomic), what follows from it: the
   * round's status; for a successful rollback, the reversed debit; for a debit refused with a code
   * that blocks bets (self_excluded, session_time_limit, player_blocked or an unknown code), the
   * session's bets block; for a journal-ahead round, the credit's pending row with a debit's
   * success (the credit is then sent without a claim of its own), or that credit row voided with a
   * cancel's success (a cancelled round never sends its credit). The block is set only by the
   * statement that records the refusal (a replay of a recorded outcome changes nothing), so a
   * relaunch that cleared it is not undone by a retried activity. Only the parts that apply are
   * in the statement: a data-modifying part that changes nothing still runs its table's triggers.
   */
  async function recordOutcome(
    input: WalletStepInput,
    txId: string,
    outcome: { status: 'success' | 'failed'; balance?: string; error?: string; httpStatus?: number },
  ): Promise<void> {
    const { intent } = input;
    const roundStatus =
      (outcome.status === 'success' ? input.roundStatusOnSuccess : input.roundStatusOnRejection) ?? null;
    const params: unknown[] = [
      txId,
      outcome.status,
      outcome.balance ?? null,
      outcome.error ?? null,
      outcome.httpStatus ?? null,
    ];
    const p = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const parts = [
      `tx AS (
         ${journalOutcomeSql('$1', { status: '$2', balance: '$3', error: '$4', httpStatus: '$5' })}
       )`,
    ];
    if (roundStatus !== null) {
      const win =
        roundStatus === 'completed'
          ? `${p(input.operation === 'credit' ? input.amountMinor : '0')}::bigint`
          : 'win_minor';
      parts.push(`rd AS (
         UPDATE rounds SET status = ${p(roundStatus)}, stuck = false, updated_at = now(), settled_at = now(),
                win_minor = ${win}
         WHERE round_id = ${p(intent.roundId)} RETURNING 1
       )`);
    }
    if (input.operation === 'rollback' && outcome.status === 'success') {
      // The reversed debit's outcome is unknown and now irrelevant: it can no longer be pending.
      parts.push(`rb AS (
         ${journalCloseUnsentSql(p(intent.transactions.debit), 'reversed_by_rollback')}
       )`);
    }
    if (
      input.operation === 'debit' &&
      outcome.status === 'failed' &&
      outcome.error !== undefined &&
      blocksBets(outcome.error)
    ) {
      // Player protection: the session takes no bets until the operator relaunches it.
      parts.push(`sb AS (
         UPDATE sessions SET bets_blocked_code = $4, bets_blocked_at = now(), bets_blocked_round_id = ${p(intent.roundId)}
         WHERE session_id = ${p(intent.sessionId)} AND EXISTS (SELECT 1 FROM tx) RETURNING 1
       )`);
    }
    if (
      intent.journalAhead &&
      intent.winMinor !== null &&
      input.operation === 'debit' &&
      outcome.status === 'success'
    ) {
      // Journal first for the credit too: its row (exact bytes) is written before any send.
      const credit = journalEntry(intent, 'credit', intent.winMinor);
      parts.push(`cr AS (
         ${journalInsertSql(
           {
             transactionId: p(credit.transactionId),
             operatorId: p(intent.operatorId),
             sessionId: p(intent.sessionId),
             roundId: p(intent.roundId),
             playerId: p(intent.playerId),
             gameSymbol: p(intent.gameSymbol),
             type: `'credit'`,
             amountMinor: p(intent.winMinor),
             currency: p(intent.currency),
             body: p(credit.body),
             requestHash: p(credit.requestHash),
           },
           { onConflictDoNothing: true },
         )}
       )`);
    }
    if (intent.freeRound && input.operation === 'credit' && outcome.status === 'success') {
      // Won totals equal credits: the grant's total grows in the statement recording the credit
      // (only when this statement took the row from pending).
      parts.push(`fr AS (
         UPDATE free_round_grants SET won_minor = won_minor + ${p(input.amountMinor)}::bigint
         WHERE operator_id = ${p(intent.operatorId)} AND campaign_id = ${p(intent.freeRound.campaignId)}
           AND external_player_id = ${p(intent.playerId)} AND EXISTS (SELECT 1 FROM tx) RETURNING 1
       )`);
    }
    if (input.jackpotLevel !== undefined && outcome.status === 'success') {
      // The hit is paid in the statement recording its credit; the round (completed already) is
      // no longer stuck if this credit's failed attempts had marked it so.
      parts.push(`jh AS (
         UPDATE jackpot_hits SET status = 'paid', settled_at = now()
         WHERE round_id = ${p(intent.roundId)} AND level = ${p(input.jackpotLevel)} AND status = 'pending'
           AND EXISTS (SELECT 1 FROM tx) RETURNING 1
       )`);
      parts.push(`ju AS (
         UPDATE rounds SET stuck = false, updated_at = now()
         WHERE round_id = ${p(intent.roundId)} AND stuck AND EXISTS (SELECT 1 FROM tx) RETURNING 1
       )`);
    }
    if (intent.journalAhead && input.operation === 'cancel' && outcome.status === 'success') {
      parts.push(`vc AS (
         ${journalCloseUnsentSql(p(intent.transactions.credit), 'not_sent_round_cancelled')}
       )`);
    }
    const names = parts.map((part) => part.slice(0, part.indexOf(' ')));
    // Named per variant (the parts that apply): a connection plans each variant once.
    await deps.pool.query(
      prepared(
        `WITH ${parts.join(', ')} SELECT ${names.map((n) => `(SELECT count(*) FROM ${n}) AS ${n}`).join(', ')}`,
        params,
      ),
    );
  }

  /** After an unresolved attempt: the round shows as stuck once the step has failed often enough. */
  async function markStuck(intent: RoundIntent, attempts: number, refused: boolean): Promise<void> {
    if (refused || attempts >= deps.stuckAfterAttempts) {
      await deps.pool.query(
        `UPDATE rounds SET stuck = true, updated_at = now() WHERE round_id = $1 AND NOT stuck`,
        [intent.roundId],
      );
    }
  }

  /** One wallet money step: debit, credit, cancel or rollback (@opi/wallet's wallet step). */
  async function walletStep(input: WalletStepInput): Promise<WalletStepResult> {
    if (input.operation === 'cancel') await refuseCancelAfterCredit(input.intent);
    const { intent } = input;
    const row = journalledAhead(input) ? aheadRow(input) : await claimAttempt(input);
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
        await recordOutcome(input, row.transaction_id, { status: 'success', balance, httpStatus });
        if (deps.announce && input.roundStatusOnSuccess) {
          // What settleRound returns after this step (the round's last).
          deps.announce(
            intent.roundId,
            input.roundStatusOnSuccess === 'completed'
              ? { status: 'completed', winMinor: input.amountMinor, balance }
              : { status: input.roundStatusOnSuccess, balance },
          );
        }
      },
      onRejected: async ({ error, httpStatus }) => {
        await recordOutcome(input, row.transaction_id, { status: 'failed', error, httpStatus });
        if (deps.announce && input.roundStatusOnRejection)
          deps.announce(intent.roundId, { status: 'rejected', error });
      },
      onUnresolved: (attempts, refused) => markStuck(intent, attempts, refused),
    });
    return settledOrThrow(result);
  }

  /**
   * A cancel never follows an applied credit. The workflow decides to cancel once the debit is
   * known, but a workflow task whose completion the server refused (a signal arrived meanwhile)
   * runs again with local activities re-executed: the earlier run may already have sent and
   * recorded the credit, which the new run's decision did not see. The journal did.
   */
  async function refuseCancelAfterCredit(intent: RoundIntent): Promise<void> {
    if ((await journalStatus(deps.pool, intent.transactions.credit)) === 'success')
      throw ApplicationFailure.nonRetryable(
        `round ${intent.roundId}: its credit is already applied; no cancel`,
        CREDIT_ALREADY_APPLIED,
      );
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
