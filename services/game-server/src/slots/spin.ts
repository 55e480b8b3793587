import { randomUUID } from 'node:crypto';
import { isSlotTitle } from '@opi/games';
import type { SlotPlayer, SlotPlayResult } from '@opi/play/engines/slot-player';
import { loadSpinJackpot, playLevels, type SpinJackpot } from '@opi/play/jackpots/spin-jackpot';
import { sessionFreeRounds } from '@opi/play/sessions/free-rounds';
import { stakeAboveCapError } from '@opi/play/sessions/gb-rules';
import { refuseAutoplayTurbo } from '@opi/play/sessions/jurisdiction-rules';
import { loadOperator } from '@opi/play/sessions/operators';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { assertOnLadder } from '@opi/play/sessions/stake-ladders';
import { refuseSuspendedOperator } from '@opi/play/sessions/takes-bets';
import {
  conflict,
  invalidField,
  runtimeNotConfigured,
  unauthorized,
  unprocessable,
} from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import { roundDetailsUrl } from '@opi/signing';
import { type RoundIntent, transactionIdsFor } from '@opi/wallet';
import { z } from 'zod';
import type { GameDeps } from '../deps.js';
import { drawsPrize, spinPrizeDrop } from '../promotions/prize-drop.js';
import { startRoundSettlement } from '../settlement/start-round.js';
import { freeRoundOf, recordFreeRound } from './free-rounds.js';
import { refusalLimitOf } from './refused-wagers.js';
import { recordSpinRound, type SpinJackpotPlay } from './spin-statement.js';

/*
 * The slot spin's orchestration (POST /api/runtime/spin): the request checked, the engine's
 * outcome, the round's intent, the round recorded (spin-statement.ts; a free round by
 * free-rounds.ts), the settlement started and its outcome awaited.
 */

export const SpinRequest = z.object({
  /** Total stake in minor units (integer, as a number or a decimal string). */
  bet_minor: z.union([z.number().int().positive(), z.string().regex(/^[1-9][0-9]{0,17}$/)]),
  /** base spin, buy the feature, or the special bet (when the title has them). */
  mode: z.enum(['base', 'buy', 'special']).default('base'),
  /** Special bet level (one of the title's `bls`). */
  bet_level: z.number().int().positive().optional(),
  /**
   * Play one of the session's free rounds (a base spin at the campaign's stake: `bet_minor` must be
   * that stake). Without it, a paid spin while free rounds remain (not declined) is 409.
   */
  free_round: z.boolean().optional(),
});

/** Engine outcomes carry bigint amounts; JSON carries them as decimal strings. */
export function jsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, jsonSafe(v)]),
    );
  }
  return value;
}

/** How long the page waits for the settlement before answering `pending` (it polls after). */
export const SPIN_WAIT_MS = 15_000;

/**
 * POST /api/runtime/spin: the outcome comes from the engine (CSPRNG), the round and its intent are
 * written in one transaction, then the round's settlement workflow runs (debit, credit). The page
 * shows the balance the wallet answered.
 */
export async function spin(deps: GameDeps, play: SlotPlayer, session: RuntimeSession, body: unknown) {
  if (!isSlotTitle(session.provider_id)) {
    throw conflict('This title is not played through /spin');
  }
  if (!deps.temporal) throw runtimeNotConfigured('settlement service');
  // A suspended operator starts no round (403); the round's statement checks again, atomically.
  refuseSuspendedOperator(session);
  const req = parseOr422(SpinRequest, body ?? {}, 'body');
  // Jurisdiction rules: autoplay or turbo asked for where they are not allowed (GB) is 422.
  await refuseAutoplayTurbo(deps.pool, session, body);
  const betMinor = BigInt(req.bet_minor);
  // Free rounds are played before any paid spin, unless the player declined them in this session.
  const free = freeRoundOf(await sessionFreeRounds(deps.pool, session), req, betMinor);
  // The operator's limits from the process's operator cache (dropped by the change feed when an
  // admin changes the operator): no round trip per spin.
  const operator = await deps.caches.operators.get(session.operator_id, () =>
    loadOperator(deps.pool, session.operator_id),
  );
  if (!operator) throw unauthorized('Missing or invalid session token');
  const limits = operator;
  if (betMinor < limits.bet_min_minor || betMinor > limits.bet_max_minor) {
    throw invalidField(
      ['body', 'bet_minor'],
      `the bet must be between ${limits.bet_min_minor} and ${limits.bet_max_minor} minor units`,
    );
  }
  // GB: the stake per spin is capped (per currency and age band, recorded on the session at
  // launch). A free round's stake is the operator's, not the player's: not capped.
  const cap = req.free_round ? null : (session.max_stake_minor ?? null);
  if (cap !== null && betMinor > cap) throw stakeAboveCapError('bet_minor', betMinor, cap, 'GB');
  // A session frozen with a stake ladder (issue 39: a crypto currency) takes its stakes only; a
  // free round's stake is the campaign's.
  if (!req.free_round) await assertOnLadder(deps.pool, session, betMinor, 'bet_minor');
  let result: SlotPlayResult;
  try {
    result = play(session.symbol, {
      betMinor,
      mode: req.mode,
      ...(req.bet_level !== undefined ? { betLevel: req.bet_level } : {}),
    });
  } catch (err) {
    throw unprocessable(err instanceof Error ? err.message : 'this play is not available for the title');
  }
  // What is debited (a special bet's bet x level, a bought feature's price) stays within the
  // operator's limits too. The check does not depend on the outcome, so refusing here biases nothing.
  if (result.costMinor > limits.bet_max_minor) {
    throw invalidField(
      ['body', req.mode === 'buy' ? 'mode' : 'bet_level'],
      `this play costs ${result.costMinor} minor units, above the operator's maximum of ${limits.bet_max_minor}`,
    );
  }
  // What is debited (a special bet, a bought feature) stays within the GB cap too.
  if (cap !== null && result.costMinor > cap)
    throw stakeAboveCapError(req.mode === 'buy' ? 'mode' : 'bet_level', result.costMinor, cap, 'GB');

  const roundId = `r_${randomUUID()}`;
  const intent: RoundIntent = {
    roundId,
    operatorId: session.operator_id,
    sessionId: session.session_id,
    playerId: session.external_player_id,
    gameSymbol: session.symbol,
    providerId: session.provider_id,
    currency: session.currency,
    actionType: req.mode === 'buy' ? 'buy_feature' : 'spin',
    stakeMinor: result.costMinor.toString(),
    winMinor: result.totalWinMinor.toString(),
    transactions: transactionIdsFor(roundId),
    // The round's replay page, fixed now: its credit carries it, the same bytes in every process.
    detailsUrl: roundDetailsUrl(deps.gameBaseUrl, deps.replayKey, roundId),
    journalAhead: true,
    // Debit and credit first tried in one local activity (settle-round/workflow.ts, step 0).
    oneStep: true,
    // The credit's row written with the round too: the first attempt records both outcomes in
    // one transaction (issue 36; docs/settlement.md).
    creditAhead: true,
  };
  let freeRound: { campaign_id: string; bet_minor: string; last: boolean; rounds_remaining: number } | null =
    null;
  if (free) {
    const counted = await recordFreeRound(
      deps,
      session,
      free.campaign_id,
      (last) => {
        intent.actionType = 'free_round';
        intent.stakeMinor = '0';
        // No debit: the credit's row is the round's only one, written with it anyway.
        delete intent.creditAhead;
        intent.freeRound = { campaignId: free.campaign_id, betMinor: free.bet_minor, last };
        return intent;
      },
      jsonSafe(result.outcome),
    );
    freeRound = { campaign_id: free.campaign_id, bet_minor: free.bet_minor, ...counted };
  } else {
    await recordPaidSpin(deps, session, intent, result.costMinor, jsonSafe(result.outcome));
  }
  const started = await startRoundSettlement(deps.temporal, intent, { awaitOutcome: true });
  const settled = await started.settled(deps.spinWaitMs ?? SPIN_WAIT_MS);
  if (!settled) {
    // The wallet has not answered yet: nothing of the outcome is told before the wager stands
    // (a player who knew a loss could empty the balance so the retried debit is refused). The page
    // follows the round (GET /api/runtime/rounds/:round_id) until it is over.
    return {
      round_id: roundId,
      status: 'pending' as const,
      bet_minor: freeRound ? '0' : result.costMinor.toString(),
      win_minor: null,
      free_round: freeRound,
      free_round_last: freeRound?.last ?? false,
      balance: null,
      error: null,
      outcome: null,
      prize_drop: null,
      jackpot_wins: [],
    };
  }
  return {
    round_id: roundId,
    status: settled.status,
    bet_minor: freeRound ? '0' : result.costMinor.toString(),
    win_minor: result.totalWinMinor.toString(),
    free_round: freeRound,
    free_round_last: freeRound?.last ?? false,
    balance: 'balance' in settled ? (settled.balance ?? null) : null,
    error: settled.status === 'rejected' ? settled.error : null,
    outcome: jsonSafe(result.outcome),
    prize_drop: intent.prizeDrop
      ? { drop_id: intent.prizeDrop.dropId, amount_minor: intent.prizeDrop.amountMinor }
      : null,
    jackpot_wins: (intent.jackpot?.wins ?? []).map((w) => ({
      jackpot_id: intent.jackpot!.jackpotId,
      level: w.level,
      amount_minor: w.amountMinor,
    })),
  };
}

/**
 * A paid spin: the jackpot it feeds (the process's cache, dropped by the change feed) decides the
 * debit's optional fields, so they are in the journal-ahead body; the statement checks the
 * jackpot again at the row locks. If it no longer applies (closed or opted out since the cache
 * was filled), the spin is recorded once more from the database's answer.
 */
async function recordPaidSpin(
  deps: GameDeps,
  session: RuntimeSession,
  intent: RoundIntent,
  stakeMinor: bigint,
  outcome: unknown,
) {
  const lookup = () => loadSpinJackpot(deps.pool, session.operator_id, session.symbol, session.currency);
  let jackpot = await deps.caches.jackpots.get(
    `${session.operator_id}|${session.symbol}|${session.currency}`,
    lookup,
  );
  // A prize drop's draw (the pool decides at its row lock whether a prize is left).
  const drop = await spinPrizeDrop(deps, session);
  const prizeDrop = drop && drawsPrize(drop, stakeMinor) ? { dropId: drop.dropId } : undefined;
  for (let attempt = 0; ; attempt++) {
    const play = jackpot ? playFor(jackpot, intent, stakeMinor) : undefined;
    if (!play) delete intent.jackpot;
    const recorded = await recordSpinRound(
      deps.pool,
      session,
      intent,
      outcome,
      refusalLimitOf(deps),
      play,
      prizeDrop,
    );
    if (recorded !== 'jackpot_stale' || attempt > 0) return;
    jackpot = await lookup();
  }
}

function playFor(jackpot: SpinJackpot, intent: RoundIntent, stakeMinor: bigint): SpinJackpotPlay {
  const { levels, contributionMicros } = playLevels(jackpot, stakeMinor);
  intent.jackpot = { jackpotId: jackpot.jackpotId, contributionMicros: contributionMicros.toString() };
  return { jackpotId: jackpot.jackpotId, levels, contributionMicros };
}
