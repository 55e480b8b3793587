import type Router from '@koa/router';
import {
  InvoiceListQuery,
  RevenueReportQuery,
  type StaffInvoice,
  StaffInvoiceList,
  StaffInvoiceView,
  StaffRevenueReport,
  type StaffUsedRate,
  StaffUsedRates,
} from '@opi/contract';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import type { ApiDeps } from '../deps.js';
import { creditNotesOf, listInvoices, readInvoice } from '../reports/invoices.js';
import { type RevenueParams, revenueCsv, revenueReport } from '../reports/revenue.js';
import { operatorOf } from './auth.js';
import { staffResponder } from './respond.js';

/*
 * The portal's money reports (issue 38 point 5; docs/portal.md, docs/reports-and-invoices.md):
 *
 *   GET /operators/{id}/reports/revenue(.csv)   the operator API's daily report (revenueReport, revenueCsv)
 *   GET /operators/{id}/invoices                the operator's invoices and credit notes (listInvoices)
 *   GET /operators/{id}/invoices/{invoice_id}   one, with the credit notes against it (readInvoice)
 *   GET /operators/{id}/exchange-rates          the rates those invoices froze (read-only)
 *
 * Viewer role, scoped by staffScope like every staff read. The figures are the operator API's own
 * functions' answers; only the encoding differs: every `*_minor` amount is a decimal string
 * (packages/contract/src/staff-reports.ts), so the portal never reads money through a float.
 */

/** Every `*_minor` number or bigint, at any depth, as its decimal string. */
export function minorAsStrings<T>(value: T): unknown {
  if (Array.isArray(value)) return value.map(minorAsStrings);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    out[k] =
      k.endsWith('_minor') && (typeof v === 'number' || typeof v === 'bigint')
        ? String(v)
        : minorAsStrings(v);
  return out;
}

const asStaffInvoice = (inv: unknown) => minorAsStrings(inv) as StaffInvoice;

export function staffReportRoutes(op: Router, deps: ApiDeps, mw: { auth: Middleware; viewer: Middleware }) {
  const { auth, viewer } = mw;
  const pool = deps.pool;
  const opId = (ctx: Context) => operatorOf(ctx).operator_id;
  // Each answer checked against its contract schema (respond.ts), as every staff route's.
  const respond = staffResponder(deps);

  const params = (ctx: Context): RevenueParams => {
    const q = parseOr422(RevenueReportQuery, flatQuery(ctx.query), 'query');
    return {
      operatorId: opId(ctx),
      from: q.from,
      to: q.to,
      groupBy: q.group_by,
      currency: q.currency,
      gameSymbol: q.game_symbol,
    };
  };
  // Before the JSON route, so `.csv` is never read as part of another path.
  op.get('/reports/revenue.csv', auth, viewer, async (ctx) => {
    const p = params(ctx);
    const text = revenueCsv(await revenueReport(pool, p));
    ctx.type = 'text/csv; charset=utf-8; header=present';
    ctx.set('Content-Disposition', `attachment; filename="revenue-${p.operatorId}-${p.from}-${p.to}.csv"`);
    ctx.body = text;
  });
  op.get('/reports/revenue', auth, viewer, async (ctx) => {
    const data = minorAsStrings(await revenueReport(pool, params(ctx))) as StaffRevenueReport;
    respond(ctx, StaffRevenueReport, data);
  });

  op.get('/invoices', auth, viewer, async (ctx) => {
    const q = parseOr422(InvoiceListQuery, flatQuery(ctx.query), 'query');
    const { items } = await listInvoices(pool, opId(ctx), q.period);
    const data: StaffInvoiceList = { items: items.map(asStaffInvoice) };
    respond(ctx, StaffInvoiceList, data);
  });
  op.get('/invoices/:invoice_id', auth, viewer, async (ctx) => {
    const invoice = await readInvoice(pool, opId(ctx), ctx.params.invoice_id ?? '');
    const notes = invoice.kind === 'invoice' ? await creditNotesOf(pool, invoice.invoice_id!) : [];
    const data: StaffInvoiceView = {
      invoice: asStaffInvoice(invoice),
      credit_notes: notes.map(asStaffInvoice),
    };
    respond(ctx, StaffInvoiceView, data);
  });

  op.get('/exchange-rates', auth, viewer, async (ctx) => {
    const { items } = await listInvoices(pool, opId(ctx), undefined);
    const used = new Map<string, StaffUsedRate>();
    for (const inv of items)
      for (const l of inv.lines) {
        if (l.rate_direction === 'identity') continue;
        const key = [
          l.currency,
          inv.billing_currency,
          l.rate,
          l.rate_date,
          l.rate_source,
          l.rate_direction,
        ].join('\u0000');
        const u = used.get(key) ?? {
          currency: l.currency,
          billing_currency: inv.billing_currency,
          rate: l.rate,
          rate_date: l.rate_date,
          rate_source: l.rate_source,
          rate_direction: l.rate_direction,
          invoice_ids: [],
          periods: [],
        };
        if (inv.invoice_id && !u.invoice_ids.includes(inv.invoice_id)) u.invoice_ids.push(inv.invoice_id);
        if (!u.periods.includes(inv.period)) u.periods.push(inv.period);
        used.set(key, u);
      }
    const data: StaffUsedRates = {
      items: [...used.values()].sort(
        (a, b) =>
          (a.rate_date < b.rate_date ? 1 : a.rate_date > b.rate_date ? -1 : 0) ||
          (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0) ||
          (a.rate_source < b.rate_source ? -1 : a.rate_source > b.rate_source ? 1 : 0),
      ),
    };
    respond(ctx, StaffUsedRates, data);
  });
}
