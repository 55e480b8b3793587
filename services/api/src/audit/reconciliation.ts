import {
  RECONCILIATION_CSV_HEADER,
  RECONCILIATION_ITEMS_MAX,
  type Reconciliation,
  type ReconciliationCurrency,
  type ReconciliationJackpots,
  type ReconciliationPromoPayouts,
  type ReconciliationQuery,
} from '@opi/contract';
import { type Pool, withTransaction } from '@opi/db';
import { hitShownSql, payoutShownSql, wagerStandsSql } from '@opi/play/settlement/wager-stands';

/*
 * Reconciliation of one operator over the rounds created in [from, to): per currency, the wallet
 * delta (the effects of journalled successful debits, credits, cancels and rollbacks of those
 * rounds, joined by round id and currency) against the game-history delta (each round's win minus
 * its bet; zero for a rejected, cancelled or rolled-back round, whose wager never stood). A
 * successful cancel or rollback counts as giving back what its original debit took: the debit's
 * amount when that debit is journalled successful, else nothing (so an uncertain debit and its
 * rollback net to zero whether or not the wallet had applied the debit). Integer
 * minor units, no conversion. Balanced only when every difference is zero and no financial
 * transaction is pending. Rounds that differ, or have a pending transaction, are listed.
 */

/** The rounds of the window (parameters: $1 operator, $2 from or null, $3 to, $4 currency or null). */
const WINDOW = `operator_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2) AND created_at < $3
          AND ($4::text IS NULL OR currency = $4)`;

/**
 * One statement, one snapshot. Both sides of each round's reconciliation are kept in one narrow
 * row of round_reconciliation by the database, in the same transaction as every write to the round
 * or its journal (migration 1700000000011_round_reconciliation); `journalDrift` below recounts
 * them from rounds and the journal. The totals are one aggregate over the window's rows; the
 * rounds to list come in round-id order from the partial index of rows that differ, so listing
 * reads only those.
 *
 * No last look (issue 34): a round's jackpot win is written with the round, before its debit, and
 * its stored game side counts it at once. Until the round's wager stands that win is taken out
 * again here: from a listed round's game side, and from the totals (the `unstood` rows: the
 * contributing rounds of the window, by the partial index rounds_jackpot, whose hit waits for its
 * debit). Such a round is open with a pending debit, so it is listed and its currency unbalanced
 * either way; once its debit stands the stored figures are shown unchanged.
 */
const UNSTOOD_JACKPOT_WIN = (alias: string) =>
  `CASE WHEN ${alias}.jackpot_win_minor > 0 AND ${alias}.status NOT IN ('rejected', 'cancelled', 'rolled_back')
             AND NOT ${wagerStandsSql(alias)} THEN ${alias}.jackpot_win_minor ELSE 0 END`;

const RECONCILE = `
  SELECT 'total' AS kind, trim(currency) AS currency, NULL AS round_id, NULL AS status, count(*)::int AS rounds,
         sum(journal_rows)::int AS transactions, sum(wallet_delta_minor)::bigint AS wallet_delta,
         sum(game_delta_minor)::bigint AS game_delta, sum(pending_rows)::int AS pending,
         sum(foreign_rows)::int AS foreign_rows, NULL::text[] AS transaction_ids
  FROM round_reconciliation
  WHERE ${WINDOW}
  GROUP BY currency
  UNION ALL
  SELECT 'item', trim(d.currency), d.round_id, r.status, 1, d.journal_rows, d.wallet_delta_minor,
         d.game_delta_minor - ${UNSTOOD_JACKPOT_WIN('r')}, d.pending_rows, d.foreign_rows,
         ARRAY(SELECT t.transaction_id FROM wallet_transactions t
               WHERE t.round_id = d.round_id AND t.operator_id = $1 AND t.transaction_type <> 'balance'
               ORDER BY t.created_at, t.transaction_id)
  FROM (SELECT * FROM round_reconciliation
        WHERE differs AND ${WINDOW}
        ORDER BY operator_id, round_id LIMIT ${RECONCILIATION_ITEMS_MAX + 1}) d
  JOIN rounds r ON r.round_id = d.round_id
  UNION ALL
  SELECT 'free', trim(f.currency), NULL, NULL, count(*)::int, 0, sum(f.wallet_delta_minor)::bigint,
         sum(f.game_delta_minor)::bigint, 0, 0, NULL
  FROM (SELECT * FROM round_reconciliation WHERE ${WINDOW}) f
  WHERE EXISTS (SELECT 1 FROM rounds r WHERE r.round_id = f.round_id AND r.free_round_campaign_id IS NOT NULL)
  GROUP BY f.currency
  UNION ALL
  SELECT 'unstood', trim(u.currency), NULL, NULL, 0, 0, 0, sum(${UNSTOOD_JACKPOT_WIN('u')})::bigint, 0, 0, NULL
  FROM (SELECT * FROM rounds WHERE jackpot_id IS NOT NULL AND jackpot_win_minor > 0 AND ${WINDOW}) u
  GROUP BY u.currency`;

/**
 * Jackpots and promotional payouts of the same window (same parameters), apart from the rounds:
 * - the contributions of the window's contributing rounds whose wager stood (the partial index
 *   rounds_jackpot: a range of the operator's contributing rounds, never the journal);
 * - the hits of the window's rounds by status (jackpot_hits_operator_created; a hit is written by
 *   the statement that writes its round, so it has its round's created_at);
 * - the promotional payouts created in the window (promo_payouts_operator_created) against the
 *   journal rows of each payout id (wallet_transactions_round: one index lookup per payout): the
 *   successful credits in the payout's currency, the pending rows, the rows in another currency.
 * Each part is one row per currency; amounts are text so that no total is rounded on the way.
 * A pending hit or a prize-drop award whose round's wager does not stand yet is not counted (issue
 * 34, no last look: the window can be one round's instant); that round is pending in the rounds part.
 */
const EXTRAS = `
  WITH c AS (
    SELECT currency, count(*)::int AS rounds, coalesce(sum(jackpot_contribution_micros::numeric), 0) AS micros
    FROM rounds
    WHERE jackpot_id IS NOT NULL AND ${WINDOW} AND status NOT IN ('rejected', 'cancelled', 'rolled_back')
    GROUP BY currency
  ), h AS (
    SELECT currency,
           count(*) FILTER (WHERE status = 'paid')::int AS hits_paid,
           coalesce(sum(amount_minor) FILTER (WHERE status = 'paid'), 0)::bigint AS win_paid,
           count(*) FILTER (WHERE status = 'pending')::int AS hits_pending,
           coalesce(sum(amount_minor) FILTER (WHERE status = 'pending'), 0)::bigint AS win_pending,
           count(*) FILTER (WHERE status = 'forfeited')::int AS hits_forfeited,
           coalesce(sum(amount_minor) FILTER (WHERE status = 'forfeited'), 0)::bigint AS win_forfeited
    FROM jackpot_hits
    WHERE ${WINDOW} AND ${hitShownSql('jackpot_hits')}
    GROUP BY currency
  ), pp AS (
    SELECT p.currency, count(*)::int AS payouts, sum(p.amount_minor)::bigint AS ledger,
           coalesce(sum(j.credited), 0)::bigint AS wallet,
           count(*) FILTER (WHERE p.status = 'pending')::int AS pending_payouts,
           coalesce(sum(p.amount_minor) FILTER (WHERE p.status = 'pending'), 0)::bigint AS pending_minor,
           coalesce(sum(j.pending), 0)::int AS pending_rows, coalesce(sum(j.foreign_n), 0)::int AS foreign_rows
    FROM (SELECT * FROM promo_payouts WHERE ${WINDOW} AND ${payoutShownSql('promo_payouts')}) p
    CROSS JOIN LATERAL (
      SELECT sum(t.amount_minor) FILTER (WHERE t.status = 'success' AND t.transaction_type = 'credit'
                                           AND t.currency = p.currency) AS credited,
             count(*) FILTER (WHERE t.status = 'pending') AS pending,
             count(*) FILTER (WHERE t.currency <> p.currency) AS foreign_n
      FROM (SELECT * FROM wallet_transactions WHERE round_id = p.payout_id OFFSET 0) t
      WHERE t.operator_id = p.operator_id AND t.transaction_type <> 'balance'
    ) j
    GROUP BY p.currency
  )
  SELECT 'jackpot' AS kind, trim(coalesce(c.currency, h.currency)) AS currency,
         coalesce(c.rounds, 0) AS rounds, coalesce(c.micros, 0)::text AS micros,
         coalesce(h.hits_paid, 0) AS hits_paid, coalesce(h.win_paid, 0)::text AS win_paid,
         coalesce(h.hits_pending, 0) AS hits_pending, coalesce(h.win_pending, 0)::text AS win_pending,
         coalesce(h.hits_forfeited, 0) AS hits_forfeited, coalesce(h.win_forfeited, 0)::text AS win_forfeited,
         NULL::int AS payouts, NULL::text AS ledger, NULL::text AS wallet, NULL::int AS pending_payouts,
         NULL::text AS pending_minor, NULL::int AS pending_rows, NULL::int AS foreign_rows
  FROM c FULL JOIN h ON h.currency = c.currency
  UNION ALL
  SELECT 'promo', trim(currency), NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         payouts, ledger::text, wallet::text, pending_payouts, pending_minor::text, pending_rows, foreign_rows
  FROM pp`;

interface ExtrasRow {
  kind: 'jackpot' | 'promo';
  currency: string;
  rounds: number | null;
  micros: string | null;
  hits_paid: number | null;
  win_paid: string | null;
  hits_pending: number | null;
  win_pending: string | null;
  hits_forfeited: number | null;
  win_forfeited: string | null;
  payouts: number | null;
  ledger: string | null;
  wallet: string | null;
  pending_payouts: number | null;
  pending_minor: string | null;
  pending_rows: number | null;
  foreign_rows: number | null;
}

interface ReconcileRow {
  kind: 'total' | 'item' | 'free' | 'unstood';
  currency: string;
  round_id: string | null;
  status: Reconciliation['items'][number]['round_status'];
  rounds: number;
  transactions: number;
  wallet_delta: bigint;
  game_delta: bigint;
  pending: number;
  foreign_rows: number;
  transaction_ids: string[] | null;
}

export async function reconcile(
  pool: Pool,
  operatorId: string,
  q: ReconciliationQuery,
  now = new Date(),
): Promise<Reconciliation> {
  const to = q.to ?? now.toISOString();
  const params = [operatorId, q.from ?? null, to, q.currency ?? null];
  // Rounds, jackpots and promotional payouts from one snapshot: two statements in one read-only
  // repeatable-read transaction.
  const { rows, extras } = await withTransaction(
    pool,
    async (client) => ({
      rows: (await client.query<ReconcileRow>(RECONCILE, params)).rows,
      extras: (await client.query<ExtrasRow>(EXTRAS, params)).rows,
    }),
    { snapshot: true },
  );
  // Jackpot wins of rounds whose wager does not stand yet, per currency: not shown (issue 34).
  const unstood = new Map(rows.filter((u) => u.kind === 'unstood').map((u) => [u.currency, u.game_delta]));
  const currencies: ReconciliationCurrency[] = rows
    .filter((t) => t.kind === 'total')
    .sort((a, b) => (a.currency < b.currency ? -1 : 1))
    .map((t) => {
      const game = t.game_delta - (unstood.get(t.currency) ?? 0n);
      return {
        currency: t.currency,
        rounds: t.rounds,
        transactions: t.transactions,
        wallet_delta_minor: t.wallet_delta,
        game_delta_minor: game,
        difference_minor: t.wallet_delta - game,
        pending_transactions: t.pending,
        balanced: t.wallet_delta === game && t.pending === 0 && t.foreign_rows === 0,
      };
    });
  const items = rows.filter((i) => i.kind === 'item').sort((a, b) => (a.round_id! < b.round_id! ? -1 : 1));
  const byCurrency = (a: { currency: string }, b: { currency: string }) => (a.currency < b.currency ? -1 : 1);
  const jackpots: ReconciliationJackpots[] = extras
    .filter((x) => x.kind === 'jackpot')
    .sort(byCurrency)
    .map((x) => ({
      currency: x.currency,
      contributing_rounds: x.rounds ?? 0,
      contribution_micros: x.micros ?? '0',
      hits_paid: x.hits_paid ?? 0,
      win_paid_minor: BigInt(x.win_paid ?? '0'),
      hits_pending: x.hits_pending ?? 0,
      win_pending_minor: BigInt(x.win_pending ?? '0'),
      hits_forfeited: x.hits_forfeited ?? 0,
      win_forfeited_minor: BigInt(x.win_forfeited ?? '0'),
    }));
  const promos: ReconciliationPromoPayouts[] = extras
    .filter((x) => x.kind === 'promo')
    .sort(byCurrency)
    .map((x) => {
      const ledger = BigInt(x.ledger ?? '0');
      const wallet = BigInt(x.wallet ?? '0');
      const pendingPayouts = x.pending_payouts ?? 0;
      const pendingRows = x.pending_rows ?? 0;
      return {
        currency: x.currency,
        payouts: x.payouts ?? 0,
        ledger_minor: ledger,
        wallet_credit_minor: wallet,
        difference_minor: wallet - ledger,
        pending_payouts: pendingPayouts,
        pending_minor: BigInt(x.pending_minor ?? '0'),
        pending_transactions: pendingRows,
        balanced:
          wallet === ledger && pendingPayouts === 0 && pendingRows === 0 && (x.foreign_rows ?? 0) === 0,
      };
    });
  const roundsBalanced = currencies.every((x) => x.balanced);
  const promosBalanced = promos.every((x) => x.balanced);
  return {
    operator_id: operatorId,
    from: q.from ?? null,
    to,
    balanced: roundsBalanced && promosBalanced,
    currencies,
    items: items.slice(0, RECONCILIATION_ITEMS_MAX).map((i) => ({
      round_id: i.round_id!,
      currency: i.currency,
      round_status: i.status,
      wallet_delta_minor: i.wallet_delta,
      game_delta_minor: i.game_delta,
      difference_minor: i.wallet_delta - i.game_delta,
      pending_transactions: i.pending,
      transaction_ids: i.transaction_ids ?? [],
    })),
    items_truncated: items.length > RECONCILIATION_ITEMS_MAX,
    free_rounds: rows
      .filter((f) => f.kind === 'free')
      .sort((a, b) => (a.currency < b.currency ? -1 : 1))
      .map((f) => ({
        currency: f.currency,
        rounds: f.rounds,
        free_round_win_minor: f.game_delta,
        free_round_credit_minor: f.wallet_delta,
      })),
    rounds_balanced: roundsBalanced,
    jackpots,
    promo_payouts: promos,
    promo_payouts_balanced: promosBalanced,
  };
}

/** RFC 4180: fields with a comma, quote, CR or LF are quoted, quotes doubled; CRLF line ends. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * One row per currency of the rounds, the jackpots or the promotional payouts (a currency with
 * payouts but no round has zero round totals, balanced as to its rounds). `balanced` is the
 * currency's rounds, as in `currencies`; `promo_balanced` its payouts (true without any).
 */
export function reconciliationCsv(r: Reconciliation): string {
  const lines = [RECONCILIATION_CSV_HEADER.join(',')];
  const jackpots = new Map(r.jackpots.map((j) => [j.currency, j]));
  const promos = new Map(r.promo_payouts.map((p) => [p.currency, p]));
  const rounds = new Map(r.currencies.map((c) => [c.currency, c]));
  const all = [...new Set([...rounds.keys(), ...jackpots.keys(), ...promos.keys()])].sort();
  for (const currency of all) {
    const c = rounds.get(currency);
    const j = jackpots.get(currency);
    const p = promos.get(currency);
    lines.push(
      [
        currency,
        String(c?.rounds ?? 0),
        String(c?.transactions ?? 0),
        (c?.wallet_delta_minor ?? 0).toString(),
        (c?.game_delta_minor ?? 0).toString(),
        (c?.difference_minor ?? 0).toString(),
        String(c?.pending_transactions ?? 0),
        String(c?.balanced ?? true),
        j?.contribution_micros ?? '0',
        (j?.win_paid_minor ?? 0).toString(),
        (j?.win_pending_minor ?? 0).toString(),
        (j?.win_forfeited_minor ?? 0).toString(),
        String(p?.payouts ?? 0),
        (p?.ledger_minor ?? 0).toString(),
        (p?.wallet_credit_minor ?? 0).toString(),
        (p?.difference_minor ?? 0).toString(),
        String(p?.pending_payouts ?? 0),
        String(p?.balanced ?? true),
      ]
        .map(csvField)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A round whose reconciliation row disagrees with a recount from the round and its journal. */
export interface RoundTotalsDrift {
  round_id: string;
  stored: RoundTotals | null;
  recount: RoundTotals;
}
interface RoundTotals {
  game_delta_minor: bigint;
  wallet_delta_minor: bigint;
  journal_rows: number;
  pending_rows: number;
  foreign_rows: number;
}

/**
 * The check on round_reconciliation: every round's history side recounted from the round, and its
 * wallet effect, journal rows, pending rows and foreign rows recounted from the journal itself
 * (the definitions at the top of this file, written out again here rather than shared with the
 * migration's functions), compared with the row reconciliation reads; a round without a row is a
 * drift too. Set-based, one hash aggregate over the journal; an empty answer means
 * reconciliation's figures are exactly what a recount from the journal gives. Used by the tests,
 * the reliability run and the audit benchmark (as the direct path). `operatorId` null checks
 * every operator.
 */
export async function journalDrift(
  pool: Pool,
  operatorId: string | null,
  limit = 100,
): Promise<RoundTotalsDrift[]> {
  const { rows } = await pool.query<{
    round_id: string;
    stored: boolean;
    s_game: bigint | null;
    s_wallet: bigint | null;
    s_rows: number | null;
    s_pending: number | null;
    s_foreign: number | null;
    j_game: bigint;
    j_wallet: bigint;
    j_rows: number;
    j_pending: number;
    j_foreign: number;
  }>(
    `SELECT r.round_id, rr.round_id IS NOT NULL AS stored,
            rr.game_delta_minor AS s_game, rr.wallet_delta_minor AS s_wallet, rr.journal_rows AS s_rows,
            rr.pending_rows AS s_pending, rr.foreign_rows AS s_foreign,
            CASE WHEN r.status IN ('rejected', 'cancelled', 'rolled_back') THEN 0
                 ELSE r.win_minor + r.jackpot_win_minor - r.bet_minor END::bigint AS j_game,
            coalesce(j.wallet, 0)::bigint AS j_wallet, coalesce(j.n, 0)::int AS j_rows,
            coalesce(j.pending, 0)::int AS j_pending, coalesce(j.foreign_n, 0)::int AS j_foreign
     FROM rounds r
     LEFT JOIN round_reconciliation rr ON rr.round_id = r.round_id
     LEFT JOIN (
       SELECT t.round_id,
              sum(CASE WHEN t.currency <> k.currency OR t.status <> 'success' THEN 0
                       WHEN t.transaction_type = 'debit' THEN -t.amount_minor
                       WHEN t.transaction_type = 'credit' THEN t.amount_minor
                       WHEN (SELECT o.status FROM wallet_transactions o
                             WHERE o.transaction_id = t.original_transaction_id) = 'success' THEN t.amount_minor
                       ELSE 0 END) AS wallet,
              count(*) AS n,
              count(*) FILTER (WHERE t.status = 'pending') AS pending,
              count(*) FILTER (WHERE t.currency <> k.currency) AS foreign_n
       FROM wallet_transactions t
       JOIN rounds k ON k.round_id = t.round_id AND k.operator_id = t.operator_id
       WHERE t.transaction_type <> 'balance' AND ($1::text IS NULL OR t.operator_id = $1)
       GROUP BY t.round_id
     ) j ON j.round_id = r.round_id
     WHERE ($1::text IS NULL OR r.operator_id = $1)
       AND (rr.round_id IS NULL
            OR (rr.operator_id, rr.created_at, rr.currency) IS DISTINCT FROM (r.operator_id, r.created_at, r.currency)
            OR (rr.game_delta_minor, rr.wallet_delta_minor, rr.journal_rows, rr.pending_rows, rr.foreign_rows)
               IS DISTINCT FROM (CASE WHEN r.status IN ('rejected', 'cancelled', 'rolled_back') THEN 0
                                      ELSE r.win_minor + r.jackpot_win_minor - r.bet_minor END::bigint,
                                 coalesce(j.wallet, 0)::bigint, coalesce(j.n, 0)::int, coalesce(j.pending, 0)::int,
                                 coalesce(j.foreign_n, 0)::int))
     ORDER BY r.round_id
     LIMIT $2`,
    [operatorId, limit],
  );
  return rows.map((r) => ({
    round_id: r.round_id,
    stored: r.stored
      ? {
          game_delta_minor: r.s_game!,
          wallet_delta_minor: r.s_wallet!,
          journal_rows: r.s_rows!,
          pending_rows: r.s_pending!,
          foreign_rows: r.s_foreign!,
        }
      : null,
    recount: {
      game_delta_minor: r.j_game,
      wallet_delta_minor: r.j_wallet,
      journal_rows: r.j_rows,
      pending_rows: r.j_pending,
      foreign_rows: r.j_foreign,
    },
  }));
}
