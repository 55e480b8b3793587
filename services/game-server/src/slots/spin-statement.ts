import type { PoolClient } from '@opi/db';
import { JACKPOT_ELIGIBLE_SQL, type LevelPlay } from '@opi/play/jackpots/spin-jackpot';
import { type BetsBlockedRow, betsBlockedError, presentBetsBlocked } from '@opi/play/sessions/bets-blocked';
import {
  realityCheckDueError,
  type SpinRulesRow,
  spinTooSoonError,
} from '@opi/play/sessions/jurisdiction-rules';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { operatorSuspendedError, sessionRevokedError } from '@opi/play/sessions/takes-bets';
import { conflict, unauthorized } from '@opi/service-kit/http/named-errors';
import { type JackpotWinIntent, journalEntry, type RoundIntent } from '@opi/wallet';
import { roundJournalInsertSql, withTrace } from '@opi/workflows';
import type { GameDeps } from '../deps.js';
import { PRIZE_DROP_OPEN_SQL } from '../promotions/prize-drop.js';
import { type SpinRefusalLimit, wagersRefusedError } from './refused-wagers.js';

/*
 * The spin's one statement (docs/settlement.md "The spin's one statement"), in named parts: the
 * session's gate (the checks a spin must pass, under the session row's share lock), the jackpot
 * draw's and the prize drop's parts (only for a spin that has them), the round's insert, the
 * journal rows written with it, and the answer the statement reads back. recordSpinRound puts
 * them together, one variant per combination of parts (each a named statement), and turns a
 * round not written into the reason the player is told.
 */

/** A spin's jackpot play: its jackpot, the levels its draws played and the contribution (micros). */
export interface SpinJackpotPlay {
  jackpotId: string;
  levels: LevelPlay[];
  contributionMicros: bigint;
}

/** Which optional parts a variant of the statement has, and their parameters' placeholders. */
interface Variant {
  /** The spin feeds a jackpot: its id's placeholder. */
  jpId: string | null;
  /** Its draws hit one or more levels: their list's placeholder (jsonb). */
  jpLevels: string | null;
  /** Its contribution's placeholder (micros). */
  jpContribution: string;
  /** A prize drop drew this spin: the drop's placeholder. */
  pdId: string | null;
  /** The credit's row written ahead (a paid one-step spin): its CTE. */
  creditCte: string;
}

/** The journal part of the spin's statement: the step's pending row, written with the round (`ins`). */
const JOURNAL_AHEAD_SQL = roundJournalInsertSql({
  transactionId: '$11',
  type: '$17',
  amountMinor: '$18',
  body: '$13',
  requestHash: '$14',
});

/**
 * The parameters every variant has ($1..$20): the round, its intent and outcome, the journal-ahead
 * step (a free round has no debit: its row is the credit's), the free round's campaign, and the
 * player's refusal limit.
 */
function baseParams(
  session: RuntimeSession,
  intent: RoundIntent,
  outcome: unknown,
  refusals: SpinRefusalLimit,
): unknown[] {
  const step = intent.freeRound
    ? journalEntry(intent, 'credit', intent.winMinor ?? '0')
    : journalEntry(intent, 'debit', intent.stakeMinor);
  const stepType = intent.freeRound ? 'credit' : 'debit';
  const stepAmount = intent.freeRound ? (intent.winMinor ?? '0') : intent.stakeMinor;
  return [
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
}

/** A paid one-step spin's credit row, written ahead after the debit's (intent.creditAhead). */
function creditAheadCte(intent: RoundIntent, p: (value: unknown) => string): string {
  if (!intent.creditAhead || intent.freeRound || intent.winMinor === null) return '';
  const credit = journalEntry(intent, 'credit', intent.winMinor);
  return `, journal_credit AS (
       ${roundJournalInsertSql(
         {
           transactionId: p(credit.transactionId),
           type: `'credit'`,
           amountMinor: p(intent.winMinor),
           body: p(credit.body),
           requestHash: p(credit.requestHash),
         },
         'clock_timestamp()',
       )}
     )`;
}

/** The round's intent as stored: the caller's, with what the statement decided added to it. */
function storedIntentSql(v: Variant): string {
  let storedIntent = '$9::jsonb';
  if (v.jpLevels)
    storedIntent = `CASE WHEN jw.wins IS NULL THEN ${storedIntent}
                         ELSE jsonb_set(${storedIntent}, '{jackpot,wins}', jw.wins) END`;
  if (v.pdId)
    storedIntent = `CASE WHEN dw.payout_id IS NULL THEN ${storedIntent}
                         ELSE ${storedIntent} || jsonb_build_object('prizeDrop', jsonb_build_object(
                           'dropId', ${v.pdId}::text, 'payoutId', dw.payout_id, 'amountMinor', dw.amount_minor::text)) END`;
  return storedIntent;
}

/**
 * The session's gate: its row under a share lock, its operator's status, an open round of the
 * session, the session's latest spin, the player's refusal limit; `ok` holds one row when the
 * spin may be played (and, with a jackpot, the title still in it).
 */
function gateCtes(v: Variant): string {
  return `s AS (
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
          ${v.jpId ? `AND ${JACKPOT_ELIGIBLE_SQL(v.jpId, '$2', '$5')}` : ''}
     ), `;
}

/**
 * A jackpot draw's hits: only a level the spin's draw hit takes its pool's row lock here. It is
 * won only if no other spin hit it since this statement's snapshot (one hit per reset; the pool's
 * `hits` count tells), and it wins the pool as it stands; each win is a jackpot_hits row.
 */
function jackpotHitCtes(jpId: string, jpLevels: string): string {
  return `snap AS (
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
}

/**
 * A prize, if one is left: the pool's row lock orders concurrent awards (never more than the
 * pool). One prize per player per drop and currency: the NOT EXISTS below and promo_payouts'
 * UNIQUE (promo_type, promo_id, operator, player, currency) (migration 21); the payout id is random.
 */
function prizeDropCtes(pdId: string): string {
  return `dp AS (
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
}

/**
 * The round and its journal rows: the round (only through `ok`), with its jackpot's and prize
 * drop's columns when it has them, then the journal-ahead step's row and, for a paid one-step spin,
 * the credit's (@opi/wallet writes every journal row). Without a jackpot hit or a prize (whose
 * updates must not outlive the round) two spins racing past the open-round check meet at the
 * unique index and the loser inserts nothing.
 */
function roundAndJournalCtes(v: Variant): string {
  const jp = v.jpId !== null;
  const jh = v.jpLevels !== null;
  const pd = v.pdId !== null;
  return `ins AS (
       INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                           bet_minor, win_minor, intent, outcome, free_round_campaign_id, free_round_bet_minor
                           ${jp ? ', jackpot_id, jackpot_contribution_micros, jackpot_win_minor, jackpot_contribution_state' : ''}
                           ${pd ? ', prize_drop_payout_id' : ''})
       SELECT $1, $2, $3, $4, $5, $6, $7, 'open', $8, 0, ${storedIntentSql(v)}, $10, $15, $16
              ${jp ? `, ${v.jpId}, ${v.jpContribution}, ${jh ? 'jw.total' : '0'}, 'pending'` : ''} ${pd ? ', dw.payout_id' : ''}
         FROM ok ${jh ? ', jw' : ''} ${pd ? 'LEFT JOIN dw ON true' : ''}
       ${jh || pd ? '' : `ON CONFLICT (session_id) WHERE status = 'open' AND (intent ->> 'journalAhead') = 'true' DO NOTHING`}
       RETURNING round_id
     ), journal AS (
       ${JOURNAL_AHEAD_SQL}
     )${v.creditCte}`;
}

/** What the statement answers: the gate's facts, what it wrote, and what the draws decided. */
function answerSelect(v: Variant): string {
  return `
     SELECT s.status AS session_status, (SELECT status FROM o) AS operator_status,
            (SELECT round_id FROM open_round) AS open_round_id, s.bets_blocked_code, s.bets_blocked_at,
            s.bets_blocked_round_id, s.reality_check_due_at, s.reality_check_due_at <= now() AS reality_check_due,
            (s.min_spin_interval_ms - extract(epoch FROM now() - (SELECT created_at FROM last_spin)) * 1000)::float8
              AS retry_after_ms,
            (SELECT extract(epoch FROM completed_at + make_interval(secs => $20::int) - now()) * 1000 FROM refused)::float8
              AS refused_retry_after_ms,
            (SELECT count(*) FROM ins)::int AS inserted,
            (SELECT count(*) FROM journal)::int${v.creditCte ? ' + (SELECT count(*) FROM journal_credit)::int' : ''} AS journalled,
            ${v.jpLevels ? '(SELECT wins FROM jw)' : 'NULL::jsonb'} AS jackpot_wins,
            ${v.jpId ? JACKPOT_ELIGIBLE_SQL(v.jpId, '$2', '$5') : 'true'} AS jackpot_eligible,
            ${v.pdId ? '(SELECT payout_id FROM dw) AS drop_payout_id, (SELECT amount_minor FROM dw)::text AS drop_amount_minor' : 'NULL AS drop_payout_id, NULL AS drop_amount_minor'}
       FROM s`;
}

/** The statement's one row. */
type SpinRow = BetsBlockedRow &
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
  };

/** The statement of a spin, its parameters and its variant's name. */
export function spinStatement(
  session: RuntimeSession,
  intent: RoundIntent,
  outcome: unknown,
  refusals: SpinRefusalLimit,
  jackpot?: SpinJackpotPlay,
  prizeDrop?: { dropId: string },
): { name: string; text: string; values: unknown[]; journalRows: 1 | 2 } {
  const params = baseParams(session, intent, outcome, refusals);
  const p = (value: unknown) => `$${params.push(value)}`;
  // With a jackpot, the round records it, its contribution (micros, summed; `pending`) and what its
  // draws won. The contribution is not added here: it goes into the pools in the statement that
  // records the debit's success (migration 28's trigger), so a refused wager never grows a pool.
  // The round's intent gets the wins (jsonb_set) so that a resumed workflow pays them too. A
  // unique-index race with another spin of the session is then an error (no DO NOTHING): the
  // pools' updates must not outlive the round.
  const hitLevels = jackpot ? jackpot.levels.filter((l) => l.hit) : [];
  const jpId = jackpot ? p(jackpot.jackpotId) : null;
  // The hit levels in name order (the pools' lock order everywhere: migration 28).
  const jpLevels =
    hitLevels.length > 0
      ? p(
          JSON.stringify(
            hitLevels
              .map((l) => ({ level: l.level }))
              .sort((a, b) => (a.level < b.level ? -1 : a.level > b.level ? 1 : 0)),
          ),
        )
      : null;
  const jpContribution = jackpot ? p(jackpot.contributionMicros.toString()) : '';
  const pdId = prizeDrop ? p(prizeDrop.dropId) : null;
  const v: Variant = { jpId, jpLevels, jpContribution, pdId, creditCte: creditAheadCte(intent, p) };
  const text = `WITH ${gateCtes(v)}${jpId && jpLevels ? jackpotHitCtes(jpId, jpLevels) : ''}${
    pdId ? prizeDropCtes(pdId) : ''
  }${roundAndJournalCtes(v)}${answerSelect(v)}`;
  // One name per variant: each connection parses and plans each variant once (the jackpot and
  // prize-drop variants' planning cost almost as much as their execution), then only binds. The
  // text is fixed per variant: every value is a parameter.
  const name = `spin-round-${v.creditCte ? 'c' : ''}${jpId ? 'j' : ''}${jpLevels ? 'h' : ''}${pdId ? 'd' : ''}`;
  return { name, text, values: params, journalRows: v.creditCte ? 2 : 1 };
}

/**
 * Why the round was not written, as the player is told: revoked (401) or its operator suspended
 * (403) by the time the round would be written; too soon after the latest spin (GB); too many
 * wagers refused lately (429); an unfinished round (409); the session's bets blocked by the
 * operator's wallet (409 with the code); a reality check due; else a racing spin won (409).
 */
function refusalOf(row: SpinRow, intent: RoundIntent, refusals: SpinRefusalLimit): Error {
  if (row.session_status !== 'active') return sessionRevokedError();
  if (row.operator_status !== 'active') return operatorSuspendedError();
  // Jurisdiction rules: too soon after the latest spin's start (GB), even while that round is
  // still settling, so the answer says how long to wait.
  if (row.retry_after_ms !== null && row.retry_after_ms > 0) return spinTooSoonError(row.retry_after_ms);
  // Too many wagers refused lately (a loop of spins the wallet refuses): wait, then spin again.
  if (!intent.freeRound && row.refused_retry_after_ms !== null && row.refused_retry_after_ms > 0)
    return wagersRefusedError(row.refused_retry_after_ms, refusals);
  // One unfinished round at a time per session: the previous one must settle first.
  if (row.open_round_id) return conflict(`Round ${row.open_round_id} is still being settled`);
  // Player protection: a session whose debit the operator refused with a blocking code takes no
  // bets until relaunch.
  const blocked = presentBetsBlocked(row);
  if (blocked) return betsBlockedError(blocked);
  // Jurisdiction rules: a reality check waits for the player (sessions/jurisdiction-rules.ts).
  if (row.reality_check_due) return realityCheckDueError(row.reality_check_due_at);
  return conflict('Another round of this session is still being settled');
}

/**
 * The spin's one statement (one round trip, autocommit): under a share lock of the session row, the
 * round with its intent and the debit's pending journal row (journal ahead: the workflow's first
 * debit attempt sends these bytes at once) and, for a paid spin, the credit's (credit ahead: the
 * first attempt sends it on the debit's success and records both outcomes at once), unless the
 * session was revoked (401) or its operator suspended (403), the session has an unfinished round
 * (409; two racing spins meet at the unique index rounds_one_open_spin) or its bets are blocked by
 * the operator's wallet (409 with the code). The share lock waits for a refusal or a revocation
 * being recorded (which update the session row) and then reads the new row; the operator row's
 * key-share lock (the one the rounds foreign key takes anyway) waits for a deactivation (the PATCH
 * locks the row FOR UPDATE) and then reads its new status (sessions/takes-bets.ts).
 */
export async function recordSpinRound(
  db: GameDeps['pool'] | PoolClient,
  session: RuntimeSession,
  intent: RoundIntent,
  outcome: unknown,
  refusals: SpinRefusalLimit,
  jackpot?: SpinJackpotPlay,
  prizeDrop?: { dropId: string },
): Promise<'recorded' | 'jackpot_stale'> {
  const { journalRows, ...statement } = spinStatement(session, intent, outcome, refusals, jackpot, prizeDrop);
  let rows: SpinRow[];
  try {
    ({ rows } = await db.query<SpinRow>(statement));
  } catch (err) {
    // Two spins of one session racing past the open-round check meet at the unique index.
    if ((err as { code?: string; constraint?: string }).code === '23505')
      throw conflict('Another round of this session is still being settled');
    throw err;
  }
  const row = rows[0];
  if (!row) throw unauthorized('Missing or invalid session token');
  if (row.inserted === 1 && row.journalled === journalRows) {
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
  throw refusalOf(row, intent, refusals);
}
