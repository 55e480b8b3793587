import {
  RECONCILIATION_CSV_HEADER,
  RECONCILIATION_ITEMS_MAX,
  type Reconciliation,
  type ReconciliationCurrency,
  type ReconciliationQuery,
} from '@opi/contract';
import type { Pool } from '@opi/db';

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
 */
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
         d.game_delta_minor, d.pending_rows, d.foreign_rows,
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
  GROUP BY f.currency`;

interface ReconcileRow {
  kind: 'total' | 'item' | 'free';
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
  const { rows } = await pool.query<ReconcileRow>(RECONCILE, [
    operatorId,
    q.from ?? null,
    to,
    q.currency ?? null,
  ]);
  const currencies: ReconciliationCurrency[] = rows
    .filter((t) => t.kind === 'total')
    .sort((a, b) => (a.currency < b.currency ? -1 : 1))
    .map((t) => ({
      currency: t.currency,
      rounds: t.rounds,
      transactions: t.transactions,
      wallet_delta_minor: t.wallet_delta,
      game_delta_minor: t.game_delta,
      difference_minor: t.wallet_delta - t.game_delta,
      pending_transactions: t.pending,
      balanced: t.wallet_delta === t.game_delta && t.pending === 0 && t.foreign_rows === 0,
    }));
  const items = rows.filter((i) => i.kind === 'item').sort((a, b) => (a.round_id! < b.round_id! ? -1 : 1));
  return {
    operator_id: operatorId,
    from: q.from ?? null,
    to,
    balanced: currencies.every((x) => x.balanced),
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
  };
}

/** RFC 4180: fields with a comma, quote, CR or LF are quoted, quotes doubled; CRLF line ends. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function reconciliationCsv(r: Reconciliation): string {
  const lines = [RECONCILIATION_CSV_HEADER.join(',')];
  for (const c of r.currencies) {
    lines.push(
      [
        c.currency,
        String(c.rounds),
        String(c.transactions),
        c.wallet_delta_minor.toString(),
        c.game_delta_minor.toString(),
        c.difference_minor.toString(),
        String(c.pending_transactions),
        String(c.balanced),
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
