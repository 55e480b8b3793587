import { keepsDurableIntent, type RoundIntent, type RoundOutcome } from '@opi/wallet/intent';
import {
  condition,
  ParentClosePolicy,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  setWorkflowOptions,
  startChild,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { PromotionActivities } from '../promotions/activities.js';
import type {
  FirstAttemptStep,
  SettlementActivities,
  WalletStepInput,
  WalletStepResult,
} from './activities.js';
import { cancelUpdate, finishUpdate, staffCancelSignal, stageSignal, stateQuery } from './messages.js';
import { versioned } from './versioning.js';

/** Tunables, fixed per workflow run (passed by the starter so tests can shorten them). */
export interface SettlementTuning {
  /** Use local activities (measured faster; see docs/settlement.md and docs/benchmarks.md). */
  local: boolean;
  /** prov_a: attempts of an uncertain debit before compensating with a rollback. */
  debitAttemptsBeforeRollback: number;
  initialRetryMs: number;
  maxRetryMs: number;
}

export const DEFAULT_TUNING: SettlementTuning = {
  local: true,
  debitAttemptsBeforeRollback: 5,
  initialRetryMs: 200,
  maxRetryMs: 30_000,
};

export { cancelUpdate, finishUpdate, staffCancelSignal, stageSignal, stateQuery };

export interface SettleRoundInput {
  intent: RoundIntent;
  tuning?: Partial<SettlementTuning>;
}

/** Whether the failure chain carries an application failure of `type`. */
function hasFailureType(err: unknown, type: string): boolean {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    if ((e as { type?: string }).type === type) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Whether the failure chain carries a wallet configuration fault (a 401 from the wallet). */
const isConfigFault = (err: unknown) => hasFailureType(err, 'WalletConfigFault');

// Worker Deployment Versioning (WORKER_BUILD_ID): a round runs to its end on the code it started
// on (minutes), so its workflow code may change between releases without a patch for rounds
// already open. Declared only on a versioned worker (an unversioned one refuses a behavior).
// docs/settlement.md.
setWorkflowOptions(versioned('PINNED'), settleRound);

/**
 * One round's settlement, from the first debit to the last credit. The workflow id is the round
 * id; every transaction id comes from the intent. Debit, then credit (a zero win still sends a
 * zero credit, so the operator's wallet sees every round closed). Definite rejection of the
 * debit ends the round. An uncertain outcome is retried with the same transaction and body:
 * prov_a compensates a debit still uncertain after its budget with a rollback carrying
 * original_transaction_id; prov_b, prov_c and prov_d keep the durable intent and retry with
 * capped backoff. A credit, a rollback and a cancel are never abandoned.
 */
export async function settleRound(input: SettleRoundInput): Promise<RoundOutcome> {
  const intent = input.intent;
  const tuning = { ...DEFAULT_TUNING, ...input.tuning };
  const retry = {
    initialInterval: tuning.initialRetryMs,
    maximumInterval: tuning.maxRetryMs,
    backoffCoefficient: 2,
  };
  const make = (maximumAttempts?: number) => {
    const retryPolicy = { ...retry, ...(maximumAttempts ? { maximumAttempts } : {}) };
    return tuning.local
      ? proxyLocalActivities<SettlementActivities>({ startToCloseTimeout: '60 seconds', retry: retryPolicy })
      : proxyActivities<SettlementActivities>({ startToCloseTimeout: '60 seconds', retry: retryPolicy });
  };
  const durable = make();

  let phase = 'debit';
  let outcome: RoundOutcome | undefined;
  let finishWin: string | undefined;
  let cancelReason: string | undefined;
  let cashoutOffer = '0';
  let lastActivity = 0;

  setHandler(stateQuery, () => ({ phase, ...(outcome ? { outcome } : {}) }));
  setHandler(stageSignal, ({ cashoutMinor }) => {
    cashoutOffer = cashoutMinor;
    lastActivity++;
  });
  setHandler(staffCancelSignal, ({ reason }) => {
    cancelReason ??= reason;
  });
  const awaitOutcome = async () => {
    await condition(() => outcome !== undefined);
    return outcome!;
  };
  setHandler(
    finishUpdate,
    async ({ winMinor }) => {
      finishWin ??= winMinor;
      return awaitOutcome();
    },
    {
      validator: ({ winMinor }) => {
        if (intent.winMinor !== null) throw new Error('a single-step round is finished by its intent');
        if (!/^[0-9]{1,18}$/.test(winMinor))
          throw new Error('winMinor must be a non-negative integer string');
        if (phase !== 'open' && phase !== 'debit') throw new Error(`the round is ${phase}`);
      },
    },
  );
  setHandler(
    cancelUpdate,
    async ({ reason }) => {
      cancelReason ??= reason;
      return awaitOutcome();
    },
    {
      validator: (_request: { reason: string }) => {
        if (phase === 'done' || phase === 'credit' || phase === 'jackpot' || phase === 'prize_drop')
          throw new Error(`the round is ${phase}`);
      },
    },
  );

  // After the round's own credit: each jackpot level the spin won is paid by a credit of its own
  // (`action_type: jackpot_win`), journalled first and retried until the wallet answers, like
  // every credit. A round that never completes never pays them (its hits are forfeited).
  // Then a prize drop's award, by its promotional payout's own credit (promotions/activities.ts).
  async function payJackpotWins(): Promise<void> {
    for (const win of intent.jackpot?.wins ?? []) {
      phase = 'jackpot';
      await durable.walletStep({
        intent,
        operation: 'credit',
        amountMinor: win.amountMinor,
        jackpotLevel: win.level,
        claim: true,
      });
    }
    if (intent.prizeDrop) {
      phase = 'prize_drop';
      // Issue 35: the award is paid by its own payPromo workflow (id = the payout id), as every
      // promotional payout is, so the round's workflow ends with the round's own money, and a
      // wallet that refuses the prize keeps only the payout waiting. Rounds that started before
      // the change pay it inline, as they recorded (histories/settleRound/prize-drop-award).
      if (patched('prize-drop-own-workflow')) {
        const payoutId = intent.prizeDrop.payoutId;
        try {
          await startChild('payPromo', {
            workflowId: payoutId,
            args: [
              { payoutId, tuning: { initialRetryMs: tuning.initialRetryMs, maxRetryMs: tuning.maxRetryMs } },
            ],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            parentClosePolicy: ParentClosePolicy.ABANDON,
          });
        } catch (err) {
          // Started already (a resumed round, or by hand): that workflow pays it, once.
          if ((err as { name?: string }).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
        }
      } else {
        const options = { startToCloseTimeout: '60 seconds', retry } as const;
        const promo = tuning.local
          ? proxyLocalActivities<PromotionActivities>(options)
          : proxyActivities<PromotionActivities>(options);
        await promo.payPromoStep({ payoutId: intent.prizeDrop.payoutId });
      }
    }
  }

  // 0. One step first (a slot spin): debit, then credit, in one local activity that never throws.
  // What it settles is final here; anything else goes on through the ordinary steps below.
  let first: { debit: FirstAttemptStep; credit?: FirstAttemptStep } | undefined;
  if (
    intent.oneStep &&
    intent.journalAhead &&
    intent.winMinor !== null &&
    !intent.freeRound &&
    tuning.local
  ) {
    first = await proxyLocalActivities<SettlementActivities>({
      startToCloseTimeout: '60 seconds',
      retry: { maximumAttempts: 1 },
    }).debitThenCredit({ intent });
    if (first.debit.status === 'rejected') {
      outcome = { status: 'rejected', error: first.debit.error };
      phase = 'done';
      return outcome;
    }
    if (first.credit?.status === 'success') {
      outcome = { status: 'completed', winMinor: intent.winMinor, balance: first.credit.balance };
      await payJackpotWins();
      phase = 'done';
      return outcome;
    }
  }
  // After a first attempt, every step claims its journal row (it may have been attempted already),
  // and prov_a's debit budget counts the attempt already made.
  const budgeted = make(Math.max(1, tuning.debitAttemptsBeforeRollback - (first ? 1 : 0)));
  const step = (proxy: typeof durable, s: Omit<WalletStepInput, 'intent'>): Promise<WalletStepResult> =>
    proxy.walletStep({ intent, ...s, ...(first ? { claim: true } : {}) });

  // A free round: no debit, no cancel; its credit (the win, zero included) is the whole round.
  if (intent.freeRound) {
    phase = 'credit';
    const winMinor = intent.winMinor ?? '0';
    const credit = await step(durable, {
      operation: 'credit',
      amountMinor: winMinor,
      roundStatusOnSuccess: 'completed',
    });
    outcome = { status: 'completed', winMinor, balance: credit.status === 'success' ? credit.balance : '' };
    phase = 'done';
    return outcome;
  }

  // 1. Debit (unless the first attempt settled it).
  let debit: WalletStepResult;
  if (first?.debit.status === 'success') {
    debit = first.debit;
  } else if (
    keepsDurableIntent(intent.providerId) ||
    // The first attempt went on to the credit, so the wallet answered the debit with success:
    // the debit is applied, not uncertain, whatever failed after it (the statement recording both
    // outcomes, our database down). Its row is claimed and resent until recorded, never rolled
    // back: a rollback here would refund a stake whose win was already paid.
    (first?.credit !== undefined && patched('first-attempt-debit-applied'))
  ) {
    debit = await step(durable, {
      operation: 'debit',
      amountMinor: intent.stakeMinor,
      roundStatusOnRejection: 'rejected',
    });
  } else {
    for (;;) {
      try {
        debit = await step(budgeted, {
          operation: 'debit',
          amountMinor: intent.stakeMinor,
          roundStatusOnRejection: 'rejected',
        });
        break;
      } catch (err) {
        // A configuration fault is not an uncertain debit: alert and keep the intent.
        if (isConfigFault(err)) continue;
        phase = 'rollback';
        const rb = await step(durable, {
          operation: 'rollback',
          amountMinor: intent.stakeMinor,
          roundStatusOnSuccess: 'rolled_back',
        });
        outcome =
          rb.status === 'success'
            ? { status: 'rolled_back', balance: rb.balance }
            : { status: 'rejected', error: `rollback rejected: ${rb.error}` };
        phase = 'done';
        return outcome;
      }
    }
  }
  if (debit.status === 'rejected') {
    outcome = { status: 'rejected', error: debit.error };
    phase = 'done';
    return outcome;
  }

  // 2. Multi-step rounds stay open until finished, cancelled or abandoned.
  let win = intent.winMinor;
  if (win === null && cancelReason === undefined) {
    phase = 'open';
    const rule = intent.multiStep ?? { abandonAfterSeconds: 300, rule: 'loss' as const };
    for (;;) {
      const seen = lastActivity;
      const decided = await condition(
        () => finishWin !== undefined || cancelReason !== undefined || lastActivity !== seen,
        rule.abandonAfterSeconds * 1000,
      );
      if (finishWin !== undefined || cancelReason !== undefined) break;
      if (!decided) {
        finishWin = rule.rule === 'cashout' ? cashoutOffer : '0';
        break;
      }
    }
    win = finishWin ?? null;
  }

  // 3. Cancel (staff or runtime) instead of a credit, unless the first attempt already sent the
  // credit (its outcome unknown): a credit once sent is never replaced, so the round credits on.
  if (cancelReason !== undefined && finishWin === undefined && first?.credit === undefined) {
    phase = 'cancel';
    let c: WalletStepResult | undefined;
    try {
      c = await step(durable, {
        operation: 'cancel',
        amountMinor: intent.stakeMinor,
        roundStatusOnSuccess: 'cancelled',
      });
    } catch (err) {
      // The journal holds this round's credit as applied (an earlier run of this workflow task
      // sent it before the cancel was seen): no cancel is sent; the round completes below.
      if (!hasFailureType(err, 'CreditAlreadyApplied')) throw err;
    }
    if (c) {
      outcome =
        c.status === 'success'
          ? { status: 'cancelled', balance: c.balance }
          : { status: 'rejected', error: `cancel rejected: ${c.error}` };
      phase = 'done';
      return outcome;
    }
  }

  // 4. Credit, never abandoned.
  phase = 'credit';
  const winMinor = win ?? '0';
  // The activity retries a rejected credit too (the player is owed the win), so it only returns success.
  const credit = await step(durable, {
    operation: 'credit',
    amountMinor: winMinor,
    roundStatusOnSuccess: 'completed',
  });
  outcome = { status: 'completed', winMinor, balance: credit.status === 'success' ? credit.balance : '' };
  await payJackpotWins();
  phase = 'done';
  return outcome;
}
