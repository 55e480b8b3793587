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

/** A report row's figures, in order (the CSV's columns after the row's key; the recount's fields). */
export const REVENUE_FIGURES = [
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

/** The CSV's columns, in order (a header row first). */
export const REVENUE_REPORT_CSV_HEADER = [
  'operator_id',
  'day',
  'game_symbol',
  'currency',
  'no_activity',
  ...REVENUE_FIGURES,
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

/*
 * The reconciliation diff (issue 38 point 4; docs/reports-and-invoices.md "The reconciliation
 * diff"): the operator posts its own totals of the wallet transactions it applied, bucketed, and
 * gets back the buckets that differ from the platform's journal; then it narrows (per hour, per
 * title, per hash prefix of the transaction id) down to the transactions that differ.
 */

/** The version of the diff's definition (what a bucket counts, how its hash is made). */
export const DIFF_DEFINITION_VERSION = 'opi-diff/1';
/**
 * Most buckets or transactions one diff request carries, and most of ours one transaction-level
 * answer lists (narrow with `prefix` past it). The body's 64 KiB limit holds too: 400
 * transactions with ids of up to about 60 characters fit, and so do the 256 buckets of level
 * `prefix` with `digits` 2 whatever they hold (about 59 KB with every figure at its largest, about
 * 45 KB with a month's real figures).
 */
export const DIFF_MAX_ITEMS = 400;
/** The levels of the walk: each narrows the one before. */
export const DIFF_LEVELS = ['day', 'hour', 'title', 'prefix', 'transaction'] as const;
export const DiffLevel = z.enum(DIFF_LEVELS);
export type DiffLevel = z.infer<typeof DiffLevel>;

const INT64_MAX = 9223372036854775807n;
/** A non-negative integer of minor units: a JSON integer, or a decimal string for values past 2^53 (at most int64). */
export const DiffAmount = z
  .union([z.int().min(0), z.string().regex(/^(0|[1-9][0-9]{0,18})$/, 'a non-negative integer')])
  // Runs on whatever the union was given (zod runs a union's checks after its issues): test first.
  .refine(
    (v) => typeof v !== 'string' || !/^(0|[1-9][0-9]{0,18})$/.test(v) || BigInt(v) <= INT64_MAX,
    'at most 9223372036854775807',
  );
export type DiffAmount = z.infer<typeof DiffAmount>;

/** A bucket's totals: what the operator's ledger (or the platform's journal) holds in it. */
export const DiffTotalsInput = z.strictObject({
  /**
   * The bucket: its day `YYYY-MM-DD` (level `day`), its hour `00`–`23` (level `hour`), its title's
   * game symbol (level `title`), or its hash prefix: the scope's `prefix` and `digits` (1 or 2)
   * more hex digits (level `prefix`).
   */
  bucket: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'a day, an hour, a game symbol or a hex prefix'),
  currency: CurrencyCode,
  /** Successful (applied) debit, credit, cancel and rollback transactions in the bucket. */
  transactions: z.int().min(0),
  /** Σ amount_minor of the debits. */
  debit_minor: DiffAmount,
  /** Σ amount_minor of the credits. */
  credit_minor: DiffAmount,
  /** Σ amount_minor of the cancels and rollbacks (as the callbacks carried them). */
  reversal_minor: DiffAmount,
  /** Optional: the bucket's hash (32 lower-case hex digits; how it is made: docs/reports-and-invoices.md). */
  hash: z
    .string()
    .regex(/^[0-9a-f]{32}$/, '32 lower-case hex digits')
    .optional(),
});
export type DiffTotalsInput = z.infer<typeof DiffTotalsInput>;

/** One transaction of the operator's ledger (level `transaction`). */
export const DiffTransactionInput = z.strictObject({
  transaction_id: z
    .string()
    .min(1)
    .max(200)
    .refine((s) => !s.includes('\u0000'), 'no NUL'),
  transaction_type: z.enum(['debit', 'credit', 'cancel', 'rollback']),
  amount_minor: DiffAmount,
  currency: CurrencyCode,
});
export type DiffTransactionInput = z.infer<typeof DiffTransactionInput>;

/** `POST /api/operator/v1/reconciliation/diff`. */
export const ReconciliationDiffRequest = z
  .strictObject({
    level: DiffLevel,
    /**
     * The period compared: its first and last day (inclusive, the operator's reporting time zone; at
     * most 366 days). Required at level `day`; at levels `prefix` and `transaction`, the period or a
     * `day` (exactly one): a transaction booked across a day boundary by the operator's clock makes
     * both days differ, but inside a period that holds both it is invisible.
     */
    from: CalendarDate.optional(),
    to: CalendarDate.optional(),
    /** Levels `hour` and `title` (required), `prefix` and `transaction` (or `from`–`to`): the day narrowed to. */
    day: CalendarDate.optional(),
    /** Optional at levels `title`, `prefix`, `transaction` scoped to a `day`: the hour narrowed to (0–23, local). */
    hour: z.int().min(0).max(23).optional(),
    /** Optional at levels `prefix` and `transaction`: the title narrowed to. */
    game_symbol: GameSymbolFilter.optional(),
    /** Optional at levels `prefix` and `transaction`: only transactions whose id's SHA-256 (hex) starts with it. */
    prefix: z
      .string()
      .regex(/^[0-9a-f]{0,16}$/, 'up to 16 lower-case hex digits')
      .optional(),
    /**
     * Optional at level `prefix`: how many hex digits the buckets add to `prefix`, 1 (16 buckets,
     * the default) or 2 (256 buckets: the walk needs fewer steps; `prefix` and the digits at most 16).
     */
    digits: z.union([z.literal(1), z.literal(2)]).optional(),
    /** Only this currency. */
    currency: CurrencyCode.optional(),
    /** Levels `day` to `prefix`: the operator's buckets (a bucket it has nothing in may be left out). */
    buckets: z.array(DiffTotalsInput).max(DIFF_MAX_ITEMS).optional(),
    /** Level `transaction`: every transaction of the operator's ledger in the scope. */
    transactions: z.array(DiffTransactionInput).max(DIFF_MAX_ITEMS).optional(),
  })
  .superRefine((b, ctx) => {
    const need = (field: keyof typeof b, why: string) => {
      if (b[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: why });
    };
    const forbid = (field: keyof typeof b, why: string) => {
      if (b[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: why });
    };
    if (b.level === 'day') {
      need('from', 'required at level day');
      need('to', 'required at level day');
      forbid('day', 'not at level day (from and to)');
      forbid('hour', 'not at level day');
    } else if (b.level === 'prefix' || b.level === 'transaction') {
      // Exactly one scope in time: a period (from and to) or a day (and optionally an hour).
      if (b.from !== undefined || b.to !== undefined) {
        need('from', 'required with to');
        need('to', 'required with from');
        forbid('day', 'either day or from and to, not both');
        forbid('hour', 'only with day (not with from and to)');
      } else need('day', `required at level ${b.level} (or from and to)`);
    } else {
      need('day', `required at level ${b.level}`);
      forbid('from', 'only at levels day, prefix and transaction');
      forbid('to', 'only at levels day, prefix and transaction');
    }
    if (b.from && b.to) periodChecks({ from: b.from, to: b.to }, ctx);
    if (b.level === 'day' || b.level === 'hour') {
      forbid('hour', `not at level ${b.level}`);
      forbid('game_symbol', `not at level ${b.level}`);
      forbid('prefix', `not at level ${b.level}`);
    }
    if (b.level === 'title') {
      forbid('game_symbol', 'not at level title');
      forbid('prefix', 'not at level title');
    }
    if (b.level !== 'prefix') forbid('digits', 'only at level prefix');
    else if ((b.prefix ?? '').length + (b.digits ?? 1) > 16)
      ctx.addIssue({
        code: 'custom',
        path: ['prefix'],
        message: `at most ${16 - (b.digits ?? 1)} digits at level prefix with ${b.digits ?? 1} more`,
      });
    if (b.level === 'transaction') {
      need('transactions', 'required at level transaction');
      forbid('buckets', 'not at level transaction');
    } else {
      need('buckets', `required at level ${b.level}`);
      forbid('transactions', 'only at level transaction');
    }
  });
export type ReconciliationDiffRequest = z.infer<typeof ReconciliationDiffRequest>;

/** A bucket's totals as answered. */
export const DiffTotals = z.object({
  transactions: z.number().int(),
  debit_minor: MinorAmount,
  credit_minor: MinorAmount,
  reversal_minor: MinorAmount,
  hash: z.string(),
});
/** A bucket of ours (every one in the scope), with its totals. */
export const DiffBucket = DiffTotals.extend({ bucket: z.string(), currency: z.string() });
/** A bucket whose totals differ: ours (null: we have nothing in it) and theirs (null: the operator sent none). */
export const DiffDifference = z.object({
  bucket: z.string(),
  currency: z.string(),
  ours: DiffTotals.nullable(),
  theirs: DiffTotals.extend({ hash: z.string().nullable() }).nullable(),
  /** The fields that differ (`missing` when one side has no such bucket). */
  fields: z.array(z.string()),
});
/** A transaction of ours, as the journal holds it. */
export const DiffTransaction = z.object({
  transaction_id: z.string(),
  transaction_type: z.string(),
  amount_minor: MinorAmount,
  currency: z.string(),
  round_id: z.string(),
  game_symbol: z.string(),
  /** When the platform journalled it (before its first send): the instant its bucket is taken from. */
  journalled_at: z.string(),
});
export const ReconciliationDiff = z.object({
  definition_version: z.string(),
  operator_id: z.string(),
  level: DiffLevel,
  /** The operator's reporting time zone: days and hours are local to it. */
  time_zone: z.string(),
  /** The scope compared, as read. */
  scope: z.object({
    from: z.string().nullable(),
    to: z.string().nullable(),
    day: z.string().nullable(),
    hour: z.number().int().nullable(),
    game_symbol: z.string().nullable(),
    prefix: z.string().nullable(),
    currency: z.string().nullable(),
  }),
  /** True when every bucket (or transaction) agrees. */
  matches: z.boolean(),
  /** Levels `day` to `prefix`: every bucket of ours in the scope. */
  buckets: z.array(DiffBucket),
  /** Levels `day` to `prefix`: the buckets that differ. */
  differences: z.array(DiffDifference),
  /** Level `transaction`: ours, not in the operator's ledger. */
  only_ours: z.array(DiffTransaction),
  /** Level `transaction`: the operator's, not in our journal (as applied). */
  only_theirs: z.array(DiffTransactionInput.extend({ amount_minor: MinorAmount })),
  /** Level `transaction`: in both, with another type, amount or currency. */
  mismatched: z.array(
    z.object({ ours: DiffTransaction, theirs: DiffTransactionInput.extend({ amount_minor: MinorAmount }) }),
  ),
});
export type ReconciliationDiff = z.infer<typeof ReconciliationDiff>;
export const ReconciliationDiffResponse = successEnvelope(ReconciliationDiff);
export type ReconciliationDiffResponse = z.infer<typeof ReconciliationDiffResponse>;
