import { z } from 'zod';
import { Invoice, InvoiceLine } from './invoices.js';
import { MinorAmountString, successEnvelope } from './primitives.js';
import { RevenueReport, RevenueReportRow } from './reports.js';

/*
 * The staff API's money reports (/api/staff/v1/operators/{operator_id}/reports/revenue,
 * /invoices, /exchange-rates; issue 38 point 5; docs/portal.md): the operator API's own reports
 * and invoices (the same functions, the same figures), with every amount in minor units written as
 * a decimal string, so the portal reads them exactly (JSON.parse would round an integer past 2^53
 * to a float). Counts stay JSON integers.
 */

/** A report row as the operator API answers it, its amounts as decimal strings. */
export const StaffRevenueReportRow = RevenueReportRow.extend({
  stakes_minor: MinorAmountString,
  cancelled_stakes_minor: MinorAmountString,
  rolled_back_stakes_minor: MinorAmountString,
  net_stakes_minor: MinorAmountString,
  wins_minor: MinorAmountString,
  free_round_wins_minor: MinorAmountString,
  jackpot_wins_minor: MinorAmountString,
  tournament_payouts_minor: MinorAmountString,
  prize_drop_payouts_minor: MinorAmountString,
  ggr_minor: MinorAmountString,
  ggy_minor: MinorAmountString,
  ggy_gb_minor: MinorAmountString,
  ggy_non_gb_minor: MinorAmountString,
});
export type StaffRevenueReportRow = z.infer<typeof StaffRevenueReportRow>;

/** `GET /api/staff/v1/operators/{operator_id}/reports/revenue` (query: the operator API's `RevenueReportQuery`). */
export const StaffRevenueReport = RevenueReport.extend({ rows: z.array(StaffRevenueReportRow) });
export type StaffRevenueReport = z.infer<typeof StaffRevenueReport>;
export const StaffRevenueReportResponse = successEnvelope(StaffRevenueReport);

const StaffTier = z.object({ from_ggr_minor: MinorAmountString, rate_ppm: z.number().int() });

/** An invoice line, its amounts as decimal strings. */
export const StaffInvoiceLine = InvoiceLine.extend({
  ggr_minor: MinorAmountString,
  ggr_billing_minor: MinorAmountString,
});
export type StaffInvoiceLine = z.infer<typeof StaffInvoiceLine>;

/** An invoice or credit note as the operator API answers it, its amounts as decimal strings. */
export const StaffInvoice = Invoice.extend({
  contract: z.object({ minimum_fee_minor: MinorAmountString, tiers: z.array(StaffTier) }),
  lines: z.array(StaffInvoiceLine),
  ggr_billing_minor: MinorAmountString,
  share_minor: MinorAmountString,
  minimum_fee_minor: MinorAmountString,
  amount_due_minor: MinorAmountString,
});
export type StaffInvoice = z.infer<typeof StaffInvoice>;

/** `GET /api/staff/v1/operators/{operator_id}/invoices` (query: `period`?, as the operator API's). */
export const StaffInvoiceList = z.object({ items: z.array(StaffInvoice) });
export type StaffInvoiceList = z.infer<typeof StaffInvoiceList>;
export const StaffInvoiceListResponse = successEnvelope(StaffInvoiceList);

/**
 * `GET /api/staff/v1/operators/{operator_id}/invoices/{invoice_id}`: the invoice, and the credit
 * notes that reverse it (a credit note: none; its invoice is `credits_invoice_id`).
 */
export const StaffInvoiceView = z.object({
  invoice: StaffInvoice,
  credit_notes: z.array(StaffInvoice),
});
export type StaffInvoiceView = z.infer<typeof StaffInvoiceView>;
export const StaffInvoiceViewResponse = successEnvelope(StaffInvoiceView);

/** One rate as the operator's invoices froze it: a line's currency into the billing currency. */
export const StaffUsedRate = z.object({
  /** The line's currency. */
  currency: z.string(),
  billing_currency: z.string(),
  /** As loaded (a decimal string); `inverse`: loaded the other way round, divided by. */
  rate: z.string(),
  rate_date: z.string(),
  rate_source: z.string(),
  rate_direction: z.enum(['direct', 'inverse']),
  /** The invoices and credit notes whose lines used it, newest month first. */
  invoice_ids: z.array(z.string()),
  /** The months (`YYYY-MM`) of those invoices. */
  periods: z.array(z.string()),
});
export type StaffUsedRate = z.infer<typeof StaffUsedRate>;

/**
 * `GET /api/staff/v1/operators/{operator_id}/exchange-rates`: the rates the operator's invoices
 * used (read-only; the provider's admins load rates with the admin API), newest rate date first.
 */
export const StaffUsedRates = z.object({ items: z.array(StaffUsedRate) });
export type StaffUsedRates = z.infer<typeof StaffUsedRates>;
export const StaffUsedRatesResponse = successEnvelope(StaffUsedRates);
