import type {
  JackpotContributionQuery,
  JackpotWinQuery,
  OperatorJackpotContribution,
  OperatorJackpotWin,
  OperatorPromoPayout,
  PromoPayoutQuery,
} from '@opi/contract';
import type { Pool } from '@opi/db';
import { hitShownSql, payoutShownSql, wagerStandsSql } from '@opi/play/settlement/wager-stands';
import { notFound } from '@opi/service-kit/http/named-errors';
import { pick } from '@opi/service-kit/http/present';
import { page, roundsPageSql, Where } from './repository.js';

/*
 * The operator's jackpot and promotional money (issue 25, docs/jackpots-and-promotions.md): the
 * rounds that fed a jackpot, the hits, and the promotional payouts. Each read names the operator
 * first and walks an index of (operator, created_at) newest first, keyset-paged like the other
 * audit searches: rounds_jackpot (a partial index of the contributing rounds), jackpot_hits_operator_created
 * and promo_payouts_operator_created (migration 1700000000023_promo_audit).
 *
 * No last look (issue 34, @opi/play/settlement/wager-stands): a jackpot hit and a prize-drop award
 * are written with their round, before its debit. Until the round's wager stands, the hit and the
 * award are not listed (nor a payout read by id: 404 as an unknown one) and a contribution's
 * `jackpot_win_minor` is 0. A hit whose wager was refused is listed once it is `forfeited`.
 */

interface ContributionRow {
  round_id: string;
  jackpot_id: string;
  session_id: string;
  player_id: string;
  game_symbol: string;
  currency: string;
  stake_minor: bigint;
  contribution_micros: string;
  jackpot_win_minor: bigint;
  round_status: OperatorJackpotContribution['round_status'];
  created_at: Date;
  wager_stands: boolean;
  micros: bigint;
}

export async function searchJackpotContributions(
  pool: Pool,
  operatorId: string,
  q: JackpotContributionQuery,
) {
  const w = new Where(operatorId);
  // The partial index's predicate, written out so the planner takes rounds_jackpot.
  w.also('jackpot_id IS NOT NULL');
  w.equal({ jackpot_id: q.jackpot_id, session_id: q.session_id });
  w.externalPlayer(q.player_id);
  w.equal({ currency: q.currency, status: q.status });
  w.period(q.from, q.to);
  const columns = `r.round_id, r.jackpot_id, r.session_id, p.external_player_id AS player_id, r.symbol AS game_symbol,
            trim(r.currency) AS currency, r.bet_minor AS stake_minor,
            coalesce(r.jackpot_contribution_micros, 0)::text AS contribution_micros, r.jackpot_win_minor,
            r.status AS round_status, r.created_at, ${wagerStandsSql('r')} AS wager_stands,
            (extract(epoch FROM r.created_at) * 1000000)::bigint AS micros`;
  const { rows } = await pool.query<ContributionRow>(roundsPageSql(columns, w, q.cursor, q.limit), w.params);
  return page(
    rows,
    q.limit,
    'round_id',
    (r): OperatorJackpotContribution => ({
      round_id: r.round_id,
      jackpot_id: r.jackpot_id,
      session_id: r.session_id,
      player_id: r.player_id,
      game_symbol: r.game_symbol,
      currency: r.currency,
      stake_minor: r.stake_minor,
      contribution_micros: r.contribution_micros,
      jackpot_win_minor: r.wager_stands ? r.jackpot_win_minor : 0n,
      round_status: r.round_status,
      created_at: r.created_at.toISOString(),
    }),
  );
}

interface WinRow {
  round_id: string;
  jackpot_id: string;
  level: string;
  currency: string;
  player_id: string;
  amount_minor: bigint;
  status: OperatorJackpotWin['status'];
  transaction_id: string;
  created_at: Date;
  settled_at: Date | null;
  micros: bigint;
}

/** The jackpot_win credit's id (@opi/wallet/intent: `<round>:jackpot:<level>`). */
const HIT_TRANSACTION_ID = `(round_id || ':jackpot:' || level)`;

export async function searchJackpotWins(pool: Pool, operatorId: string, q: JackpotWinQuery) {
  const w = new Where(operatorId);
  w.equal({
    jackpot_id: q.jackpot_id,
    level: q.level,
    round_id: q.round_id,
    external_player_id: q.player_id,
  });
  w.add(
    (p) => `round_id IN (SELECT round_id FROM rounds WHERE operator_id = $1 AND session_id = ${p})`,
    q.session_id,
  );
  w.equal({ currency: q.currency, status: q.status });
  w.period(q.from, q.to);
  // A pending hit only once its round's debit is applied (a hit is always of a paid round).
  w.also(hitShownSql('jackpot_hits'));
  // The cursor's id is the hit's credit id (round and level): unique, and ordered with it.
  const order = w.newestFirst(q.cursor, HIT_TRANSACTION_ID, q.limit);
  const { rows } = await pool.query<WinRow>(
    `SELECT round_id, jackpot_id, level, trim(currency) AS currency, external_player_id AS player_id, amount_minor,
            status, ${HIT_TRANSACTION_ID} AS transaction_id, created_at, settled_at,
            (extract(epoch FROM created_at) * 1000000)::bigint AS micros
     FROM jackpot_hits
     WHERE ${w.sql}
     ${order}`,
    w.params,
  );
  return page(
    rows,
    q.limit,
    'transaction_id',
    (r): OperatorJackpotWin => ({
      round_id: r.round_id,
      jackpot_id: r.jackpot_id,
      level: r.level,
      currency: r.currency,
      player_id: r.player_id,
      amount_minor: r.amount_minor,
      status: r.status,
      transaction_id: r.transaction_id,
      created_at: r.created_at.toISOString(),
      settled_at: r.settled_at?.toISOString() ?? null,
    }),
  );
}

interface PayoutRow {
  payout_id: string;
  promo_type: OperatorPromoPayout['promo_type'];
  promo_id: string;
  rank: number | null;
  operator_id: string;
  player_id: string;
  currency: string;
  amount_minor: bigint;
  status: OperatorPromoPayout['status'];
  transaction_id: string;
  transaction_status: OperatorPromoPayout['transaction_status'];
  created_at: Date;
  paid_at: Date | null;
  micros: bigint;
}

/**
 * The payout's columns and its credit's journal status (the credit's id is `<payout_id>:credit`,
 * workflows/src/promotions: one primary-key lookup per payout).
 */
const PAYOUT_COLUMNS = `x.payout_id, x.promo_type, x.promo_id, x.rank, x.operator_id, x.external_player_id AS player_id,
  trim(x.currency) AS currency, x.amount_minor, x.status, x.payout_id || ':credit' AS transaction_id,
  (SELECT t.status FROM wallet_transactions t
    WHERE t.transaction_id = x.payout_id || ':credit' AND t.operator_id = x.operator_id) AS transaction_status,
  x.created_at, x.paid_at, (extract(epoch FROM x.created_at) * 1000000)::bigint AS micros`;

function presentPayout(r: PayoutRow): OperatorPromoPayout {
  return {
    ...pick(r, [
      'payout_id',
      'promo_type',
      'promo_id',
      'rank',
      'operator_id',
      'player_id',
      'currency',
      'amount_minor',
      'status',
      'transaction_id',
      'transaction_status',
    ]),
    created_at: r.created_at.toISOString(),
    paid_at: r.paid_at?.toISOString() ?? null,
  };
}

export async function searchPromoPayouts(pool: Pool, operatorId: string, q: PromoPayoutQuery) {
  const w = new Where(operatorId);
  w.equal({
    promo_type: q.promo_type,
    promo_id: q.promo_id,
    external_player_id: q.player_id,
    session_id: q.session_id,
    currency: q.currency,
    status: q.status,
  });
  w.period(q.from, q.to);
  // A prize-drop award only once its round's wager stands.
  w.also(payoutShownSql('promo_payouts'));
  const order = w.newestFirst(q.cursor, 'payout_id', q.limit);
  const { rows } = await pool.query<PayoutRow>(
    `SELECT ${PAYOUT_COLUMNS}
     FROM (SELECT * FROM promo_payouts WHERE ${w.sql} ${order}) x
     ORDER BY x.created_at DESC, x.payout_id DESC`,
    w.params,
  );
  return page(rows, q.limit, 'payout_id', presentPayout);
}

/**
 * One of the operator's payouts. Another operator's is 404, like an unknown one (as every read by
 * id): a payout names one player's prize, so a 403 would tell that another operator's player won
 * that promotion. Payout ids are random since issue 34 (older ones were a hash of operator, player
 * and currency that anyone could compute).
 */
export async function getPromoPayout(pool: Pool, operatorId: string, payoutId: string) {
  const { rows } = await pool.query<PayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM promo_payouts x
      WHERE x.payout_id = $1 AND x.operator_id = $2 AND ${payoutShownSql('x')}`,
    [payoutId, operatorId],
  );
  if (!rows[0]) throw notFound();
  return presentPayout(rows[0]);
}
