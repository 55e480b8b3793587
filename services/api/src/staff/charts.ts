import type {
  Reconciliation,
  StaffCharts,
  StaffDailyTotals,
  StaffDayDifference,
  StaffTitleRtp,
} from '@opi/contract';
import type { Pool } from '@opi/db';

/** Days shown when the request names no window. */
export const DEFAULT_CHART_DAYS = 30;

export function chartWindow(q: { from?: string | undefined; to?: string | undefined }, now = new Date()) {
  const to = q.to ?? now.toISOString();
  const from = q.from ?? new Date(new Date(to).getTime() - DEFAULT_CHART_DAYS * 86_400_000).toISOString();
  return { from, to };
}

/**
 * Bet and win per UTC day and currency, and per title and currency with the title's stored RTP,
 * over the rounds created in [from, to) whose wager stood (rejected, cancelled and rolled-back
 * rounds count nothing, as in reconciliation). One statement, one scan of the window's rounds.
 */
export async function playCharts(
  pool: Pool,
  operatorId: string,
  window: { from: string; to: string },
): Promise<StaffCharts> {
  // Aggregated once per (day, currency, title) with a hash (a few hundred groups), then rolled
  // up per day and per title: cheaper than GROUPING SETS, which sorts every row. The UTC day is
  // date_bin over the instant (integer arithmetic on the stored UTC microseconds), the same day
  // as (created_at AT TIME ZONE 'UTC')::date without a time zone conversion per round; the title
  // and stored RTP are joined to the title rows (no second round trip).
  const { rows } = await pool.query<{
    day: string | null;
    currency: string;
    symbol: string | null;
    rounds: number;
    bet_minor: bigint;
    win_minor: bigint;
    title: string | null;
    rtp: string | null;
  }>(
    `WITH g AS MATERIALIZED (
       SELECT date_bin('1 day', created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS d, currency, symbol,
              count(*)::int AS n, sum(bet_minor) AS bet, sum(win_minor) AS win
       FROM rounds
       WHERE operator_id = $1 AND created_at >= $2 AND created_at < $3
         AND status NOT IN ('rejected', 'cancelled', 'rolled_back')
       GROUP BY 1, 2, 3)
     SELECT (d AT TIME ZONE 'UTC')::date::text AS day, trim(currency) AS currency, NULL AS symbol,
            sum(n)::int AS rounds, sum(bet)::bigint AS bet_minor, sum(win)::bigint AS win_minor,
            NULL AS title, NULL AS rtp
     FROM g GROUP BY d, currency
     UNION ALL
     SELECT NULL, trim(t.currency), t.symbol, t.n, t.bet, t.win, games.title, games.rtp
     FROM (SELECT currency, symbol, sum(n)::int AS n, sum(bet)::bigint AS bet, sum(win)::bigint AS win
           FROM g GROUP BY symbol, currency) t
     LEFT JOIN games ON games.symbol = t.symbol`,
    [operatorId, window.from, window.to],
  );
  const daily: StaffDailyTotals[] = rows
    .filter((r) => r.day)
    .map((r) => ({
      day: r.day!,
      currency: r.currency,
      rounds: r.rounds,
      bet_minor: r.bet_minor,
      win_minor: r.win_minor,
    }))
    .sort((a, b) => (a.day === b.day ? a.currency.localeCompare(b.currency) : a.day < b.day ? -1 : 1));
  const titles: StaffTitleRtp[] = rows
    .filter((r) => r.symbol)
    .map((r) => ({
      symbol: r.symbol!,
      title: r.title ?? r.symbol!,
      currency: r.currency,
      rounds: r.rounds,
      bet_minor: r.bet_minor,
      win_minor: r.win_minor,
      stored_rtp: r.rtp ?? null,
    }))
    .sort((a, b) => a.title.localeCompare(b.title) || a.currency.localeCompare(b.currency));
  return { ...window, daily, titles };
}

/**
 * Reconciliation differences over time: the rounds the reconciliation lists (those whose wallet
 * effect differs from their history, or with a pending transaction) bucketed by the UTC day they
 * were created, per currency. Exact while the listing is complete (`items_truncated` false).
 */
export async function differencesByDay(pool: Pool, r: Reconciliation): Promise<StaffDayDifference[]> {
  if (r.items.length === 0) return [];
  const { rows } = await pool.query<{ round_id: string; day: Date }>(
    `SELECT round_id, date_trunc('day', created_at, 'UTC') AS day FROM rounds
     WHERE operator_id = $1 AND round_id = ANY($2)`,
    [r.operator_id, r.items.map((i) => i.round_id)],
  );
  const dayOf = new Map(rows.map((x) => [x.round_id, x.day.toISOString().slice(0, 10)]));
  const buckets = new Map<
    string,
    { day: string; currency: string; rounds: number; difference_minor: bigint; pending: number }
  >();
  for (const i of r.items) {
    const day = dayOf.get(i.round_id);
    if (!day) continue;
    const key = `${day}|${i.currency}`;
    const b = buckets.get(key) ?? { day, currency: i.currency, rounds: 0, difference_minor: 0n, pending: 0 };
    b.rounds++;
    b.difference_minor += BigInt(i.difference_minor);
    b.pending += i.pending_transactions;
    buckets.set(key, b);
  }
  return [...buckets.values()].sort((a, b) =>
    a.day === b.day ? a.currency.localeCompare(b.currency) : a.day < b.day ? -1 : 1,
  );
}
