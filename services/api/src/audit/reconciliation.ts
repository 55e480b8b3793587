import {
  RECONCILIATION_CSV_HEADER,
  RECONCILIATION_ITEMS_MAX,
  type Reconciliation,
  type ReconciliationCurrency,
  type ReconciliationQuery,
} from '@opi/contract';
import { type Pool, withTransaction } from '@opi/db';

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

/** Memory for one reconciliation's aggregate (per statement; released at commit). */
const RECONCILIATION_WORK_MEM = '128MB';

/**
 * One statement, one snapshot: the window's rounds joined to their journal rows and aggregated
 * per round once; the per-currency totals and the rounds that differ are both read from that.
 * A journal row in another currency than its round is never counted into the round's currency:
 * it makes the round (and its currency) a difference to look at.
 */
const RECONCILE = `
  WITH r AS (
    SELECT round_id, trim(currency) AS currency, status,
           CASE WHEN status IN ('rejected', 'cancelled', 'rolled_back') THEN 0
                ELSE win_minor - bet_minor END AS game_delta
    FROM rounds
    WHERE operator_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2) AND created_at < $3
      AND ($4::text IS NULL OR currency = $4)
  ), per_round AS MATERIALIZED (
    SELECT r.round_id, r.currency, r.status, r.game_delta,
           coalesce(sum(CASE WHEN t.status IS DISTINCT FROM 'success' OR trim(t.currency) <> r.currency THEN 0
                             WHEN t.transaction_type = 'debit' THEN -t.amount_minor
                             WHEN t.transaction_type = 'credit' THEN t.amount_minor
                             -- A reversal gives back what its debit took: nothing when that debit is
                             -- not journalled successful (never applied, or uncertain and netted out).
                             ELSE (SELECT CASE WHEN o.status = 'success' THEN t.amount_minor ELSE 0 END
                                   FROM wallet_transactions o WHERE o.transaction_id = t.original_transaction_id)
                        END), 0)::bigint AS wallet_delta,
           count(t.transaction_id) FILTER (WHERE t.status = 'pending')::int AS pending,
           count(t.transaction_id)::int AS transactions,
           count(t.transaction_id) FILTER (WHERE trim(t.currency) <> r.currency)::int AS foreign_rows
    FROM r
    LEFT JOIN wallet_transactions t
      ON t.round_id = r.round_id AND t.operator_id = $1 AND t.transaction_type <> 'balance'
    GROUP BY r.round_id, r.currency, r.status, r.game_delta
  )
  SELECT 'total' AS kind, currency, NULL AS round_id, NULL AS status, count(*)::int AS rounds,
         sum(transactions)::int AS transactions, sum(wallet_delta)::bigint AS wallet_delta,
         sum(game_delta)::bigint AS game_delta, sum(pending)::int AS pending,
         sum(foreign_rows)::int AS foreign_rows, NULL::text[] AS transaction_ids
  FROM per_round GROUP BY currency
  UNION ALL
  SELECT 'item', d.currency, d.round_id, d.status, 1, d.transactions, d.wallet_delta, d.game_delta,
         d.pending, d.foreign_rows,
         ARRAY(SELECT t.transaction_id FROM wallet_transactions t
               WHERE t.round_id = d.round_id AND t.operator_id = $1 AND t.transaction_type <> 'balance'
               ORDER BY t.created_at, t.transaction_id)
  FROM (SELECT * FROM per_round
        WHERE wallet_delta <> game_delta OR pending > 0 OR foreign_rows > 0
        ORDER BY round_id LIMIT ${RECONCILIATION_ITEMS_MAX + 1}) d`;

interface ReconcileRow {
  kind: 'total' | 'item';
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
  const rows = await withTransaction(pool, async (c) => {
    await c.query(`SET LOCAL work_mem = '${RECONCILIATION_WORK_MEM}'`);
    return (await c.query<ReconcileRow>(RECONCILE, [operatorId, q.from ?? null, to, q.currency ?? null]))
      .rows;
  });
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
