import { z } from 'zod';
import { CurrencyCode, MinorAmount, successEnvelope } from './primitives.js';
import { DiffAmount } from './reports.js';

/*
 * Billing contracts, invoices and credit notes (issue 38 point 3; docs/reports-and-invoices.md
 * "Invoices"; migration 1700000000040_invoices). Amounts are integer minor units: JSON integers in
 * answers, a JSON integer or a decimal string (up to int64) in requests.
 */

/**
 * The version of the invoice's definition (what a line counts, how the share is computed, how its
 * round set is fingerprinted). `opi-invoice/1` hashed the line's sorted round ids; `opi-invoice/2`
 * XORs each round's SHA-256 (order-free, kept per day with the daily figures). An issued invoice
 * keeps the version it was issued under.
 */
export const INVOICE_DEFINITION_VERSION = 'opi-invoice/2';

/** One tier of the revenue share: `rate_ppm` millionths of the month's GGR from `from_ggr_minor` up to the next tier. */
export const BillingTier = z.strictObject({
  /** Where the tier starts: the month's GGR in minor units of the billing currency (the first tier starts at 0). */
  from_ggr_minor: DiffAmount,
  /** The share in millionths (150000 is 15 %), 0 to 1000000. */
  rate_ppm: z.int().min(0).max(1_000_000),
});

/** `PUT /api/admin/v1/operators/{operator_id}/billing-contract`. */
export const BillingContractRequest = z
  .strictObject({
    /** The currency the operator is invoiced in. */
    billing_currency: CurrencyCode,
    /** The least a month's invoice asks, in minor units of the billing currency. */
    minimum_fee_minor: DiffAmount,
    /** A flat rate is one tier from 0; more tiers share the month's GGR marginally (each rate on the part inside its tier). */
    tiers: z.array(BillingTier).min(1).max(20),
  })
  .superRefine((c, ctx) => {
    if (!Array.isArray(c.tiers) || c.tiers.length === 0) return;
    const from = (t: unknown) => {
      const v = (t as { from_ggr_minor?: unknown })?.from_ggr_minor;
      return typeof v === 'number' || (typeof v === 'string' && /^[0-9]{1,19}$/.test(v)) ? BigInt(v) : null;
    };
    if (from(c.tiers[0]) !== 0n)
      ctx.addIssue({
        code: 'custom',
        path: ['tiers', 0, 'from_ggr_minor'],
        message: 'the first tier starts at 0',
      });
    for (let i = 1; i < c.tiers.length; i++) {
      const a = from(c.tiers[i - 1]);
      const b = from(c.tiers[i]);
      if (a !== null && b !== null && b <= a)
        ctx.addIssue({
          code: 'custom',
          path: ['tiers', i, 'from_ggr_minor'],
          message: 'tiers strictly increase',
        });
    }
  });
export type BillingContractRequest = z.infer<typeof BillingContractRequest>;

export const BillingContract = z.object({
  operator_id: z.string(),
  billing_currency: z.string(),
  minimum_fee_minor: MinorAmount,
  tiers: z.array(z.object({ from_ggr_minor: MinorAmount, rate_ppm: z.number().int() })),
  updated_at: z.string(),
  updated_by: z.string().nullable(),
});
export const BillingContractResponse = successEnvelope(BillingContract);

/** `POST /api/admin/v1/invoices`: issue (or preview) an operator's invoice for a month that is over. */
export const IssueInvoiceRequest = z.strictObject({
  operator_id: z.string().regex(/^[a-z0-9][a-z0-9_-]{1,63}$/, 'an operator id'),
  /** The month, `YYYY-MM`, in the operator's reporting time zone; it must be over. */
  period: z.string().regex(/^(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])$/, 'a month YYYY-MM from 1970-01'),
  /** True: compute and answer it without issuing it (200, nothing stored, no id). */
  preview: z.boolean().optional(),
});
export type IssueInvoiceRequest = z.infer<typeof IssueInvoiceRequest>;

/** `POST /api/admin/v1/invoices/{invoice_id}/credit-note`. */
export const CreditNoteRequest = z.strictObject({
  /** Why the invoice is reversed (1 to 500 characters). */
  reason: z
    .string()
    .min(1)
    .max(500)
    .refine((s) => !s.includes('\u0000'), 'no NUL'),
});
export type CreditNoteRequest = z.infer<typeof CreditNoteRequest>;

/** One line: one currency and title group (the titles' provider family), converted at a frozen rate. */
export const InvoiceLine = z.object({
  line_no: z.number().int(),
  currency: z.string(),
  /** The title group: the provider family of the titles (`prov_a`, `prov_b`, ...). */
  title_group: z.string(),
  /** The titles of the group that had activity. */
  titles: z.array(z.string()),
  /** Rounds counted (as in the reports). */
  rounds: z.number().int(),
  /** The line's GGR in its own currency (definition opi-revenue/1). */
  ggr_minor: MinorAmount,
  /** The rate used: units of the billing currency per unit of `currency` (or its inverse, see `rate_direction`), as loaded. */
  rate: z.string(),
  rate_date: z.string(),
  rate_source: z.string(),
  /** `direct` (loaded currency→billing), `inverse` (loaded billing→currency, divided by), `identity` (the billing currency). */
  rate_direction: z.enum(['direct', 'inverse', 'identity']),
  /** The GGR converted, minor units of the billing currency (one rounding, half away from zero). */
  ggr_billing_minor: MinorAmount,
  /** The XOR of SHA-256(round id, UTF-8) over the line's rounds, 64 hex digits (64 zeros for none); invoices of `opi-invoice/1`: SHA-256 of the ids sorted byte by byte and joined by `\n`. */
  round_set_hash: z.string(),
  /** How many rounds the hash covers (every round of the line with a successful debit or credit). */
  round_set_size: z.number().int(),
});

export const Invoice = z.object({
  /** Null on a preview. */
  invoice_id: z.string().nullable(),
  kind: z.enum(['invoice', 'credit_note', 'preview']),
  definition_version: z.string(),
  operator_id: z.string(),
  /** `YYYY-MM`. */
  period: z.string(),
  /** The month's first and last day, in `time_zone`. */
  period_start: z.string(),
  period_end: z.string(),
  time_zone: z.string(),
  billing_currency: z.string(),
  /** The contract's terms as used. */
  contract: z.object({
    minimum_fee_minor: MinorAmount,
    tiers: z.array(z.object({ from_ggr_minor: MinorAmount, rate_ppm: z.number().int() })),
  }),
  lines: z.array(InvoiceLine),
  /** Σ of the lines, billing currency. */
  ggr_billing_minor: MinorAmount,
  /** The revenue share of that GGR by the tiers (0 when the GGR is negative). */
  share_minor: MinorAmount,
  minimum_fee_minor: MinorAmount,
  /** What the operator owes: the share, at least the minimum fee (a credit note: the negative of its invoice's). */
  amount_due_minor: MinorAmount,
  /** A credit note: the invoice it reverses. */
  credits_invoice_id: z.string().nullable(),
  /** A credit note's reason. */
  reason: z.string().nullable(),
  /** True when a credit note reverses this invoice. */
  credited: z.boolean(),
  issued_at: z.string().nullable(),
  issued_by: z.string().nullable(),
  /** SHA-256 of the document's canonical JSON (everything above but `credited` and this). */
  invoice_hash: z.string(),
});
export type Invoice = z.infer<typeof Invoice>;
export const InvoiceResponse = successEnvelope(Invoice);
export const InvoiceListResponse = successEnvelope(z.object({ items: z.array(Invoice) }));

/** `GET .../invoices` query. */
export const InvoiceListQuery = z.strictObject({
  /** Only this month (`YYYY-MM`). */
  period: z
    .string()
    .regex(/^(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])$/, 'a month YYYY-MM')
    .optional(),
});
export const AdminInvoiceListQuery = InvoiceListQuery.extend({
  operator_id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{1,63}$/, 'an operator id')
    .optional(),
});
