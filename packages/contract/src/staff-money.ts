import { z } from 'zod';
import { Reconciliation } from './audit.js';
import { MinorAmount } from './primitives.js';

/*
 * The staff API's reconciliation and charts (/api/staff/v1/operators/{operator_id}:
 * `GET /reconciliation`, `GET /charts`). Int64 amounts arrive as JSON integers (MinorAmount).
 */

/** The differences of one UTC day and currency (the rounds the reconciliation lists). */
export const StaffDayDifference = z.object({
  day: z.string(),
  currency: z.string(),
  rounds: z.number().int(),
  difference_minor: MinorAmount,
  pending: z.number().int(),
});
export type StaffDayDifference = z.infer<typeof StaffDayDifference>;

/** `GET /reconciliation`: the operator audit API's reconciliation and its differences per day. */
export const StaffReconciliationView = Reconciliation.extend({ by_day: z.array(StaffDayDifference) });
export type StaffReconciliationView = z.infer<typeof StaffReconciliationView>;

export const StaffDailyTotals = z.object({
  day: z.string(),
  currency: z.string(),
  rounds: z.number().int(),
  bet_minor: MinorAmount,
  win_minor: MinorAmount,
});
export type StaffDailyTotals = z.infer<typeof StaffDailyTotals>;

export const StaffTitleRtp = z.object({
  symbol: z.string(),
  title: z.string(),
  currency: z.string(),
  rounds: z.number().int(),
  bet_minor: MinorAmount,
  win_minor: MinorAmount,
  /** Stored metadata (percent, as published), not a measured rate. */
  stored_rtp: z.string().nullable(),
});
export type StaffTitleRtp = z.infer<typeof StaffTitleRtp>;

/** `GET /charts`: bet and win per UTC day and currency, and per title, over [from, to). */
export const StaffCharts = z.object({
  from: z.string(),
  to: z.string(),
  daily: z.array(StaffDailyTotals),
  titles: z.array(StaffTitleRtp),
});
export type StaffCharts = z.infer<typeof StaffCharts>;
