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

/** The rounds of the window (parameters: $1 operator, $2 from or null, $3 to, $4 currency or null). */
const WINDOW = `operator_id = $1 AND ($2::timestamptz IS NULL OR created_at >= $2) AND created_at < $3
          AND ($4::text IS NULL OR currency = $4)`;

/**
 * One statement, one snapshot. The window's rounds and the operator's journal rows go through one
 * hash aggregate per round id (UNION ALL, no join: joining 1M journal rows to 500k rounds and then
 * aggregating cost twice as much); per round it keeps the round's own columns (from its one round
 * row; a group without one is a journal row of a round outside the window, dropped), the journal
 * rows' lowest and highest currency, their wallet effect, count and pending count. When every journal
 * row is in the round's currency (the normal case) the wallet delta is that sum; when none is, the
 * round counts nothing and every row is foreign; only a round with rows in several currencies
 * (a listed difference anyway) is summed again row by row through wallet_transactions_round. A
 * reversal's debit is looked up only for a cancel or rollback row (never for debits and credits).
 * The per-currency totals and the rounds that differ are both read from the per-round result.
 * Without `from` the window is all history so far and every journal row of the operator is read;
 * with `from` (typically a short window) only the rows of the window's rounds are (a semi-join the
 * planner can answer from the round-id index).
 * A journal row in another currency than its round is never counted into the round's currency:
 * it makes the round (and its currency) a difference to look at.
 */
function reconcileSql(windowed: boolean): string {
  const wallet = (t: string) => `CASE WHEN ${t}.status <> 'success' THEN 0
                    WHEN ${t}.transaction_type = 'debit' THEN -${t}.amount_minor
                    WHEN ${t}.transaction_type = 'credit' THEN ${t}.amount_minor
                    -- A reversal gives back what its debit took: nothing when that debit is not
                    -- journalled successful (never applied, or uncertain and netted out).
                    ELSE (SELECT CASE WHEN o.status = 'success' THEN ${t}.amount_minor ELSE 0 END
                          FROM wallet_transactions o WHERE o.transaction_id = ${t}.original_transaction_id) END`;
  return `
  WITH per_round AS MATERIALIZED (
    SELECT g.round_id, trim(g.currency) AS currency, g.status, g.game_delta,
           CASE WHEN g.transactions = 0 THEN 0
                WHEN g.cur_min = g.currency AND g.cur_max = g.currency THEN coalesce(g.wallet, 0)
                WHEN g.cur_min = g.cur_max THEN 0
                ELSE (SELECT coalesce(sum(CASE WHEN m.currency <> g.currency THEN 0 ELSE ${wallet('m')} END), 0)
                      FROM wallet_transactions m
                      WHERE m.round_id = g.round_id AND m.operator_id = $1 AND m.transaction_type <> 'balance')
           END::bigint AS wallet_delta,
           g.pending::int AS pending, g.transactions::int AS transactions,
           CASE WHEN g.transactions = 0 OR (g.cur_min = g.currency AND g.cur_max = g.currency) THEN 0
                WHEN g.cur_min = g.cur_max THEN g.transactions
                ELSE (SELECT count(*) FROM wallet_transactions m
                      WHERE m.round_id = g.round_id AND m.operator_id = $1 AND m.transaction_type <> 'balance'
                        AND m.currency <> g.currency)
           END::int AS foreign_rows
    FROM (
      SELECT u.round_id, max(u.round_currency) AS currency, max(u.round_status) AS status,
             max(u.game_delta) AS game_delta, min(u.tx_currency) AS cur_min, max(u.tx_currency) AS cur_max,
             sum(u.wallet) AS wallet, count(u.tx) AS transactions, count(u.pending) AS pending
      FROM (
        SELECT round_id, currency AS round_currency, status AS round_status,
               CASE WHEN status IN ('rejected', 'cancelled', 'rolled_back') THEN 0
                    ELSE win_minor - bet_minor END AS game_delta,
               NULL::bpchar AS tx_currency, NULL::bigint AS wallet, NULL::int AS tx, NULL::int AS pending
        FROM rounds
        WHERE ${WINDOW}
        UNION ALL
        SELECT t.round_id, NULL, NULL, NULL, t.currency, ${wallet('t')},
               1, CASE WHEN t.status = 'pending' THEN 1 END
        FROM wallet_transactions t
        WHERE t.operator_id = $1 AND t.transaction_type <> 'balance'${
          windowed
            ? `
          AND t.round_id IN (SELECT round_id FROM rounds WHERE ${WINDOW})`
            : ''
        }
      ) u
      GROUP BY u.round_id
    ) g
    WHERE g.game_delta IS NOT NULL
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
}
const RECONCILE_ALL = reconcileSql(false);
const RECONCILE_WINDOW = reconcileSql(true);

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
    return (
      await c.query<ReconcileRow>(q.from == null ? RECONCILE_ALL : RECONCILE_WINDOW, [
        operatorId,
        q.from ?? null,
        to,
        q.currency ?? null,
      ])
    ).rows;
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
