import {
  ApplicationFailure,
  condition,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  setWorkflowOptions,
  startChild,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { versioned } from '../settle-round/versioning.js';
import type { PromoPayResult, PromotionActivities } from './activities.js';
import { tournamentCancelSignal } from './messages.js';

export { tournamentCancelSignal };

export interface PromoTuning {
  initialRetryMs: number;
  maxRetryMs: number;
}

export const DEFAULT_PROMO_TUNING: PromoTuning = { initialRetryMs: 1_000, maxRetryMs: 300_000 };

export interface PayPromoInput {
  payoutId: string;
  tuning?: Partial<PromoTuning>;
}

// Worker Deployment Versioning: a payout is pinned to the version it started on (it ends when the
// wallet answers); a tournament moves to the current version at its next workflow task (it runs
// for up to 366 days, longer than any release), so its changes go behind patched().
setWorkflowOptions(versioned('PINNED'), payPromo);
setWorkflowOptions(versioned('AUTO_UPGRADE'), runTournament);

/**
 * One promotional payout (a tournament prize, a prize drop): one `credit` with `action_type:
 * promo_win`, retried with backoff until the wallet takes it (a rejection too: the prize is
 * owed). Its workflow id is the payout id, so a second start is a no-op, and the journal makes a
 * resend of a settled credit impossible.
 */
export async function payPromo(input: PayPromoInput): Promise<PromoPayResult> {
  const tuning = { ...DEFAULT_PROMO_TUNING, ...input.tuning };
  const acts = proxyActivities<PromotionActivities>({
    startToCloseTimeout: '60 seconds',
    retry: {
      initialInterval: tuning.initialRetryMs,
      maximumInterval: tuning.maxRetryMs,
      backoffCoefficient: 2,
      nonRetryableErrorTypes: ['PromoPayoutUnknown', 'JournalInconsistent'],
    },
  });
  return acts.payPromoStep({ payoutId: input.payoutId });
}

export interface RunTournamentInput {
  tournamentId: string;
  tuning?: Partial<PromoTuning>;
}

export type TournamentResult = { status: 'cancelled' | 'paid' | 'missing'; payouts: number };

/**
 * A tournament: a durable timer to its start (status running), one to its end, then the
 * leaderboard frozen and its payouts written in one statement, one payPromo child per payout
 * (child id = payout id), and the status paid once every payout is. A cancel (the admin's; the
 * signal only wakes the workflow, the database decides) before the end pays nothing; the
 * tournament's dates are re-read after every wake-up.
 */
export async function runTournament(input: RunTournamentInput): Promise<TournamentResult> {
  const tuning = { ...DEFAULT_PROMO_TUNING, ...input.tuning };
  const retry = {
    initialInterval: tuning.initialRetryMs,
    maximumInterval: tuning.maxRetryMs,
    backoffCoefficient: 2,
  };
  const acts = proxyActivities<PromotionActivities>({
    startToCloseTimeout: '60 seconds',
    retry: { ...retry, nonRetryableErrorTypes: ['TournamentUnknown'] },
  });
  const { tournamentId } = input;
  let woken = 0;
  setHandler(tournamentCancelSignal, () => {
    woken++;
  });

  // Sleeps until `at` (workflow time) or a cancel signal; true when the time came.
  const sleepUntil = async (at: number): Promise<boolean> => {
    const seen = woken;
    const ms = at - Date.now();
    if (ms <= 0) return true;
    return !(await condition(() => woken !== seen, ms));
  };

  for (;;) {
    const t = await acts.tournamentState({ tournamentId });
    if (!t) return { status: 'missing', payouts: 0 };
    if (t.status === 'cancelled') return { status: 'cancelled', payouts: 0 };
    if (t.status !== 'scheduled') break;
    if (await sleepUntil(t.startsAt)) {
      const status = await acts.startTournament({ tournamentId });
      if (status === 'cancelled') return { status: 'cancelled', payouts: 0 };
      if (status !== 'scheduled') break;
      // The database's clock is behind the workflow's: ask again shortly.
      await condition(() => false, 200);
    }
  }

  for (;;) {
    const t = await acts.tournamentState({ tournamentId });
    if (!t) return { status: 'missing', payouts: 0 };
    if (t.status === 'cancelled') return { status: 'cancelled', payouts: 0 };
    if (t.status !== 'running' && t.status !== 'scheduled') break;
    if (await sleepUntil(t.endsAt)) break;
  }

  // The freeze is retried until the database's clock says the tournament is over.
  const frozen = await acts.freezeTournament({ tournamentId });
  if (frozen.status === 'cancelled') return { status: 'cancelled', payouts: 0 };

  const children = await Promise.all(
    frozen.payoutIds.map(async (payoutId) => {
      try {
        return await startChild(payPromo, {
          workflowId: payoutId,
          args: [{ payoutId, tuning }],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          parentClosePolicy: ParentClosePolicy.ABANDON,
        });
      } catch (err) {
        // Started before (by an earlier run, or by hand): markTournamentPaid waits for it below.
        if ((err as { name?: string }).name === 'WorkflowExecutionAlreadyStartedError') return undefined;
        throw err;
      }
    }),
  );
  await Promise.all(children.map((c) => c?.result()));
  const status = await acts.markTournamentPaid({ tournamentId });
  if (status !== 'paid') throw ApplicationFailure.nonRetryable(`tournament ${tournamentId} ended ${status}`);
  return { status: 'paid', payouts: frozen.payoutIds.length };
}
