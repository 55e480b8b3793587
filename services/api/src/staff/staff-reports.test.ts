import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  REVENUE_FIGURES,
  StaffInvoiceListResponse,
  StaffInvoiceViewResponse,
  StaffRevenueReportResponse,
  StaffUsedRatesResponse,
} from '@opi/contract';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';

/*
 * Issue 38 point 5: the staff API's money reports for the portal. A March of rounds written as the
 * settlement writes them (EUR over two title groups, USD), an invoice in GBP, its credit note and
 * the second invoice; then every staff read equals the operator API's answer (the same figures,
 * amounts as decimal strings), the CSV is the operator API's byte for byte, the rates are those the
 * invoices froze, and scope, roles and bad input answer as every staff read does.
 */
const A = CATALOG.find((e) => e.provider_id === 'prov_a')!.symbol;
const B = CATALOG.find((e) => e.provider_id === 'prov_b')!.symbol;
const OP = 'op_srep_a';
const OTHER = 'op_srep_b';
let h: Harness;
let key = '';
let viewerToken = '';
let otherToken = '';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function paidRound(
  id: string,
  symbol: string,
  provider: string,
  currency: string,
  at: string,
  bet: number,
  win: number,
) {
  await h.db.pool.query(
    `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
       bet_minor, win_minor, intent, created_at)
     VALUES ($1, $2, 'srs_1', 'srp_1', $3, $4, $5, 'completed', $6, $7, '{}', $8)`,
    [id, OP, symbol, provider, currency, bet, win, at],
  );
  for (const [type, amount] of [
    ['debit', bet],
    ['credit', win],
  ] as const) {
    const body = JSON.stringify({ transaction_id: `${id}:${type}`, amount_minor: amount });
    await h.db.pool.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, request_body, request_hash, status, created_at)
       VALUES ($1, $2, 'srs_1', $3, 'srp_1', $4, $5, $6, $7, $8, $9, 'success', $10)`,
      [`${id}:${type}`, OP, id, symbol, type, amount, currency, body, sha(body), at],
    );
  }
}

const admin = (method: string, path: string, body?: unknown) =>
  call(h.base, method, `/api/admin/v1${path}`, {
    key: ADMIN_KEY,
    sign: true,
    ...(body !== undefined ? { body } : {}),
  });
const operatorApi = (path: string) => call(h.base, 'GET', `/api/operator/v1${path}`, { key, sign: true });
const staff = (path: string, token = viewerToken, operator = OP) =>
  call(h.base, 'GET', `/api/staff/v1/operators/${operator}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });

async function staffLogin(username: string, roles: { operator_id: string; role: string }[]) {
  const password = `${username}-password-1234`;
  const made = await admin('POST', '/staff', { username, password, roles });
  assert.equal(made.status, 201, made.text);
  const res = await call(h.base, 'POST', '/api/staff/v1/login', { body: { username, password } });
  assert.equal(res.status, 200, res.text);
  return res.json.data.token as string;
}

/** The operator API's value with every `*_minor` amount as its decimal string (what the staff API answers). */
function minorStrings(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(minorStrings);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      k,
      k.endsWith('_minor') && typeof x === 'number' ? String(x) : minorStrings(x),
    ]),
  );
}
const withoutTime = (r: Record<string, unknown>) => ({ ...r, generated_at: '' });

before(async () => {
  h = await startApi();
  key = (await createOperator(h.base, OP)).key;
  await createOperator(h.base, OTHER);
  await h.db.pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ('srp_1', '${OP}', 'srp_1', 'global');
     INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
       VALUES ('srs_1', '${OP}', 'srp_1', '${A}', 'prov_a', 'EUR')`,
  );
  await paidRound('sr_r1', A, 'prov_a', 'EUR', '2026-03-03T10:00:00Z', 100_000, 20_000);
  await paidRound('sr_r2', B, 'prov_b', 'EUR', '2026-03-05T22:59:00Z', 50_000, 0);
  await paidRound('sr_r3', A, 'prov_a', 'USD', '2026-03-05T08:00:00Z', 30_000, 10_000);
  const contract = await admin('PUT', `/operators/${OP}/billing-contract`, {
    billing_currency: 'GBP',
    minimum_fee_minor: 5000,
    tiers: [{ from_ggr_minor: 0, rate_ppm: 150_000 }],
  });
  assert.equal(contract.status, 200, contract.text);
  const rates = await admin('POST', '/exchange-rates', {
    rates: [
      { base_currency: 'EUR', quote_currency: 'GBP', rate_date: '2026-03-30', rate: '0.85', source: 'ECB' },
      { base_currency: 'GBP', quote_currency: 'USD', rate_date: '2026-03-27', rate: '1.25', source: 'ECB' },
    ],
  });
  assert.equal(rates.status, 201, rates.text);
  const first = await admin('POST', '/invoices', { operator_id: OP, period: '2026-03' });
  assert.equal(first.status, 201, first.text);
  const cn = await admin('POST', '/invoices/inv-op_srep_a-2026-03-1/credit-note', {
    reason: 'rate corrected',
  });
  assert.equal(cn.status, 201, cn.text);
  const newer = await admin('POST', '/exchange-rates', {
    rates: [
      {
        base_currency: 'EUR',
        quote_currency: 'GBP',
        rate_date: '2026-03-31',
        rate: '0.86',
        source: 'ECB-corrected',
      },
    ],
  });
  assert.equal(newer.status, 201, newer.text);
  const second = await admin('POST', '/invoices', { operator_id: OP, period: '2026-03' });
  assert.equal(second.status, 201, second.text);
  viewerToken = await staffLogin('srep.viewer', [{ operator_id: OP, role: 'viewer' }]);
  otherToken = await staffLogin('srep.other', [{ operator_id: OTHER, role: 'admin' }]);
});
after(() => h?.close());

describe('staff money reports', () => {
  test('the daily report is the operator API’s, every grouping and filter, amounts as decimal strings', async () => {
    for (const q of [
      'from=2026-03-01&to=2026-03-07',
      'from=2026-03-01&to=2026-03-07&group_by=day',
      'from=2026-03-01&to=2026-03-31&group_by=title',
      'from=2026-03-01&to=2026-03-31&group_by=currency&currency=EUR',
      `from=2026-03-01&to=2026-03-31&group_by=day&game_symbol=${A}`,
      'from=2026-04-01&to=2026-04-03&group_by=day',
    ]) {
      const ours = await staff(`/reports/revenue?${q}`);
      assert.equal(ours.status, 200, ours.text);
      const parsed = StaffRevenueReportResponse.parse(ours.json).data;
      const theirs = await operatorApi(`/reports/revenue?${q}`);
      assert.equal(theirs.status, 200, theirs.text);
      assert.deepEqual(
        withoutTime(parsed),
        withoutTime(minorStrings(theirs.json.data) as Record<string, unknown>),
        q,
      );
    }
    const eur = StaffRevenueReportResponse.parse(
      (await staff('/reports/revenue?from=2026-03-01&to=2026-03-31&group_by=currency&currency=EUR')).json,
    ).data.rows[0]!;
    assert.deepEqual(
      [eur.stakes_minor, eur.wins_minor, eur.ggr_minor, eur.ggy_minor, eur.rounds],
      ['150000', '20000', '130000', '130000', 2],
    );
    const empty = StaffRevenueReportResponse.parse(
      (await staff('/reports/revenue?from=2026-04-01&to=2026-04-02&group_by=day')).json,
    ).data;
    assert.equal(empty.no_activity, true);
    assert.deepEqual(
      empty.rows.map((r) => [r.day, r.no_activity]),
      [
        ['2026-04-01', true],
        ['2026-04-02', true],
      ],
    );
    assert.ok(REVENUE_FIGURES.length > 0);
  });

  test('the CSV is the operator API’s, byte for byte', async () => {
    const q = 'from=2026-03-01&to=2026-03-31&group_by=day_title_currency';
    const ours = await staff(`/reports/revenue.csv?${q}`);
    assert.equal(ours.status, 200, ours.text);
    assert.match(ours.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(
      ours.headers.get('content-disposition') ?? '',
      /attachment; filename="revenue-op_srep_a-2026-03-01-2026-03-31\.csv"/,
    );
    const theirs = await operatorApi(`/reports/revenue.csv?${q}`);
    assert.equal(ours.text, theirs.text);
    // The header, three rows (the 3rd; the 5th in EUR and USD) and 29 days of no activity.
    assert.equal(ours.text.split('\r\n').filter(Boolean).length, 33);
  });

  test('invoices and credit notes are the operator API’s; an invoice shows the credit notes against it', async () => {
    const ours = StaffInvoiceListResponse.parse((await staff('/invoices')).json).data;
    const theirs = (await operatorApi('/invoices')).json.data;
    assert.deepEqual(ours, minorStrings(theirs));
    assert.deepEqual(ours.items.map((i) => [i.invoice_id, i.kind, i.credited]).sort(), [
      ['cn-op_srep_a-2026-03-1', 'credit_note', false],
      ['inv-op_srep_a-2026-03-1', 'invoice', true],
      ['inv-op_srep_a-2026-03-2', 'invoice', false],
    ]);
    assert.deepEqual(
      StaffInvoiceListResponse.parse((await staff('/invoices?period=2026-04')).json).data.items,
      [],
    );
    const view = StaffInvoiceViewResponse.parse((await staff('/invoices/inv-op_srep_a-2026-03-1')).json).data;
    assert.deepEqual(
      view.invoice,
      minorStrings((await operatorApi('/invoices/inv-op_srep_a-2026-03-1')).json.data),
    );
    assert.deepEqual(
      view.credit_notes.map((c) => [c.invoice_id, c.credits_invoice_id, c.reason, c.amount_due_minor]),
      [
        [
          'cn-op_srep_a-2026-03-1',
          'inv-op_srep_a-2026-03-1',
          'rate corrected',
          `-${view.invoice.amount_due_minor}`,
        ],
      ],
    );
    assert.deepEqual(
      view.invoice.lines.map((l) => [
        l.currency,
        l.title_group,
        l.rate,
        l.rate_date,
        l.rate_source,
        l.ggr_billing_minor,
      ]),
      [
        ['EUR', 'prov_a', '0.85', '2026-03-30', 'ECB', '68000'],
        ['EUR', 'prov_b', '0.85', '2026-03-30', 'ECB', '42500'],
        ['USD', 'prov_a', '1.25', '2026-03-27', 'ECB', '16000'],
      ],
    );
    assert.equal(view.invoice.lines[0]!.round_set_hash, sha('sr_r1'));
    const cnView = StaffInvoiceViewResponse.parse(
      (await staff('/invoices/cn-op_srep_a-2026-03-1')).json,
    ).data;
    assert.deepEqual(cnView.credit_notes, []);
    assert.equal(cnView.invoice.credits_invoice_id, 'inv-op_srep_a-2026-03-1');
  });

  test('the exchange rates are the ones the invoices froze, newest first, with the invoices that used them', async () => {
    const rates = StaffUsedRatesResponse.parse((await staff('/exchange-rates')).json).data.items;
    assert.deepEqual(
      rates.map((r) => [
        r.currency,
        r.billing_currency,
        r.rate,
        r.rate_date,
        r.rate_source,
        r.rate_direction,
        r.invoice_ids.sort(),
      ]),
      [
        ['EUR', 'GBP', '0.86', '2026-03-31', 'ECB-corrected', 'direct', ['inv-op_srep_a-2026-03-2']],
        [
          'EUR',
          'GBP',
          '0.85',
          '2026-03-30',
          'ECB',
          'direct',
          ['cn-op_srep_a-2026-03-1', 'inv-op_srep_a-2026-03-1'],
        ],
        [
          'USD',
          'GBP',
          '1.25',
          '2026-03-27',
          'ECB',
          'inverse',
          ['cn-op_srep_a-2026-03-1', 'inv-op_srep_a-2026-03-1', 'inv-op_srep_a-2026-03-2'],
        ],
      ],
    );
  });

  test('scope: another operator’s staff gets 403, its invoices are 404 on its own path; bad input is 422 JSON', async () => {
    for (const path of [
      '/reports/revenue?from=2026-03-01&to=2026-03-02',
      '/reports/revenue.csv?from=2026-03-01&to=2026-03-02',
      '/invoices',
      '/invoices/inv-op_srep_a-2026-03-1',
      '/exchange-rates',
    ]) {
      assert.equal((await staff(path, otherToken)).status, 403, path);
      assert.equal((await staff(path, 'stf_not_a_token')).status, 401, path);
    }
    assert.equal((await staff('/invoices/inv-op_srep_a-2026-03-1', otherToken, OTHER)).status, 404);
    assert.deepEqual(
      StaffInvoiceListResponse.parse((await staff('/invoices', otherToken, OTHER)).json).data.items,
      [],
    );
    assert.deepEqual(
      StaffUsedRatesResponse.parse((await staff('/exchange-rates', otherToken, OTHER)).json).data.items,
      [],
    );
    assert.equal((await staff('/invoices/nonsense')).status, 404);
    assert.equal((await staff('/invoices/inv-op_srep_a-2026-03-9')).status, 404);
    for (const q of [
      '',
      'from=2026-03-01',
      'from=2026-03-02&to=2026-03-01',
      'from=2026-03-01&to=2027-03-02',
      'from=2026-02-30&to=2026-03-01',
      'from=2026-03-01&to=2026-03-02&group_by=week',
      'from=2026-03-01&to=2026-03-02&currency=eur',
      'from=2026-03-01&to=2026-03-02&game_symbol=%00',
      'from=2026-03-01&to=2026-03-02&extra=1',
    ]) {
      for (const path of ['/reports/revenue', '/reports/revenue.csv']) {
        const res = await staff(`${path}?${q}`);
        assert.equal(res.status, 422, `${path}?${q}: ${res.text}`);
        assert.ok(Array.isArray(res.json.detail), res.text);
      }
    }
    assert.equal((await staff('/invoices?period=2026-13')).status, 422);
    assert.equal((await staff('/invoices?operator_id=op_srep_b')).status, 422);
  });
});
