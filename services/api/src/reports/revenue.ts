import {
  CONTRACT_VERSION,
  REPORT_DEFINITION_VERSION,
  REVENUE_REPORT_CSV_HEADER,
  type ReportGroup,
  type RevenueReport,
  type RevenueReportRow,
} from '@opi/contract';
import type { Pool, PoolClient } from 'pg';
import { csvField } from '../audit/reconciliation.js';

/*
 * The daily figures and GGR/GGY (issue 38 points 1 and 2; docs/reports-and-invoices.md).
 *
 * Computed from the rounds and the journal on every read, in one statement (one snapshot): a
 * figure is exactly what the journal holds when it is read, so there is nothing to keep current
 * and nothing that can fall behind a fault. Per round (a range of rounds_operator_created, each
 * round's journal by wallet_transactions_round), then summed per group. Promotional payouts
 * (tournaments, prize drops) are not rounds: their `promo_win` credits count by the payout's day,
 * title and currency.
 *
 * A round belongs to the day (in the operator's reporting time zone) it was created on, like the
 * reconciliation's window, so a round is in one bucket even when its credit comes after midnight.
 */

export interface RevenueParams {
  /** One operator, or null: every operator (each in its own reporting time zone). */
  operatorId: string | null;
  from: string;
  to: string;
  groupBy: ReportGroup;
  currency?: string | undefined;
  gameSymbol?: string | undefined;
}

interface FigureRow {
  operator_id: string;
  day: string | null;
  game_symbol: string | null;
  currency: string;
  rounds: number;
  players: number;
  stakes_minor: bigint;
  cancelled_stakes_minor: bigint;
  rolled_back_stakes_minor: bigint;
  wins_minor: bigint;
  free_round_wins_minor: bigint;
  jackpot_contribution_micros: string;
  jackpot_wins_minor: bigint;
  tournament_payouts_minor: bigint;
  prize_drop_payouts_minor: bigint;
  ggy_gb_minor: bigint;
  ggy_non_gb_minor: bigint;
}

const GB = `coalesce(s.jurisdiction = 'GB' OR s.jurisdiction LIKE 'GB-%', false)`;

/**
 * The figures of every round (and promotional payout) in the period, one row per group.
 * $1 operator (or null), $2 from, $3 to (dates, inclusive), $4 currency, $5 title, $6 by day,
 * $7 by title.
 */
export const FIGURES_SQL = `
WITH ops AS (
  SELECT operator_id, reporting_time_zone AS tz,
         ($2::date::timestamp AT TIME ZONE reporting_time_zone) AS t0,
         (($3::date + 1)::timestamp AT TIME ZONE reporting_time_zone) AS t1
    FROM operators WHERE ($1::text IS NULL OR operator_id = $1)
),
per_round AS (
  SELECT o.operator_id, (r.created_at AT TIME ZONE o.tz)::date AS day, r.symbol, r.currency, r.player_id,
         r.free_round_campaign_id IS NOT NULL AS free, r.status, ${GB} AS gb,
         coalesce(r.jackpot_contribution_micros, 0) AS jc, j.debit, j.credit, j.jackpot_credit, j.cancelled, j.rolled_back
    FROM ops o
    JOIN rounds r ON r.operator_id = o.operator_id AND r.created_at >= o.t0 AND r.created_at < o.t1
    JOIN sessions s ON s.session_id = r.session_id
    CROSS JOIN LATERAL (
      SELECT coalesce(sum(t.amount_minor) FILTER (WHERE t.transaction_type = 'debit'), 0)::bigint AS debit,
             coalesce(sum(t.amount_minor) FILTER (WHERE t.transaction_type = 'credit'
                        AND NOT starts_with(t.transaction_id, r.round_id || ':jackpot:')), 0)::bigint AS credit,
             coalesce(sum(t.amount_minor) FILTER (WHERE t.transaction_type = 'credit'
                        AND starts_with(t.transaction_id, r.round_id || ':jackpot:')), 0)::bigint AS jackpot_credit,
             coalesce(sum(t.amount_minor) FILTER (WHERE t.transaction_type = 'cancel' AND d.status = 'success'), 0)::bigint AS cancelled,
             coalesce(sum(t.amount_minor) FILTER (WHERE t.transaction_type = 'rollback' AND d.status = 'success'), 0)::bigint AS rolled_back
        FROM wallet_transactions t
        LEFT JOIN wallet_transactions d ON d.transaction_id = t.original_transaction_id
       WHERE t.round_id = r.round_id AND t.operator_id = r.operator_id
         AND t.status = 'success' AND t.currency = r.currency AND t.transaction_type <> 'balance'
    ) j
   WHERE ($4::text IS NULL OR r.currency = $4) AND ($5::text IS NULL OR r.symbol = $5)
),
figures AS (
  SELECT operator_id, day, symbol, currency, player_id, gb,
         CASE WHEN free THEN status = 'completed' ELSE debit > 0 AND cancelled + rolled_back = 0 END AS counted,
         debit, cancelled, rolled_back,
         CASE WHEN free THEN 0 ELSE credit END AS wins,
         CASE WHEN free THEN credit ELSE 0 END AS free_wins,
         CASE WHEN NOT free AND debit > 0 AND cancelled + rolled_back = 0 THEN jc ELSE 0 END AS jc,
         jackpot_credit, 0::bigint AS tournament, 0::bigint AS prize_drop
    FROM per_round
  UNION ALL
  SELECT o.operator_id, (p.created_at AT TIME ZONE o.tz)::date, p.game_symbol, p.currency, NULL, ${GB}, false,
         0, 0, 0, 0, 0, 0, 0,
         CASE WHEN p.promo_type = 'tournament' THEN t.amount_minor ELSE 0 END,
         CASE WHEN p.promo_type = 'prize_drop' THEN t.amount_minor ELSE 0 END
    FROM ops o
    JOIN promo_payouts p ON p.operator_id = o.operator_id AND p.created_at >= o.t0 AND p.created_at < o.t1
    JOIN wallet_transactions t ON t.round_id = p.payout_id AND t.operator_id = p.operator_id
     AND t.transaction_type = 'credit' AND t.status = 'success' AND t.currency = p.currency
    LEFT JOIN sessions s ON s.session_id = p.session_id
   WHERE ($4::text IS NULL OR p.currency = $4) AND ($5::text IS NULL OR p.game_symbol = $5)
)
SELECT operator_id,
       CASE WHEN $6::boolean THEN to_char(day, 'YYYY-MM-DD') END AS day,
       CASE WHEN $7::boolean THEN symbol END AS game_symbol,
       trim(currency) AS currency,
       count(*) FILTER (WHERE counted)::int AS rounds,
       count(DISTINCT player_id) FILTER (WHERE counted)::int AS players,
       sum(debit)::bigint AS stakes_minor,
       sum(cancelled)::bigint AS cancelled_stakes_minor,
       sum(rolled_back)::bigint AS rolled_back_stakes_minor,
       sum(wins)::bigint AS wins_minor,
       sum(free_wins)::bigint AS free_round_wins_minor,
       sum(jc)::text AS jackpot_contribution_micros,
       sum(jackpot_credit)::bigint AS jackpot_wins_minor,
       sum(tournament)::bigint AS tournament_payouts_minor,
       sum(prize_drop)::bigint AS prize_drop_payouts_minor,
       coalesce(sum(debit - cancelled - rolled_back - wins - free_wins - jackpot_credit - tournament - prize_drop)
                FILTER (WHERE gb), 0)::bigint AS ggy_gb_minor,
       coalesce(sum(debit - cancelled - rolled_back - wins - free_wins - jackpot_credit - tournament - prize_drop)
                FILTER (WHERE NOT gb), 0)::bigint AS ggy_non_gb_minor
  FROM figures
 GROUP BY 1, 2, 3, 4
HAVING bool_or(counted) OR sum(debit + wins + free_wins + jackpot_credit + tournament + prize_drop) > 0
 ORDER BY 1, 2, 3, 4`;

/** Adds the derived figures (net stakes, GGR, GGY) to a group's sums. */
export function presentFigures(r: FigureRow): RevenueReportRow {
  const net = r.stakes_minor - r.cancelled_stakes_minor - r.rolled_back_stakes_minor;
  return {
    operator_id: r.operator_id,
    day: r.day,
    game_symbol: r.game_symbol,
    currency: r.currency,
    no_activity: false,
    rounds: r.rounds,
    players: r.players,
    stakes_minor: r.stakes_minor,
    cancelled_stakes_minor: r.cancelled_stakes_minor,
    rolled_back_stakes_minor: r.rolled_back_stakes_minor,
    net_stakes_minor: net,
    wins_minor: r.wins_minor,
    free_round_wins_minor: r.free_round_wins_minor,
    jackpot_contribution_micros: r.jackpot_contribution_micros,
    jackpot_wins_minor: r.jackpot_wins_minor,
    tournament_payouts_minor: r.tournament_payouts_minor,
    prize_drop_payouts_minor: r.prize_drop_payouts_minor,
    ggr_minor: net - r.wins_minor - r.jackpot_wins_minor,
    ggy_minor: r.ggy_gb_minor + r.ggy_non_gb_minor,
    ggy_gb_minor: r.ggy_gb_minor,
    ggy_non_gb_minor: r.ggy_non_gb_minor,
  };
}

const noActivity = (operatorId: string, day: string): RevenueReportRow => ({
  operator_id: operatorId,
  day,
  game_symbol: null,
  currency: null,
  no_activity: true,
  rounds: 0,
  players: 0,
  stakes_minor: 0n,
  cancelled_stakes_minor: 0n,
  rolled_back_stakes_minor: 0n,
  net_stakes_minor: 0n,
  wins_minor: 0n,
  free_round_wins_minor: 0n,
  jackpot_contribution_micros: '0',
  jackpot_wins_minor: 0n,
  tournament_payouts_minor: 0n,
  prize_drop_payouts_minor: 0n,
  ggr_minor: 0n,
  ggy_minor: 0n,
  ggy_gb_minor: 0n,
  ggy_non_gb_minor: 0n,
});

/** Every day from `from` to `to`, inclusive (YYYY-MM-DD). */
export function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** The figures of each group, as one statement computes them (no no-activity rows). */
export async function revenueFigures(pool: Pool | PoolClient, p: RevenueParams): Promise<RevenueReportRow[]> {
  const byDay = p.groupBy === 'day_title_currency' || p.groupBy === 'day';
  const byTitle = p.groupBy === 'day_title_currency' || p.groupBy === 'title';
  const { rows } = await pool.query<FigureRow>(FIGURES_SQL, [
    p.operatorId,
    p.from,
    p.to,
    p.currency ?? null,
    p.gameSymbol ?? null,
    byDay,
    byTitle,
  ]);
  return rows.map(presentFigures);
}

/**
 * A report: its rows, and when grouped by day a no-activity row for every day of every operator
 * read that had none (Pennsylvania's "No Activity": an empty period still produces a report).
 */
export async function revenueReport(pool: Pool, p: RevenueParams): Promise<RevenueReport> {
  const generatedAt = new Date().toISOString();
  const ops = await pool.query<{ operator_id: string; tz: string }>(
    `SELECT operator_id, reporting_time_zone AS tz FROM operators
      WHERE ($1::text IS NULL OR operator_id = $1) ORDER BY operator_id`,
    [p.operatorId],
  );
  const rows = await revenueFigures(pool, p);
  // A group exists only with a round whose wager stood or money moved (a refused round is none).
  const noActivityAtAll = rows.length === 0;
  let out = rows;
  if (p.groupBy === 'day_title_currency' || p.groupBy === 'day') {
    const active = new Set(rows.map((r) => `${r.operator_id}|${r.day}`));
    const filled: RevenueReportRow[] = [...rows];
    for (const op of ops.rows)
      for (const day of daysOf(p.from, p.to))
        if (!active.has(`${op.operator_id}|${day}`)) filled.push(noActivity(op.operator_id, day));
    out = filled.sort(
      (a, b) =>
        cmp(a.operator_id, b.operator_id) ||
        cmp(a.day ?? '', b.day ?? '') ||
        cmp(a.game_symbol ?? '', b.game_symbol ?? '') ||
        cmp(a.currency ?? '', b.currency ?? ''),
    );
  }
  return {
    report: 'revenue',
    definition_version: REPORT_DEFINITION_VERSION,
    software_version: CONTRACT_VERSION,
    operator_id: p.operatorId,
    time_zone: p.operatorId === null ? null : (ops.rows[0]?.tz ?? 'UTC'),
    filters: {
      from: p.from,
      to: p.to,
      group_by: p.groupBy,
      currency: p.currency ?? null,
      game_symbol: p.gameSymbol ?? null,
      operator_id: p.operatorId,
    },
    generated_at: generatedAt,
    no_activity: noActivityAtAll,
    rows: out,
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The report as CSV: a header row, one row per report row, CRLF, RFC 4180 quoting. */
export function revenueCsv(r: RevenueReport): string {
  const lines = [REVENUE_REPORT_CSV_HEADER.join(',')];
  for (const row of r.rows)
    lines.push(
      REVENUE_REPORT_CSV_HEADER.map((k) => {
        const v = row[k];
        return csvField(v === null ? '' : String(v));
      }).join(','),
    );
  return `${lines.join('\r\n')}\r\n`;
}
