import { z } from 'zod';
import { CalendarDate } from './exchange-rates.js';
import { CurrencyCode, MinorAmount, successEnvelope } from './primitives.js';

/*
 * Reports (issue 38 points 1 and 2; docs/reports-and-invoices.md): the daily figures per operator ×
 * title × currency × day, and GGR and GGY from them. Computed from the journal and the rounds in
 * one snapshot on every read (nothing to fall behind); amounts are integer minor units (JSON
 * integers, int64 exactly), jackpot contributions millionths of a minor unit as decimal strings.
 * No currency is ever converted: every row is one currency.
 */

/** The version of the report definition (what each figure counts); bumped on any change of meaning. */
export const REPORT_DEFINITION_VERSION = 'opi-revenue/1';
/** Longest period one report covers, in days (a year, leap or not). */
export const REPORT_MAX_DAYS = 366;

/** How the rows of a report are grouped; currency is always apart (no conversion). */
export const REPORT_GROUPS = ['day_title_currency', 'day', 'title', 'currency'] as const;
export const ReportGroup = z.enum(REPORT_GROUPS);
export type ReportGroup = z.infer<typeof ReportGroup>;

const GameSymbolFilter = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/, '1 to 64 letters, digits or _.:- (a game symbol)');

const reportQueryFields = {
  /** First day of the period (a calendar date in the operator's reporting time zone), inclusive. */
  from: CalendarDate,
  /** Last day of the period, inclusive: at most 366 days after `from`'s day count (`to` ≥ `from`). */
  to: CalendarDate,
  /** Rows grouped by `day_title_currency` (the default: the daily figures), `day` (day × currency), `title` (title × currency) or `currency`. */
  group_by: ReportGroup.default('day_title_currency'),
  /** Only this currency. */
  currency: CurrencyCode.optional(),
  /** Only this title (a game symbol). */
  game_symbol: GameSymbolFilter.optional(),
};

function periodChecks<T extends { from: string; to: string }>(q: T, ctx: z.RefinementCtx) {
  if (q.to < q.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'on or after from' });
  else if ((Date.parse(q.to) - Date.parse(q.from)) / 86_400_000 >= REPORT_MAX_DAYS)
    ctx.addIssue({ code: 'custom', path: ['to'], message: `at most ${REPORT_MAX_DAYS} days from from` });
}

/** `GET /api/operator/v1/reports/revenue` (and `.csv`) query. */
export const RevenueReportQuery = z.strictObject(reportQueryFields).superRefine(periodChecks);
export type RevenueReportQuery = z.infer<typeof RevenueReportQuery>;

const OperatorIdFilter = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{1,63}$/, 'an operator id: 2 to 64 of a-z, 0-9, _ and -');

/** `GET /api/admin/v1/reports/revenue` (and `.csv`) query: across operators, or one. */
export const AdminRevenueReportQuery = z
  .strictObject({
    ...reportQueryFields,
    /** Only this operator (default: every operator, each in its own reporting time zone). */
    operator_id: OperatorIdFilter.optional(),
  })
  .superRefine(periodChecks);
export type AdminRevenueReportQuery = z.infer<typeof AdminRevenueReportQuery>;

/** One row of a report: the figures of one group, one currency. */
export const RevenueReportRow = z.object({
  operator_id: z.string(),
  /** The day (`YYYY-MM-DD` in the operator's reporting time zone); null when not grouped by day. */
  day: z.string().nullable(),
  /** The title; null when not grouped by title, or on a no-activity row. */
  game_symbol: z.string().nullable(),
  /** The currency; null only on a no-activity row. */
  currency: z.string().nullable(),
  /** True on the row of a day that had no activity at all (every figure zero). */
  no_activity: z.boolean(),
  /** Rounds whose wager stood (debit applied and not cancelled or rolled back), and completed free rounds. */
  rounds: z.number().int(),
  /** Distinct players of those rounds. */
  players: z.number().int(),
  /** Successful debits (stakes as taken). */
  stakes_minor: MinorAmount,
  /** Of those, given back by a successful cancel. */
  cancelled_stakes_minor: MinorAmount,
  /** Of those, given back by a successful rollback. */
  rolled_back_stakes_minor: MinorAmount,
  /** Stakes that stood: stakes − cancelled − rolled back. */
  net_stakes_minor: MinorAmount,
  /** Successful round credits of paid rounds (jackpot credits apart). */
  wins_minor: MinorAmount,
  /** Successful credits of free-round campaigns' rounds (the provider's cost; not in `wins_minor`). */
  free_round_wins_minor: MinorAmount,
  /** Jackpot contributions of the rounds whose wager stood, millionths of a minor unit (decimal string). */
  jackpot_contribution_micros: z.string(),
  /** Successful `jackpot_win` credits. */
  jackpot_wins_minor: MinorAmount,
  /** Successful `promo_win` credits of tournament payouts created on the day (by the payout's title). */
  tournament_payouts_minor: MinorAmount,
  /** Successful `promo_win` credits of prize-drop awards. */
  prize_drop_payouts_minor: MinorAmount,
  /** GGR (the revenue share's basis): net stakes − wins − jackpot wins. */
  ggr_minor: MinorAmount,
  /** GGY (UKGC): net stakes − every prize (wins, free-round wins, jackpot wins, tournament and prize-drop payouts). */
  ggy_minor: MinorAmount,
  /** The GGY of sessions launched under a GB jurisdiction (`GB` or `GB-…`). */
  ggy_gb_minor: MinorAmount,
  /** The GGY of every other session. */
  ggy_non_gb_minor: MinorAmount,
});
export type RevenueReportRow = z.infer<typeof RevenueReportRow>;

/** A report: its definition's version, what it was asked for, and its rows. */
export const RevenueReport = z.object({
  report: z.literal('revenue'),
  /** The report definition's version (docs/reports-and-invoices.md): what every figure counts. */
  definition_version: z.string(),
  /** The platform's contract version that produced it. */
  software_version: z.string(),
  /** The operator, or null for an admin report across operators. */
  operator_id: z.string().nullable(),
  /** The reporting time zone of the operator (`UTC` unless configured); null across operators (each its own). */
  time_zone: z.string().nullable(),
  /** The filters applied, as read. */
  filters: z.object({
    from: z.string(),
    to: z.string(),
    group_by: ReportGroup,
    currency: z.string().nullable(),
    game_symbol: z.string().nullable(),
    operator_id: z.string().nullable(),
  }),
  /** When the report was read (every figure is as of that instant). */
  generated_at: z.string(),
  /** True when nothing happened in the whole period. */
  no_activity: z.boolean(),
  rows: z.array(RevenueReportRow),
});
export type RevenueReport = z.infer<typeof RevenueReport>;
export const RevenueReportResponse = successEnvelope(RevenueReport);
export type RevenueReportResponse = z.infer<typeof RevenueReportResponse>;

/** The CSV's columns, in order (a header row first). */
export const REVENUE_REPORT_CSV_HEADER = [
  'operator_id',
  'day',
  'game_symbol',
  'currency',
  'no_activity',
  'rounds',
  'players',
  'stakes_minor',
  'cancelled_stakes_minor',
  'rolled_back_stakes_minor',
  'net_stakes_minor',
  'wins_minor',
  'free_round_wins_minor',
  'jackpot_contribution_micros',
  'jackpot_wins_minor',
  'tournament_payouts_minor',
  'prize_drop_payouts_minor',
  'ggr_minor',
  'ggy_minor',
  'ggy_gb_minor',
  'ggy_non_gb_minor',
] as const satisfies readonly (keyof RevenueReportRow)[];

/** `PUT /api/admin/v1/operators/{operator_id}/reporting-time-zone` body. */
export const ReportingTimeZoneRequest = z.strictObject({
  /** An IANA time zone name PostgreSQL knows (`Europe/Malta`, `UTC`): the operator's reporting days. */
  time_zone: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_+/-]{0,63}$/, 'an IANA time zone name such as Europe/Malta'),
});
export type ReportingTimeZoneRequest = z.infer<typeof ReportingTimeZoneRequest>;
export const ReportingTimeZoneResponse = successEnvelope(
  z.object({ operator_id: z.string(), time_zone: z.string() }),
);
