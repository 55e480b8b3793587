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

/** One pass over the window's rounds and their journal rows, kept for the two reads after it. */
const PER_ROUND = `
  CREATE TEMP TABLE recon_rounds ON COMMIT DROP AS
  WITH r AS (
    SELECT round_id, trim(currency) AS currency, status,
           CASE WHEN status IN ('rejected', 'cancelled', 'rolled_back') THEN 0
                ELSE win_minor - bet_minor END AS game_delta
    FROM rounds
    WHERE operator_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2) AND created_at < $3
      AND ($4::text IS NULL OR currency = $4)
  ), w AS (
    SELECT t.round_id, trim(t.currency) AS currency,
           sum(CASE WHEN t.status <> 'success' THEN 0
                    WHEN t.transaction_type = 'debit' THEN -t.amount_minor
                    WHEN t.transaction_type = 'credit' THEN t.amount_minor
                    -- A reversal gives back what its debit took: nothing when that debit is not
                    -- journalled successful (never applied, or uncertain and netted out by it).
                    ELSE (SELECT CASE WHEN o.status = 'success' THEN t.amount_minor ELSE 0 END
                          FROM wallet_transactions o WHERE o.transaction_id = t.original_transaction_id)
               END) AS wallet_delta,
           count(*) FILTER (WHERE t.status = 'pending') AS pending,
           count(*) AS transactions
    FROM r JOIN wallet_transactions t ON t.round_id = r.round_id
    WHERE t.operator_id = $1 AND t.transaction_type <> 'balance'
    GROUP BY t.round_id, t.currency
  )
  SELECT coalesce(r.round_id, w.round_id) AS round_id,
         coalesce(r.currency, w.currency) AS currency,
         r.status,
         coalesce(r.game_delta, 0)::bigint AS game_delta,
         coalesce(w.wallet_delta, 0)::bigint AS wallet_delta,
         coalesce(w.pending, 0)::int AS pending,
         coalesce(w.transactions, 0)::int AS transactions,
         (r.round_id IS NOT NULL) AS has_round
  FROM r FULL OUTER JOIN w ON w.round_id = r.round_id AND w.currency = r.currency`;

export async function reconcile(
  pool: Pool,
  operatorId: string,
  q: ReconciliationQuery,
  now = new Date(),
): Promise<Reconciliation> {
  const to = q.to ?? now.toISOString();
  return withTransaction(pool, async (c) => {
    // One consistent snapshot for the totals and the listed rounds.
    await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await c.query(PER_ROUND, [operatorId, q.from ?? null, to, q.currency ?? null]);
    const totals = await c.query<{
      currency: string;
      rounds: number;
      transactions: number;
      wallet_delta: bigint;
      game_delta: bigint;
      pending: number;
    }>(
      `SELECT currency, count(*) FILTER (WHERE has_round)::int AS rounds, sum(transactions)::int AS transactions,
              sum(wallet_delta)::bigint AS wallet_delta, sum(game_delta)::bigint AS game_delta,
              sum(pending)::int AS pending
       FROM recon_rounds GROUP BY currency ORDER BY currency`,
    );
    const items = await c.query<{
      round_id: string;
      currency: string;
      status: Reconciliation['items'][number]['round_status'];
      wallet_delta: bigint;
      game_delta: bigint;
      pending: number;
      transaction_ids: string[];
    }>(
      `SELECT p.round_id, p.currency, p.status, p.wallet_delta, p.game_delta, p.pending,
              ARRAY(SELECT t.transaction_id FROM wallet_transactions t
                    WHERE t.round_id = p.round_id AND t.operator_id = $1 AND t.transaction_type <> 'balance'
                    ORDER BY t.created_at, t.transaction_id) AS transaction_ids
       FROM (SELECT * FROM recon_rounds
             WHERE wallet_delta <> game_delta OR pending > 0 OR NOT has_round
             ORDER BY round_id LIMIT ${RECONCILIATION_ITEMS_MAX + 1}) p
       ORDER BY p.round_id`,
      [operatorId],
    );
    const currencies: ReconciliationCurrency[] = totals.rows.map((t) => ({
      currency: t.currency,
      rounds: t.rounds,
      transactions: t.transactions,
      wallet_delta_minor: t.wallet_delta,
      game_delta_minor: t.game_delta,
      difference_minor: t.wallet_delta - t.game_delta,
      pending_transactions: t.pending,
      balanced: t.wallet_delta === t.game_delta && t.pending === 0,
    }));
    return {
      operator_id: operatorId,
      from: q.from ?? null,
      to,
      balanced: currencies.every((x) => x.balanced),
      currencies,
      items: items.rows.slice(0, RECONCILIATION_ITEMS_MAX).map((i) => ({
        round_id: i.round_id,
        currency: i.currency,
        round_status: i.status,
        wallet_delta_minor: i.wallet_delta,
        game_delta_minor: i.game_delta,
        difference_minor: i.wallet_delta - i.game_delta,
        pending_transactions: i.pending,
        transaction_ids: i.transaction_ids,
      })),
      items_truncated: items.rows.length > RECONCILIATION_ITEMS_MAX,
    };
  });
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
