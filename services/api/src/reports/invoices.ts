import { createHash } from 'node:crypto';
import Router from '@koa/router';
import {
  AdminInvoiceListQuery,
  BillingContractRequest,
  CreditNoteRequest,
  INVOICE_DEFINITION_VERSION,
  type Invoice,
  InvoiceListQuery,
  IssueInvoiceRequest,
} from '@opi/contract';
import { convertMinor, divRoundHalfAwayFromZero, exchangeRateOn, withTransaction } from '@opi/db';
import { currencyExponent } from '@opi/money';
import { sendJson } from '@opi/service-kit/http/json';
import { conflict, invalidField, notFound } from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import { EMPTY_ROUND_SET } from '@opi/signing';
import type { Context, Middleware } from 'koa';
import type { Pool, PoolClient } from 'pg';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import { revenueFigures } from './revenue.js';

/*
 * Billing contracts, monthly invoices and credit notes (issue 38 point 3;
 * docs/reports-and-invoices.md "Invoices"; migration 1700000000040_invoices).
 *
 *   PUT/GET /api/admin/v1/operators/{operator_id}/billing-contract
 *   POST    /api/admin/v1/invoices                         issue (or preview) a month's invoice
 *   GET     /api/admin/v1/invoices, /invoices/{id}         read
 *   POST    /api/admin/v1/invoices/{id}/credit-note        reverse an invoice (one credit note each)
 *   GET     /api/operator/v1/invoices, /invoices/{id}      the operator's own
 *
 * An invoice is computed from the daily figures (GGR per title and currency over the month, in
 * the operator's reporting time zone), grouped into lines per currency and title group (the
 * titles' provider family), each converted into the billing currency at the rate in force on the
 * month's last day and frozen into the line with its date and source; the share follows the
 * contract's tiers, at least the minimum fee. Once issued nothing of it changes (a trigger
 * refuses UPDATE and DELETE); a correction is a credit note, after which the month can be
 * invoiced again.
 */

type Tier = { from_ggr_minor: bigint; rate_ppm: number };
type Line = Invoice['lines'][number];

const OPERATOR_ID = /^[a-z0-9][a-z0-9_-]{1,63}$/;
const INVOICE_ID = /^(inv|cn)-[a-z0-9_-]{2,64}-[0-9]{4}-[0-9]{2}-[0-9]{1,4}$/;
const keyIdOf = (ctx: Context): string | null =>
  (ctx.state.auth as { keyId?: string } | undefined)?.keyId ?? null;

/** The revenue share of a month's GGR: each tier's rate on the part inside it; nothing on a loss. */
export function shareOf(ggr: bigint, tiers: Tier[]): bigint {
  if (ggr <= 0n) return 0n;
  let num = 0n;
  for (const [i, t] of tiers.entries()) {
    const next = tiers[i + 1]?.from_ggr_minor;
    const top = next === undefined || ggr < next ? ggr : next;
    if (top > t.from_ggr_minor) num += (top - t.from_ggr_minor) * BigInt(t.rate_ppm);
  }
  return divRoundHalfAwayFromZero(num, 1_000_000n);
}

/**
 * JSON with sorted keys, no spaces, integers (bigints too) as plain digits: the form the invoice
 * hash is taken of, so the answer as received (any JSON parser that keeps int64 exact) hashes the
 * same.
 */
export function canonicalJson(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

const hashOf = (doc: Omit<Invoice, 'invoice_hash' | 'credited'>) =>
  createHash('sha256').update(canonicalJson(doc), 'utf8').digest('hex');

function lastDay(period: string): string {
  const [y, m] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

interface ContractRow {
  billing_currency: string;
  minimum_fee_minor: bigint;
  tiers: { from_ggr_minor: string; rate_ppm: number }[];
  updated_at: Date;
  updated_by: string | null;
}

const presentContract = (operatorId: string, c: ContractRow) => ({
  operator_id: operatorId,
  billing_currency: c.billing_currency.trim(),
  minimum_fee_minor: c.minimum_fee_minor,
  tiers: c.tiers.map((t) => ({ from_ggr_minor: BigInt(t.from_ggr_minor), rate_ppm: t.rate_ppm })),
  updated_at: c.updated_at.toISOString(),
  updated_by: c.updated_by,
});

/** Computes an operator's invoice for a month (nothing stored). */
export async function computeInvoice(
  q: Pool | PoolClient,
  operatorId: string,
  period: string,
  /** A preview may be of the month under way (the month to date); an invoice only of a month that is over. */
  monthToDate = false,
): Promise<Omit<Invoice, 'invoice_hash' | 'credited'>> {
  const op = (
    await q.query<{ tz: string; today: string }>(
      `SELECT reporting_time_zone AS tz, to_char((now() AT TIME ZONE reporting_time_zone)::date, 'YYYY-MM-DD') AS today
         FROM operators WHERE operator_id = $1`,
      [operatorId],
    )
  ).rows[0];
  if (!op) throw notFound('operator');
  const contract = (
    await q.query<ContractRow>(
      `SELECT billing_currency, minimum_fee_minor, tiers, updated_at, updated_by FROM billing_contracts WHERE operator_id = $1`,
      [operatorId],
    )
  ).rows[0];
  if (!contract)
    throw conflict(
      `Operator ${operatorId} has no billing contract: PUT /api/admin/v1/operators/${operatorId}/billing-contract first`,
    );
  const start = `${period}-01`;
  const end = lastDay(period);
  if (start > op.today || (end >= op.today && !monthToDate))
    throw invalidField(
      ['body', 'period'],
      `the month is not over in the operator's time zone (${op.tz}, today ${op.today}); a preview may be of the month under way, not of a later one`,
    );
  const billing = contract.billing_currency.trim();
  const tiers: Tier[] = contract.tiers.map((t) => ({
    from_ggr_minor: BigInt(t.from_ggr_minor),
    rate_ppm: t.rate_ppm,
  }));

  const figures = await revenueFigures(q, { operatorId, from: start, to: end, groupBy: 'title' });
  const symbols = [...new Set(figures.map((f) => f.game_symbol!))];
  const groups = new Map(
    (
      await q.query<{ symbol: string; provider_id: string }>(
        'SELECT symbol, provider_id FROM games WHERE symbol = ANY($1)',
        [symbols],
      )
    ).rows.map((r) => [r.symbol, r.provider_id]),
  );
  const sets = new Map(
    (
      await q.query<{ currency: string; provider_id: string; n: string; hash: string }>(
        // The rounds with a successful debit or credit in their currency, as the rollup keeps them
        // per day (migration 1700000000042): how many, and the XOR of their SHA-256 in four words.
        `SELECT trim(d.currency) AS currency, coalesce(g.provider_id, 'other') AS provider_id,
                sum(d.billed_rounds)::text AS n,
                ${[1, 2, 3, 4].map((i) => `lpad(to_hex(bit_xor(d.set_x${i})), 16, '0')`).join(' || ')} AS hash
           FROM report_daily d LEFT JOIN games g ON g.symbol = d.symbol
          WHERE d.operator_id = $1 AND d.day >= $2::date AND d.day <= $3::date
          GROUP BY 1, 2`,
        [operatorId, start, end],
      )
    ).rows.map((r) => [`${r.currency}|${r.provider_id}`, r]),
  );

  const byLine = new Map<
    string,
    { currency: string; group: string; titles: string[]; rounds: number; ggr: bigint }
  >();
  for (const f of figures) {
    if (f.rounds === 0 && f.ggr_minor === 0n) continue; // promotional payouts only: not in GGR
    const group = groups.get(f.game_symbol!) ?? 'other';
    const k = `${f.currency}|${group}`;
    const l = byLine.get(k) ?? { currency: f.currency!, group, titles: [], rounds: 0, ggr: 0n };
    l.titles.push(f.game_symbol!);
    l.rounds += f.rounds;
    l.ggr += BigInt(f.ggr_minor);
    byLine.set(k, l);
  }
  const lines: Line[] = [];
  const sorted = [...byLine.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [k, l] of sorted) {
    let rate = '1';
    let rateDate = end;
    let source = 'identity';
    let direction: Line['rate_direction'] = 'identity';
    let converted = l.ggr;
    if (l.currency !== billing) {
      const r = await exchangeRateOn(q, l.currency, billing, end);
      if (!r)
        throw conflict(
          `No ${l.currency}/${billing} exchange rate (either way round) dated on or before ${end}: load one (POST /api/admin/v1/exchange-rates)`,
        );
      rate = r.rate;
      rateDate = r.rate_date;
      source = r.source;
      direction = r.direction;
      converted = convertMinor(
        l.ggr,
        r.rate,
        currencyExponent(l.currency),
        currencyExponent(billing),
        r.direction,
      );
    }
    const set = sets.get(k);
    lines.push({
      line_no: lines.length + 1,
      currency: l.currency,
      title_group: l.group,
      titles: l.titles.sort(),
      rounds: l.rounds,
      ggr_minor: l.ggr,
      rate,
      rate_date: rateDate,
      rate_source: source,
      rate_direction: direction,
      ggr_billing_minor: converted,
      round_set_hash: set?.hash ?? EMPTY_ROUND_SET,
      round_set_size: Number(set?.n ?? 0),
    });
  }
  const total = lines.reduce((s, l) => s + BigInt(l.ggr_billing_minor), 0n);
  const share = shareOf(total, tiers);
  const due = share > contract.minimum_fee_minor ? share : contract.minimum_fee_minor;
  return {
    invoice_id: null,
    kind: 'preview',
    definition_version: INVOICE_DEFINITION_VERSION,
    operator_id: operatorId,
    period,
    period_start: start,
    period_end: end,
    time_zone: op.tz,
    billing_currency: billing,
    contract: { minimum_fee_minor: contract.minimum_fee_minor, tiers },
    lines,
    ggr_billing_minor: total,
    share_minor: share,
    minimum_fee_minor: contract.minimum_fee_minor,
    amount_due_minor: due,
    credits_invoice_id: null,
    reason: null,
    issued_at: null,
    issued_by: null,
  };
}

// The stored document: the Invoice with its amounts as decimal strings (jsonb), converted back
// field by field in present().
// biome-ignore lint/suspicious/noExplicitAny: read back from jsonb
type Stored = any;

/** The stored body (amounts as decimal strings) back to the answer (amounts as integers). */
function present(body: Stored, credited: boolean): Invoice {
  const big = (v: unknown) => BigInt(v as string);
  return {
    ...(body as Invoice),
    contract: {
      minimum_fee_minor: big(body.contract.minimum_fee_minor),
      tiers: body.contract.tiers.map((t: Stored) => ({
        from_ggr_minor: big(t.from_ggr_minor),
        rate_ppm: t.rate_ppm,
      })),
    },
    lines: body.lines.map((l: Stored) => ({
      ...l,
      ggr_minor: big(l.ggr_minor),
      ggr_billing_minor: big(l.ggr_billing_minor),
    })),
    ggr_billing_minor: big(body.ggr_billing_minor),
    share_minor: big(body.share_minor),
    minimum_fee_minor: big(body.minimum_fee_minor),
    amount_due_minor: big(body.amount_due_minor),
    credited,
  };
}

/** The document as stored: amounts as decimal strings (jsonb keeps them exactly; present() reads them back). */
const toStored = (doc: object) =>
  JSON.parse(JSON.stringify(doc, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));

const SELECT_INVOICE = `SELECT i.body, i.invoice_hash,
  EXISTS (SELECT 1 FROM invoices c WHERE c.credits_invoice_id = i.invoice_id) AS credited
  FROM invoices i`;

async function issue(client: PoolClient, operatorId: string, period: string, by: string | null) {
  // One issuer at a time per operator: the month's live invoice is checked under this lock (an
  // advisory lock, not the operator's row: spins take that row's share lock).
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('opi:invoices:' || $1))`, [operatorId]);
  const known = await client.query('SELECT 1 FROM operators WHERE operator_id = $1', [operatorId]);
  if (!known.rowCount) throw notFound('operator');
  const live = await client.query<{ invoice_id: string }>(
    `SELECT i.invoice_id FROM invoices i
      WHERE i.operator_id = $1 AND i.period = $2::date AND i.kind = 'invoice'
        AND NOT EXISTS (SELECT 1 FROM invoices c WHERE c.credits_invoice_id = i.invoice_id)`,
    [operatorId, `${period}-01`],
  );
  if (live.rows[0])
    throw conflict(
      `${live.rows[0].invoice_id} is the invoice of ${operatorId} for ${period}: an issued invoice never changes; reverse it with a credit note first`,
    );
  const doc = await computeInvoice(client, operatorId, period);
  const seq = (
    await client.query<{ n: number }>(
      `SELECT count(*)::int + 1 AS n FROM invoices WHERE operator_id = $1 AND period = $2::date AND kind = 'invoice'`,
      [operatorId, `${period}-01`],
    )
  ).rows[0]!.n;
  const issuedAt = new Date().toISOString();
  const full = {
    ...doc,
    invoice_id: `inv-${operatorId}-${period}-${seq}`,
    kind: 'invoice' as const,
    issued_at: issuedAt,
    issued_by: by,
  };
  const hash = hashOf(full);
  await client.query(
    `INSERT INTO invoices (invoice_id, kind, operator_id, period, billing_currency, amount_due_minor, body, invoice_hash, issued_at, issued_by)
     VALUES ($1, 'invoice', $2, $3::date, $4, $5, $6, $7, $8, $9)`,
    [
      full.invoice_id,
      operatorId,
      `${period}-01`,
      full.billing_currency,
      full.amount_due_minor,
      toStored({ ...full, invoice_hash: hash }),
      hash,
      issuedAt,
      by,
    ],
  );
  return present(toStored({ ...full, invoice_hash: hash }), false);
}

async function creditNote(client: PoolClient, invoiceId: string, reason: string, by: string | null) {
  const row = (
    await client.query<{ body: Stored; operator_id: string; kind: string }>(
      'SELECT body, operator_id, kind FROM invoices WHERE invoice_id = $1',
      [invoiceId],
    )
  ).rows[0];
  if (!row) throw notFound('invoice');
  if (row.kind !== 'invoice') throw conflict(`${invoiceId} is a credit note: only an invoice is reversed`);
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('opi:invoices:' || $1))`, [row.operator_id]);
  const done = await client.query('SELECT invoice_id FROM invoices WHERE credits_invoice_id = $1', [
    invoiceId,
  ]);
  if (done.rowCount) throw conflict(`${invoiceId} is already reversed by ${done.rows[0].invoice_id}`);
  const inv = present(row.body, false);
  const neg = (v: bigint | number) => -BigInt(v);
  const seq = (
    await client.query<{ n: number }>(
      `SELECT count(*)::int + 1 AS n FROM invoices WHERE operator_id = $1 AND period = $2::date AND kind = 'credit_note'`,
      [row.operator_id, inv.period_start],
    )
  ).rows[0]!.n;
  const issuedAt = new Date().toISOString();
  const { credited: _c, invoice_hash: _h, ...rest } = inv;
  const doc = {
    ...rest,
    invoice_id: `cn-${row.operator_id}-${inv.period}-${seq}`,
    kind: 'credit_note' as const,
    lines: inv.lines.map((l) => ({
      ...l,
      ggr_minor: neg(l.ggr_minor),
      ggr_billing_minor: neg(l.ggr_billing_minor),
    })),
    ggr_billing_minor: neg(inv.ggr_billing_minor),
    share_minor: neg(inv.share_minor),
    minimum_fee_minor: neg(inv.minimum_fee_minor),
    amount_due_minor: neg(inv.amount_due_minor),
    credits_invoice_id: invoiceId,
    reason,
    issued_at: issuedAt,
    issued_by: by,
  };
  const hash = hashOf(doc);
  await client.query(
    `INSERT INTO invoices (invoice_id, kind, operator_id, period, credits_invoice_id, billing_currency, amount_due_minor, body,
       invoice_hash, issued_at, issued_by)
     VALUES ($1, 'credit_note', $2, $3::date, $4, $5, $6, $7, $8, $9, $10)`,
    [
      doc.invoice_id,
      row.operator_id,
      inv.period_start,
      invoiceId,
      doc.billing_currency,
      doc.amount_due_minor,
      toStored({ ...doc, invoice_hash: hash }),
      hash,
      issuedAt,
      by,
    ],
  );
  return present(toStored({ ...doc, invoice_hash: hash }), false);
}

/** Invoices and credit notes, newest month first (at most 500): one operator's, or every one's (null). */
export async function listInvoices(
  pool: Pool,
  operatorId: string | null,
  period: string | undefined,
): Promise<{ items: Invoice[] }> {
  const { rows } = await pool.query<{ body: Stored; credited: boolean }>(
    `${SELECT_INVOICE} WHERE ($1::text IS NULL OR i.operator_id = $1) AND ($2::date IS NULL OR i.period = $2::date)
      ORDER BY i.period DESC, i.issued_at DESC LIMIT 500`,
    [operatorId, period ? `${period}-01` : null],
  );
  return { items: rows.map((x) => present(x.body, x.credited)) };
}

/** One invoice or credit note; another operator's is 404 exactly as an unknown one. */
export async function readInvoice(pool: Pool, operatorId: string | null, id: string): Promise<Invoice> {
  if (!INVOICE_ID.test(id)) throw notFound('invoice');
  const { rows } = await pool.query<{ body: Stored; credited: boolean }>(
    `${SELECT_INVOICE} WHERE i.invoice_id = $1 AND ($2::text IS NULL OR i.operator_id = $2)`,
    [id, operatorId],
  );
  if (!rows[0]) throw notFound('invoice');
  return present(rows[0].body, rows[0].credited);
}

/** The credit notes that reverse an invoice (one at most today), oldest first. */
export async function creditNotesOf(pool: Pool, invoiceId: string): Promise<Invoice[]> {
  const { rows } = await pool.query<{ body: Stored; credited: boolean }>(
    `${SELECT_INVOICE} WHERE i.credits_invoice_id = $1 ORDER BY i.issued_at`,
    [invoiceId],
  );
  return rows.map((x) => present(x.body, x.credited));
}

function invoiceIdParam(ctx: Context): string {
  const id = ctx.params.invoice_id ?? '';
  if (!INVOICE_ID.test(id)) throw notFound('invoice');
  return id;
}

export function invoiceRoutes(deps: ApiDeps, operatorGuard: Middleware[], adminGuard: Middleware[]): Router {
  const r = new Router();
  const noStore = (ctx: Context) => ctx.set('Cache-Control', 'no-store');

  r.put('/api/admin/v1/operators/:operator_id/billing-contract', ...adminGuard, async (ctx) => {
    const body = parseOr422(BillingContractRequest, ctx.state.body ?? {}, 'body');
    const id = ctx.params.operator_id ?? '';
    if (!OPERATOR_ID.test(id)) throw notFound('operator');
    const tiers = body.tiers.map((t) => ({
      from_ggr_minor: String(BigInt(t.from_ggr_minor)),
      rate_ppm: t.rate_ppm,
    }));
    const { rows } = await deps.pool.query<ContractRow>(
      `INSERT INTO billing_contracts (operator_id, billing_currency, minimum_fee_minor, tiers, updated_by)
       SELECT operator_id, $2, $3, $4, $5 FROM operators WHERE operator_id = $1
       ON CONFLICT (operator_id) DO UPDATE SET billing_currency = EXCLUDED.billing_currency,
         minimum_fee_minor = EXCLUDED.minimum_fee_minor, tiers = EXCLUDED.tiers, updated_at = now(), updated_by = EXCLUDED.updated_by
       RETURNING billing_currency, minimum_fee_minor, tiers, updated_at, updated_by`,
      [
        id,
        body.billing_currency,
        String(BigInt(body.minimum_fee_minor)),
        JSON.stringify(tiers),
        keyIdOf(ctx),
      ],
    );
    if (!rows[0]) throw notFound('operator');
    noStore(ctx);
    sendJson(ctx, { success: true, data: presentContract(id, rows[0]) });
  });
  r.get('/api/admin/v1/operators/:operator_id/billing-contract', ...adminGuard, async (ctx) => {
    const id = ctx.params.operator_id ?? '';
    if (!OPERATOR_ID.test(id)) throw notFound('billing contract');
    const { rows } = await deps.pool.query<ContractRow>(
      'SELECT billing_currency, minimum_fee_minor, tiers, updated_at, updated_by FROM billing_contracts WHERE operator_id = $1',
      [id],
    );
    if (!rows[0]) throw notFound('billing contract');
    noStore(ctx);
    sendJson(ctx, { success: true, data: presentContract(id, rows[0]) });
  });

  r.post('/api/admin/v1/invoices', ...adminGuard, async (ctx) => {
    const body = parseOr422(IssueInvoiceRequest, ctx.state.body ?? {}, 'body');
    noStore(ctx);
    if (body.preview) {
      const doc = await computeInvoice(deps.pool, body.operator_id, body.period, true);
      sendJson(ctx, { success: true, data: { ...doc, credited: false, invoice_hash: hashOf(doc) } });
      return;
    }
    const data = await withTransaction(deps.pool, (c) =>
      issue(c, body.operator_id, body.period, keyIdOf(ctx)),
    );
    ctx.status = 201;
    sendJson(ctx, { success: true, data });
  });
  r.post('/api/admin/v1/invoices/:invoice_id/credit-note', ...adminGuard, async (ctx) => {
    const body = parseOr422(CreditNoteRequest, ctx.state.body ?? {}, 'body');
    const id = invoiceIdParam(ctx);
    const data = await withTransaction(deps.pool, (c) => creditNote(c, id, body.reason, keyIdOf(ctx)));
    ctx.status = 201;
    noStore(ctx);
    sendJson(ctx, { success: true, data });
  });

  const list = (operatorId: string | null, period: string | undefined) =>
    listInvoices(deps.pool, operatorId, period);
  const one = (operatorId: string | null, id: string) => readInvoice(deps.pool, operatorId, id);
  r.get('/api/admin/v1/invoices', ...adminGuard, async (ctx) => {
    const q = parseOr422(AdminInvoiceListQuery, flatQuery(ctx.query), 'query');
    noStore(ctx);
    sendJson(ctx, { success: true, data: await list(q.operator_id ?? null, q.period) });
  });
  r.get('/api/admin/v1/invoices/:invoice_id', ...adminGuard, async (ctx) => {
    noStore(ctx);
    sendJson(ctx, { success: true, data: await one(null, invoiceIdParam(ctx)) });
  });
  const operatorOf = (ctx: Context) => (ctx.state.operator as OperatorRow).operator_id;
  r.get('/api/operator/v1/invoices', ...operatorGuard, async (ctx) => {
    const { operator_id: _scope, ...rest } = flatQuery(ctx.query);
    const q = parseOr422(InvoiceListQuery, rest, 'query');
    noStore(ctx);
    sendJson(ctx, { success: true, data: await list(operatorOf(ctx), q.period) });
  });
  // Another operator's invoice is 404, exactly as an unknown one (as every read by id).
  r.get('/api/operator/v1/invoices/:invoice_id', ...operatorGuard, async (ctx) => {
    noStore(ctx);
    sendJson(ctx, { success: true, data: await one(operatorOf(ctx), invoiceIdParam(ctx)) });
  });
  return r;
}
