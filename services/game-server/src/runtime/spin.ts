import { randomUUID } from 'node:crypto';
import { type PoolClient, withTransaction } from '@opi/db';
import { isSlotTitle } from '@opi/games';
import type { SlotPlayer, SlotPlayResult } from '@opi/play/engines/slot-player';
import {
  JACKPOT_ELIGIBLE_SQL,
  type LevelPlay,
  loadSpinJackpot,
  playLevels,
  type SpinJackpot,
} from '@opi/play/jackpots/spin-jackpot';
import { type BetsBlockedRow, betsBlockedError, presentBetsBlocked } from '@opi/play/sessions/bets-blocked';
import { sessionFreeRounds } from '@opi/play/sessions/free-rounds';
import { stakeAboveCapError } from '@opi/play/sessions/gb-rules';
import {
  realityCheckDueError,
  refuseAutoplayTurbo,
  type SpinRulesRow,
  spinTooSoonError,
} from '@opi/play/sessions/jurisdiction-rules';
import { loadOperator } from '@opi/play/sessions/operators';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { assertOnLadder } from '@opi/play/sessions/stake-ladders';
import {
  operatorSuspendedError,
  refuseSuspendedOperator,
  sessionRevokedError,
} from '@opi/play/sessions/takes-bets';
import { HttpError } from '@opi/service-kit/http/errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import { roundDetailsUrl } from '@opi/signing';
import {
  type JackpotWinIntent,
  journalEntry,
  journalInsertSql,
  type RoundIntent,
  transactionIdsFor,
} from '@opi/wallet';
import { withTrace } from '@opi/workflows';
import { z } from 'zod';
import type { GameDeps } from '../deps.js';
import { drawsPrize, PRIZE_DROP_OPEN_SQL, spinPrizeDrop } from '../promotions/prize-drop.js';
import { startRoundSettlement } from '../settlement/start-round.js';
import { refusalLimitOf, type SpinRefusalLimit, wagersRefusedError } from './refused-wagers.js';

/** The journal part of the spin's statement: the step's pending row, written with the round (`ins`). */
const JOURNAL_AHEAD_SQL = journalInsertSql(
  {
    transactionId: '$11',
    operatorId: '$2',
    sessionId: '$3',
    roundId: 'round_id',
    playerId: '$12',
    gameSymbol: '$5',
    type: '$17',
    amountMinor: '$18',
    currency: '$7',
    body: '$13',
    requestHash: '$14',
  },
  { from: 'ins' },
);

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
    throw new HttpError(409, 'This title is not played through /spin');
  }
  if (!deps.temporal) throw new HttpError(503, 'Provider runtime not configured (no settlement service)');
  // A suspended operator starts no round (403); the round's statement checks again, atomically.
  refuseSuspendedOperator(session);
  const req = parseOr422(SpinRequest, body ?? {}, 'body');
  // Jurisdiction rules: autoplay or turbo asked for where they are not allowed (GB) is 422.
  await refuseAutoplayTurbo(deps.pool, session, body);
  const betMinor = BigInt(req.bet_minor);
  // Free rounds are played before any paid spin, unless the player declined them in this session.
  const free = await sessionFreeRounds(deps.pool, session);
  if (req.free_round) {
    if (!free) throw new HttpError(409, 'No free rounds are left for this title');
    if (req.mode !== 'base' || req.bet_level !== undefined)
      throw new HttpError(422, [
        { loc: ['body', 'mode'], msg: 'a free round is a base spin', type: 'value_error' },
      ]);
    if (betMinor.toString() !== free.bet_minor)
      throw new HttpError(422, [
        {
          loc: ['body', 'bet_minor'],
          msg: `a free round of this campaign is played at ${free.bet_minor} minor units`,
          type: 'value_error',
        },
      ]);
  } else if (free && !free.declined) {
    throw new HttpError(
      409,
      `Free rounds remain for this title (${free.rounds_remaining}): play them or decline them first`,
      { error: 'free_rounds_pending', free_rounds: free },
    );
  }
  // The operator's limits from the process's operator cache (dropped by the change feed when an
  // admin changes the operator): no round trip per spin.
  const operator = await deps.caches.operators.get(session.operator_id, () =>
    loadOperator(deps.pool, session.operator_id),
  );
  if (!operator) throw new HttpError(401, 'Missing or invalid session token');
  const limits = operator;
  if (betMinor < limits.bet_min_minor || betMinor > limits.bet_max_minor) {
    throw new HttpError(422, [
      {
        loc: ['body', 'bet_minor'],
        msg: `the bet must be between ${limits.bet_min_minor} and ${limits.bet_max_minor} minor units`,
        type: 'value_error',
      },
    ]);
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
    throw new HttpError(422, err instanceof Error ? err.message : 'this play is not available for the title');
  }
  // What is debited (a special bet's bet x level, a bought feature's price) stays within the
  // operator's limits too. The check does not depend on the outcome, so refusing here biases nothing.
  if (result.costMinor > limits.bet_max_minor) {
    throw new HttpError(422, [
      {
        loc: ['body', req.mode === 'buy' ? 'mode' : 'bet_level'],
        msg: `this play costs ${result.costMinor} minor units, above the operator's maximum of ${limits.bet_max_minor}`,
        type: 'value_error',
      },
    ]);
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
  if (req.free_round && free) {
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

function playFor(jackpot: SpinJackpot, intent: RoundIntent, stakeMinor: bigint) {
  const { levels, contributionMicros } = playLevels(jackpot, stakeMinor);
  intent.jackpot = { jackpotId: jackpot.jackpotId, contributionMicros: contributionMicros.toString() };
  return { jackpotId: jackpot.jackpotId, levels, contributionMicros };
}

/**
 * The spin's one statement (one round trip, autocommit): under a share lock of the session row, the
 * round with its intent and the debit's pending journal row (journal ahead: the workflow's first
 * debit attempt sends these bytes at once) and, for a paid spin, the credit's (credit ahead: the
 * first attempt sends it on the debit's success and records both outcomes at once), unless the session was revoked (401) or its operator
 * suspended (403), the session has an unfinished round (409; two racing spins meet at the unique
 * index rounds_one_open_spin) or its bets are blocked by the operator's wallet (409 with the
 * code). The share lock waits for a refusal or a revocation being recorded (which update the
 * session row) and then reads the new row; the operator row's key-share lock (the one the rounds
 * foreign key takes anyway) waits for a deactivation (the PATCH locks the row FOR UPDATE) and then
 * reads its new status (sessions/takes-bets.ts).
 */
async function recordSpinRound(
  db: GameDeps['pool'] | PoolClient,
  session: RuntimeSession,
  intent: RoundIntent,
  outcome: unknown,
  refusals: SpinRefusalLimit,
  jackpot?: { jackpotId: string; levels: LevelPlay[]; contributionMicros: bigint },
  prizeDrop?: { dropId: string },
): Promise<'recorded' | 'jackpot_stale'> {
  // A free round has no debit: its journal-ahead row is the credit's.
  const step = intent.freeRound
    ? journalEntry(intent, 'credit', intent.winMinor ?? '0')
    : journalEntry(intent, 'debit', intent.stakeMinor);
  const stepType = intent.freeRound ? 'credit' : 'debit';
  const stepAmount = intent.freeRound ? (intent.winMinor ?? '0') : intent.stakeMinor;
  // With a jackpot, the round records it, its contribution (micros, summed; `pending`) and what its
  // draws won. The contribution is not added here: it goes into the pools in the statement that
  // records the debit's success (migration 28's trigger), so a refused wager never grows a pool.
  // Only a level the spin's draw hit takes its pool's row lock here: it is won only if no other
  // spin hit it since this statement's snapshot (one hit per reset; the pool's `hits` count
  // tells), and it wins the pool as it stands. The round's intent gets the wins (jsonb_set) so that
  // a resumed workflow pays them too. A unique-index race with another spin of the session is then
  // an error (no DO NOTHING): the pools' updates must not outlive the round.
  const jp = jackpot !== undefined;
  const hitLevels = jackpot ? jackpot.levels.filter((l) => l.hit) : [];
  const jh = hitLevels.length > 0;
  const pd = prizeDrop !== undefined;
  // A paid one-step spin's credit row too (intent.creditAhead), after the debit's.
  const credit =
    intent.creditAhead && !intent.freeRound && intent.winMinor !== null
      ? journalEntry(intent, 'credit', intent.winMinor)
      : null;
  const params: unknown[] = [
    intent.roundId,
    intent.operatorId,
    intent.sessionId,
    session.player_id,
    intent.gameSymbol,
    intent.providerId,
    intent.currency,
    intent.stakeMinor,
    JSON.stringify(withTrace(intent)),
    JSON.stringify(outcome),
    step.transactionId,
    intent.playerId,
    step.body,
    step.requestHash,
    intent.freeRound?.campaignId ?? null,
    intent.freeRound?.betMinor ?? null,
    stepType,
    stepAmount,
    refusals.limit,
    refusals.windowSeconds,
  ];
  const p = (value: unknown) => `$${params.push(value)}`;
  const jpId = jackpot ? p(jackpot.jackpotId) : '';
  // The hit levels in name order (the pools' lock order everywhere: migration 28).
  const jpLevels = jh
    ? p(
        JSON.stringify(
          hitLevels
            .map((l) => ({ level: l.level }))
            .sort((a, b) => (a.level < b.level ? -1 : a.level > b.level ? 1 : 0)),
        ),
      )
    : '';
  const jpContribution = jackpot ? p(jackpot.contributionMicros.toString()) : '';
  const pdId = prizeDrop ? p(prizeDrop.dropId) : '';
  const creditCte = credit
    ? `, journal_credit AS (
       ${journalInsertSql(
         {
           transactionId: p(credit.transactionId),
           operatorId: '$2',
           sessionId: '$3',
           roundId: 'round_id',
           playerId: '$12',
           gameSymbol: '$5',
           type: `'credit'`,
           amountMinor: p(intent.winMinor),
           currency: '$7',
           body: p(credit.body),
           requestHash: p(credit.requestHash),
         },
         { from: 'ins', createdAt: 'clock_timestamp()' },
       )}
     )`
    : '';
  // The round's intent as stored: the caller's, with what the statement decided added to it.
  let storedIntent = '$9::jsonb';
  if (jh)
    storedIntent = `CASE WHEN jw.wins IS NULL THEN ${storedIntent}
                         ELSE jsonb_set(${storedIntent}, '{jackpot,wins}', jw.wins) END`;
  if (pd)
    storedIntent = `CASE WHEN dw.payout_id IS NULL THEN ${storedIntent}
                         ELSE ${storedIntent} || jsonb_build_object('prizeDrop', jsonb_build_object(
                           'dropId', ${pdId}::text, 'payoutId', dw.payout_id, 'amountMinor', dw.amount_minor::text)) END`;
  const jackpotCtes = `snap AS (
       SELECT level, hits FROM jackpot_pools WHERE jackpot_id = ${jpId} AND currency = $7
     ), lv AS (
       SELECT * FROM jsonb_to_recordset(${jpLevels}::jsonb) AS x(level text)
     ), jp AS (
       UPDATE jackpot_pools p
          SET (amount_micros, reserve_micros, seeded_micros, wins_micros, hits,
               last_win_round_id, last_win_minor, last_win_at, updated_at) =
              (SELECT f.new_amount, f.new_reserve,
                      p.seeded_micros + CASE WHEN f.win_minor > 0 THEN p.seed_minor * 1000000 ELSE 0 END,
                      p.wins_micros + f.win_minor::numeric * 1000000,
                      p.hits + CASE WHEN f.win_minor > 0 THEN 1 ELSE 0 END,
                      CASE WHEN f.win_minor > 0 THEN $1 ELSE p.last_win_round_id END,
                      CASE WHEN f.win_minor > 0 THEN f.win_minor ELSE p.last_win_minor END,
                      CASE WHEN f.win_minor > 0 THEN now() ELSE p.last_win_at END,
                      now()
                 FROM jackpot_pool_step(p.amount_micros, p.reserve_micros, p.cap_minor, p.seed_minor, 0, true) f)
         FROM lv JOIN snap ON snap.level = lv.level
        WHERE p.jackpot_id = ${jpId} AND p.currency = $7 AND p.level = lv.level AND p.hits = snap.hits
          AND p.amount_micros >= 1000000 AND EXISTS (SELECT 1 FROM ok)
       RETURNING p.level, CASE WHEN p.last_win_round_id = $1 THEN p.last_win_minor ELSE 0 END AS win_minor
     ), jw AS (
       SELECT jsonb_agg(jsonb_build_object('level', level, 'amountMinor', win_minor::text) ORDER BY level) AS wins,
              coalesce(sum(win_minor), 0)::bigint AS total
         FROM jp WHERE win_minor > 0
     ), jh AS (
       INSERT INTO jackpot_hits (round_id, jackpot_id, level, currency, operator_id, external_player_id, amount_minor)
       SELECT $1, ${jpId}, level, $7, $2, $12, win_minor FROM jp WHERE win_minor > 0
       RETURNING 1
     ), `;
  // A prize, if one is left: the pool's row lock orders concurrent awards (never more than the
  // pool). One prize per player per drop and currency: the NOT EXISTS below and promo_payouts'
  // UNIQUE (promo_type, promo_id, operator, player, currency) (migration 21); the payout id is random.
  const dropCtes = `dp AS (
       UPDATE prize_drop_pools d SET prizes_left = d.prizes_left - 1, updated_at = now()
        WHERE d.drop_id = ${pdId} AND d.currency = $7 AND d.prizes_left > 0 AND EXISTS (SELECT 1 FROM ok)
          AND ${PRIZE_DROP_OPEN_SQL(pdId, '$2', '$5')}
          AND NOT EXISTS (SELECT 1 FROM promo_payouts x
                           WHERE x.promo_type = 'prize_drop' AND x.promo_id = ${pdId} AND x.operator_id = $2
                             AND x.external_player_id = $12 AND x.currency = $7)
       RETURNING d.prize_minor
     ), dw AS (
       -- 32 random hex digits (issue 34): nothing another operator could compute from a player id.
       SELECT 'pp_d_' || ${pdId}::text || '_' || replace(gen_random_uuid()::text, '-', '') AS payout_id,
              prize_minor AS amount_minor
         FROM dp
     ), dpp AS (
       INSERT INTO promo_payouts (payout_id, promo_type, promo_id, operator_id, external_player_id, player_id, currency,
                                  amount_minor, session_id, game_symbol)
       SELECT payout_id, 'prize_drop', ${pdId}, $2, $12, $4, $7, amount_minor, $3, $5 FROM dw
       RETURNING 1
     ), `;
  // The round's first journal row, in the same statement (@opi/wallet writes every journal row).
  const sql = `WITH s AS (
       SELECT status, bets_blocked_code, bets_blocked_at, bets_blocked_round_id, min_spin_interval_ms,
              reality_check_due_at
         FROM sessions WHERE session_id = $3 FOR SHARE
     ), o AS (
       SELECT status FROM operators WHERE operator_id = $2 FOR KEY SHARE
     ), open_round AS (
       SELECT round_id FROM rounds
        WHERE session_id = $3 AND status = 'open' LIMIT 1
     ), last_spin AS (
       SELECT created_at FROM rounds WHERE operator_id = $2 AND session_id = $3 ORDER BY created_at DESC LIMIT 1
     ), refused AS (
       -- The player's refusal limit (paid spins): the limit-th latest refused wager inside the window,
       -- if there is one (the partial index wallet_transactions_debits_refused, migration 28).
       SELECT completed_at FROM wallet_transactions
        WHERE operator_id = $2 AND player_id = $12 AND transaction_type = 'debit' AND status = 'failed'
          AND error_code IS DISTINCT FROM 'reversed_by_rollback'
          AND completed_at > now() - make_interval(secs => $20::int)
        ORDER BY completed_at DESC OFFSET $19::int - 1 LIMIT 1
     ), ok AS (
       SELECT 1 FROM s
        WHERE s.status = 'active' AND (SELECT status FROM o) = 'active'
          AND s.bets_blocked_code IS NULL AND NOT EXISTS (SELECT 1 FROM open_round)
          -- Jurisdiction rules: no spin while a reality check is due, none sooner than the
          -- minimum interval after the session's latest round started.
          AND NOT coalesce(s.reality_check_due_at <= now(), false)
          AND NOT coalesce((SELECT created_at FROM last_spin)
                           > now() - make_interval(secs => s.min_spin_interval_ms / 1000.0), false)
          -- Refused wagers: a paid spin waits once the player's wallet refused too many lately.
          AND ($15::text IS NOT NULL OR NOT EXISTS (SELECT 1 FROM refused))
          ${jp ? `AND ${JACKPOT_ELIGIBLE_SQL(jpId, '$2', '$5')}` : ''}
     ), ${jh ? jackpotCtes : ''}${pd ? dropCtes : ''}ins AS (
       INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                           bet_minor, win_minor, intent, outcome, free_round_campaign_id, free_round_bet_minor
                           ${jp ? ', jackpot_id, jackpot_contribution_micros, jackpot_win_minor, jackpot_contribution_state' : ''}
                           ${pd ? ', prize_drop_payout_id' : ''})
       SELECT $1, $2, $3, $4, $5, $6, $7, 'open', $8, 0, ${storedIntent}, $10, $15, $16
              ${jp ? `, ${jpId}, ${jpContribution}, ${jh ? 'jw.total' : '0'}, 'pending'` : ''} ${pd ? ', dw.payout_id' : ''}
         FROM ok ${jh ? ', jw' : ''} ${pd ? 'LEFT JOIN dw ON true' : ''}
       ${jh || pd ? '' : `ON CONFLICT (session_id) WHERE status = 'open' AND (intent ->> 'journalAhead') = 'true' DO NOTHING`}
       RETURNING round_id
     ), journal AS (
       ${JOURNAL_AHEAD_SQL}
     )${creditCte}
     SELECT s.status AS session_status, (SELECT status FROM o) AS operator_status,
            (SELECT round_id FROM open_round) AS open_round_id, s.bets_blocked_code, s.bets_blocked_at,
            s.bets_blocked_round_id, s.reality_check_due_at, s.reality_check_due_at <= now() AS reality_check_due,
            (s.min_spin_interval_ms - extract(epoch FROM now() - (SELECT created_at FROM last_spin)) * 1000)::float8
              AS retry_after_ms,
            (SELECT extract(epoch FROM completed_at + make_interval(secs => $20::int) - now()) * 1000 FROM refused)::float8
              AS refused_retry_after_ms,
            (SELECT count(*) FROM ins)::int AS inserted,
            (SELECT count(*) FROM journal)::int${credit ? ' + (SELECT count(*) FROM journal_credit)::int' : ''} AS journalled,
            ${jh ? '(SELECT wins FROM jw)' : 'NULL::jsonb'} AS jackpot_wins,
            ${jp ? JACKPOT_ELIGIBLE_SQL(jpId, '$2', '$5') : 'true'} AS jackpot_eligible,
            ${pd ? '(SELECT payout_id FROM dw) AS drop_payout_id, (SELECT amount_minor FROM dw)::text AS drop_amount_minor' : 'NULL AS drop_payout_id, NULL AS drop_amount_minor'}
       FROM s`;
  let rows: (BetsBlockedRow &
    SpinRulesRow & {
      session_status: string;
      operator_status: string | null;
      open_round_id: string | null;
      inserted: number;
      journalled: number;
      jackpot_wins: JackpotWinIntent[] | null;
      jackpot_eligible: boolean;
      refused_retry_after_ms: number | null;
      drop_payout_id: string | null;
      drop_amount_minor: string | null;
    })[];
  try {
    // A named statement: each connection parses and plans each variant once (the jackpot and
    // prize-drop variants' planning cost almost as much as their execution), then only binds.
    // The text is fixed per variant: every value is a parameter.
    ({ rows } = await db.query({
      name: `spin-round-${credit ? 'c' : ''}${jp ? 'j' : ''}${jh ? 'h' : ''}${pd ? 'd' : ''}`,
      text: sql,
      values: params,
    }));
  } catch (err) {
    // Two spins of one session racing past the open-round check meet at the unique index.
    if ((err as { code?: string; constraint?: string }).code === '23505')
      throw new HttpError(409, 'Another round of this session is still being settled');
    throw err;
  }
  const row = rows[0];
  if (!row) throw new HttpError(401, 'Missing or invalid session token');
  if (row.inserted === 1 && row.journalled === (credit ? 2 : 1)) {
    if (intent.jackpot && row.jackpot_wins) intent.jackpot.wins = row.jackpot_wins;
    if (prizeDrop && row.drop_payout_id && row.drop_amount_minor)
      intent.prizeDrop = {
        dropId: prizeDrop.dropId,
        payoutId: row.drop_payout_id,
        amountMinor: row.drop_amount_minor,
      };
    return 'recorded';
  }
  if (!row.jackpot_eligible) return 'jackpot_stale';
  // Revoked, or its operator suspended, by the time the round would be written: no round.
  if (row.session_status !== 'active') throw sessionRevokedError();
  if (row.operator_status !== 'active') throw operatorSuspendedError();
  // Jurisdiction rules: too soon after the latest spin's start (GB), even while that round is
  // still settling, so the answer says how long to wait.
  if (row.retry_after_ms !== null && row.retry_after_ms > 0) throw spinTooSoonError(row.retry_after_ms);
  // Too many wagers refused lately (a loop of spins the wallet refuses): wait, then spin again.
  if (!intent.freeRound && row.refused_retry_after_ms !== null && row.refused_retry_after_ms > 0)
    throw wagersRefusedError(row.refused_retry_after_ms, refusals);
  // One unfinished round at a time per session: the previous one must settle first.
  if (row.open_round_id) throw new HttpError(409, `Round ${row.open_round_id} is still being settled`);
  // Player protection: a session whose debit the operator refused with a blocking code takes no
  // bets until relaunch.
  const blocked = presentBetsBlocked(row);
  if (blocked) throw betsBlockedError(blocked);
  // Jurisdiction rules: a reality check waits for the player (sessions/jurisdiction-rules.ts).
  if (row.reality_check_due) throw realityCheckDueError(row.reality_check_due_at);
  throw new HttpError(409, 'Another round of this session is still being settled');
}

/**
 * A free round: in one transaction, the player's grant is counted (rounds_used + 1, only while
 * rounds remain and the campaign is not cancelled and inside its window, checked against the
 * database clock now: expiry is a query on expires_at at spend time) and the round is recorded
 * with its credit's journal row (recordSpinRound). No grant row counted: no round (409). A round
 * the session cannot take (one still open, bets blocked) rolls the count back. Two pages spending
 * the last round at once meet at the grant's row lock: one round between them.
 */
async function recordFreeRound(
  deps: GameDeps,
  session: RuntimeSession,
  campaignId: string,
  buildIntent: (last: boolean) => RoundIntent,
  outcome: unknown,
): Promise<{ last: boolean; rounds_remaining: number }> {
  return withTransaction(deps.pool, async (client) => {
    const { rows } = await client.query<{ rounds_used: number; rounds_total: number }>(
      `WITH c AS (
         SELECT 1 FROM free_round_campaigns
          WHERE operator_id = $1 AND campaign_id = $2 AND cancelled_at IS NULL
            AND now() >= valid_from AND now() < expires_at AND $4 = ANY (symbols) AND currency = $5
          FOR SHARE
       )
       UPDATE free_round_grants SET rounds_used = rounds_used + 1
        WHERE operator_id = $1 AND campaign_id = $2 AND external_player_id = $3
          AND rounds_used < rounds_total AND EXISTS (SELECT 1 FROM c)
       RETURNING rounds_used, rounds_total`,
      [session.operator_id, campaignId, session.external_player_id, session.symbol, session.currency],
    );
    const grant = rows[0];
    if (!grant) throw new HttpError(409, 'No free rounds are left for this title');
    const last = grant.rounds_used === grant.rounds_total;
    if (
      (await recordSpinRound(client, session, buildIntent(last), outcome, refusalLimitOf(deps))) !==
      'recorded'
    )
      throw new HttpError(409, 'Another round of this session is still being settled');
    return { last, rounds_remaining: grant.rounds_total - grant.rounds_used };
  });
}
