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
 * Read from the rollup (migration 1700000000041_report_rollup): per (operator, day, title,
 * currency) sums kept by the database in the same transaction as every journal and round change
 * that moves one (the deferred round_reconciliation recount keeps each round's figures and moves
 * its day's sums by their change), so a month's report reads a few rows per day, title and
 * currency instead of every round's journal. `players` of a (day, title, currency) is kept with
 * the sums; over several days, titles or currencies it is counted distinct from
 * report_daily_players. reportDrift (recount.ts) recounts every figure from the journal.
 *
 * A round belongs to the day (in the operator's reporting time zone) it was created on, like the
 * reconciliation's window, so a round is in one bucket even when its credit comes after midnight;
 * a promotional payout (tournaments, prize drops) to the day it was awarded, under its payout's
 * title and currency. A change of zone rebuilds the operator's rollup in the same transaction.
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

/**
 * The figures of every group in the period, from the rollup's days (each operator's days are in
 * its own reporting time zone). $1 operator (or null), $2 from, $3 to (dates, inclusive),
 * $4 currency, $5 title, $6 by day, $7 by title. A group is reported when a round in it counts or
 * money moved in it.
 */
export const FIGURES_SQL = `
WITH ops AS (
  SELECT operator_id FROM operators WHERE ($1::text IS NULL OR operator_id = $1)
),
sums AS (
  SELECT d.operator_id, CASE WHEN $6::boolean THEN d.day END AS day, CASE WHEN $7::boolean THEN d.symbol END AS symbol,
         d.currency,
         sum(d.rounds) AS rounds, sum(d.players) AS players, sum(d.stakes_minor) AS stakes,
         sum(d.cancelled_stakes_minor) AS cancelled, sum(d.rolled_back_stakes_minor) AS rolled_back,
         sum(d.wins_minor) AS wins, sum(d.free_round_wins_minor) AS free_wins,
         sum(d.jackpot_contribution_micros) AS jc, sum(d.jackpot_wins_minor) AS jackpot,
         sum(d.tournament_payouts_minor) AS tournament, sum(d.prize_drop_payouts_minor) AS prize_drop,
         sum(d.ggy_gb_minor) AS ggy_gb, sum(d.ggy_non_gb_minor) AS ggy_non_gb
    FROM ops JOIN report_daily d ON d.operator_id = ops.operator_id AND d.day >= $2::date AND d.day <= $3::date
   WHERE ($4::text IS NULL OR d.currency = $4) AND ($5::text IS NULL OR d.symbol = $5)
   GROUP BY 1, 2, 3, 4
  HAVING sum(d.rounds) > 0
      OR sum(d.stakes_minor) + sum(d.wins_minor) + sum(d.free_round_wins_minor) + sum(d.jackpot_wins_minor)
         + sum(d.tournament_payouts_minor) + sum(d.prize_drop_payouts_minor) > 0
),
players AS (
  SELECT p.operator_id, CASE WHEN $6::boolean THEN p.day END AS day, CASE WHEN $7::boolean THEN p.symbol END AS symbol,
         p.currency, count(DISTINCT p.player_id) AS n
    FROM ops JOIN report_daily_players p
      ON p.operator_id = ops.operator_id AND p.day >= $2::date AND p.day <= $3::date
   WHERE NOT ($6::boolean AND $7::boolean)
     AND ($4::text IS NULL OR p.currency = $4) AND ($5::text IS NULL OR p.symbol = $5)
   GROUP BY 1, 2, 3, 4
)
SELECT s.operator_id, to_char(s.day, 'YYYY-MM-DD') AS day, s.symbol AS game_symbol, trim(s.currency) AS currency,
       s.rounds::int AS rounds,
       (CASE WHEN $6::boolean AND $7::boolean THEN s.players ELSE coalesce(p.n, 0) END)::int AS players,
       s.stakes::bigint AS stakes_minor,
       s.cancelled::bigint AS cancelled_stakes_minor,
       s.rolled_back::bigint AS rolled_back_stakes_minor,
       s.wins::bigint AS wins_minor,
       s.free_wins::bigint AS free_round_wins_minor,
       s.jc::text AS jackpot_contribution_micros,
       s.jackpot::bigint AS jackpot_wins_minor,
       s.tournament::bigint AS tournament_payouts_minor,
       s.prize_drop::bigint AS prize_drop_payouts_minor,
       s.ggy_gb::bigint AS ggy_gb_minor,
       s.ggy_non_gb::bigint AS ggy_non_gb_minor
  FROM sums s
  LEFT JOIN players p ON p.operator_id = s.operator_id AND p.day IS NOT DISTINCT FROM s.day
   AND p.symbol IS NOT DISTINCT FROM s.symbol AND p.currency = s.currency
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
