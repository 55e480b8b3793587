import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { InvoiceListResponse, InvoiceResponse } from '@opi/contract';
import { CATALOG } from '@opi/games';
import { roundSetHash } from '@opi/signing';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';
import { canonicalJson, shareOf } from './invoices.js';

/*
 * Issue 38 point 3: billing contracts, monthly invoices at frozen rates, credit notes. A March of
 * rounds in EUR (two title groups), USD and GBP is written as the settlement writes it; the
 * invoice in GBP converts EUR directly and USD by the inverse of a GBP/USD rate, freezes each
 * rate with its date and source, hashes each line's rounds, and applies a tiered share.
 */
const A = CATALOG.find((e) => e.provider_id === 'prov_a')!.symbol;
const B = CATALOG.find((e) => e.provider_id === 'prov_b')!.symbol;
let h: Harness;
let keyA = '';
let keyB = '';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const xorHex = (a: string, b: string) =>
  Buffer.from(Buffer.from(a, 'hex').map((x, i) => x ^ Buffer.from(b, 'hex')[i]!)).toString('hex');

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
     VALUES ($1, 'op_inv_a', 'is_1', 'inv_p1', $2, $3, $4, 'completed', $5, $6, '{}', $7)`,
    [id, symbol, provider, currency, bet, win, at],
  );
  for (const [type, amount] of [
    ['debit', bet],
    ['credit', win],
  ] as const) {
    const body = JSON.stringify({ transaction_id: `${id}:${type}`, amount_minor: amount });
    await h.db.pool.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, request_body, request_hash, status)
       VALUES ($1, 'op_inv_a', 'is_1', $2, 'inv_p1', $3, $4, $5, $6, $7, $8, 'success')`,
      [`${id}:${type}`, id, symbol, type, amount, currency, body, sha(body)],
    );
  }
}

const admin = (method: string, path: string, body?: unknown, key = ADMIN_KEY) =>
  call(h.base, method, `/api/admin/v1${path}`, { key, sign: true, ...(body !== undefined ? { body } : {}) });
const CONTRACT = {
  billing_currency: 'GBP',
  minimum_fee_minor: 5000,
  tiers: [
    { from_ggr_minor: 0, rate_ppm: 150_000 },
    { from_ggr_minor: '100000', rate_ppm: 100_000 },
  ],
};

before(async () => {
  h = await startApi();
  keyA = (await createOperator(h.base, 'op_inv_a')).key;
  keyB = (await createOperator(h.base, 'op_inv_b')).key;
  await h.db.pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ('inv_p1', 'op_inv_a', 'inv_p1', 'global');
     INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
       VALUES ('is_1', 'op_inv_a', 'inv_p1', '${A}', 'prov_a', 'EUR')`,
  );
  await paidRound('iv_r1', A, 'prov_a', 'EUR', '2026-03-03T10:00:00Z', 100_000, 20_000);
  await paidRound('iv_r2', B, 'prov_b', 'EUR', '2026-03-31T22:59:00Z', 50_000, 0);
  await paidRound('iv_r3', A, 'prov_a', 'USD', '2026-03-15T08:00:00Z', 30_000, 10_000);
  await paidRound('iv_r4', A, 'prov_a', 'GBP', '2026-03-20T08:00:00Z', 10_000, 0);
  await paidRound('iv_r0', A, 'prov_a', 'EUR', '2026-03-01T00:00:00Z', 1_000, 1_000);
  await paidRound('iv_r9', A, 'prov_a', 'EUR', '2026-04-01T00:00:00Z', 99_999, 0); // April: not in March
});
after(() => h?.close());

describe('billing contracts', () => {
  test('set, read back, and malformed tiers refused', async () => {
    assert.equal((await admin('GET', '/operators/op_inv_a/billing-contract')).status, 404);
    for (const tiers of [
      [{ from_ggr_minor: 1, rate_ppm: 1 }],
      [
        { from_ggr_minor: 0, rate_ppm: 1 },
        { from_ggr_minor: 0, rate_ppm: 2 },
      ],
      [{ from_ggr_minor: 0, rate_ppm: 1_000_001 }],
      [{ from_ggr_minor: '-1', rate_ppm: 1 }],
      [],
    ]) {
      const res = await admin('PUT', '/operators/op_inv_a/billing-contract', { ...CONTRACT, tiers });
      assert.equal(res.status, 422, `${JSON.stringify(tiers)}: ${res.text}`);
    }
    assert.equal(
      (await admin('PUT', '/operators/op_inv_a/billing-contract', { ...CONTRACT, minimum_fee_minor: -1 }))
        .status,
      422,
    );
    assert.equal((await admin('PUT', '/operators/op_nobody/billing-contract', CONTRACT)).status, 404);
    assert.equal((await admin('PUT', '/operators/op_inv_a/billing-contract', CONTRACT, keyA)).status, 403);
  });

  test('no contract: 409; set it', async () => {
    const none = await admin('POST', '/invoices', {
      operator_id: 'op_inv_a',
      period: '2026-03',
      preview: true,
    });
    assert.equal(none.status, 409, none.text);
    assert.match(none.text, /no billing contract/);
    const set = await admin('PUT', '/operators/op_inv_a/billing-contract', CONTRACT);
    assert.equal(set.status, 200, set.text);
    assert.equal(set.json.data.tiers[1].from_ggr_minor, 100000);
  });
});

describe('invoices', () => {
  test('a currency without a rate by the month’s last day is 409; a month not over is 422', async () => {
    const res = await admin('POST', '/invoices', { operator_id: 'op_inv_a', period: '2026-03' });
    assert.equal(res.status, 409, res.text);
    assert.match(res.text, /exchange rate/);
    const month = new Date().toISOString().slice(0, 7);
    const now = await admin('POST', '/invoices', { operator_id: 'op_inv_a', period: month });
    assert.equal(now.status, 422, now.text);
    const later = await admin('POST', '/invoices', {
      operator_id: 'op_inv_a',
      period: '2099-01',
      preview: true,
    });
    assert.equal(later.status, 422, later.text);
    const loaded = await admin('POST', '/exchange-rates', {
      rates: [
        { base_currency: 'EUR', quote_currency: 'GBP', rate_date: '2026-03-31', rate: '0.85', source: 'ECB' },
        { base_currency: 'EUR', quote_currency: 'GBP', rate_date: '2026-04-01', rate: '0.99', source: 'ECB' },
        { base_currency: 'GBP', quote_currency: 'USD', rate_date: '2026-03-27', rate: '1.25', source: 'ECB' },
      ],
    });
    assert.equal(loaded.status, 201, loaded.text);
  });

  let issued = '';
  test('a preview stores nothing; the invoice: lines per currency and title group at frozen rates, a tiered share', async () => {
    const preview = await admin('POST', '/invoices', {
      operator_id: 'op_inv_a',
      period: '2026-03',
      preview: true,
    });
    assert.equal(preview.status, 200, preview.text);
    assert.equal(preview.json.data.kind, 'preview');
    assert.equal(preview.json.data.invoice_id, null);
    const listed = InvoiceListResponse.parse((await admin('GET', '/invoices?operator_id=op_inv_a')).json);
    assert.deepEqual(listed.data.items, []);

    const res = await admin('POST', '/invoices', { operator_id: 'op_inv_a', period: '2026-03' });
    assert.equal(res.status, 201, res.text);
    const inv = InvoiceResponse.parse(res.json).data;
    issued = inv.invoice_id!;
    assert.equal(issued, 'inv-op_inv_a-2026-03-1');
    assert.equal(inv.kind, 'invoice');
    assert.equal(inv.period_start, '2026-03-01');
    assert.equal(inv.period_end, '2026-03-31');
    assert.deepEqual(
      inv.lines.map((l) => [
        l.currency,
        l.title_group,
        l.rounds,
        String(l.ggr_minor),
        l.rate,
        l.rate_date,
        l.rate_source,
        l.rate_direction,
        String(l.ggr_billing_minor),
        l.round_set_size,
      ]),
      [
        ['EUR', 'prov_a', 2, '80000', '0.85', '2026-03-31', 'ECB', 'direct', '68000', 2],
        ['EUR', 'prov_b', 1, '50000', '0.85', '2026-03-31', 'ECB', 'direct', '42500', 1],
        ['GBP', 'prov_a', 1, '10000', '1', '2026-03-31', 'identity', 'identity', '10000', 1],
        ['USD', 'prov_a', 1, '20000', '1.25', '2026-03-27', 'ECB', 'inverse', '16000', 1],
      ],
    );
    // opi-invoice/2: the XOR of the rounds' SHA-256, whatever their order.
    assert.equal(inv.lines[0]!.round_set_hash, roundSetHash(['iv_r1', 'iv_r0']));
    assert.equal(
      inv.lines[0]!.round_set_hash,
      xorHex(sha('iv_r0'), sha('iv_r1')),
      'the XOR of the two ids’ SHA-256',
    );
    assert.equal(inv.lines[1]!.round_set_hash, sha('iv_r2'));
    // 136500 GBP minor: 15 % of the first 100000, 10 % of the rest.
    assert.equal(String(inv.ggr_billing_minor), '136500');
    assert.equal(String(inv.share_minor), '18650');
    assert.equal(String(inv.amount_due_minor), '18650');
    // Anyone can check the document: the hash of its canonical JSON.
    const { invoice_hash, credited: _c, ...doc } = inv;
    assert.equal(invoice_hash, sha(canonicalJson(doc)));
  });

  test('immutable: a second invoice for the month is 409; the database refuses any change', async () => {
    const again = await admin('POST', '/invoices', { operator_id: 'op_inv_a', period: '2026-03' });
    assert.equal(again.status, 409, again.text);
    await assert.rejects(
      h.db.pool.query(`UPDATE invoices SET amount_due_minor = 0 WHERE invoice_id = $1`, [issued]),
      /immutable/,
    );
    await assert.rejects(
      h.db.pool.query(`DELETE FROM invoices WHERE invoice_id = $1`, [issued]),
      /immutable/,
    );
  });

  test('the operator reads its own; another operator’s is 404 like an unknown one', async () => {
    const own = await call(h.base, 'GET', `/api/operator/v1/invoices/${issued}`, { key: keyA, sign: true });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.json.data.invoice_id, issued);
    const list = await call(h.base, 'GET', '/api/operator/v1/invoices?period=2026-03', {
      key: keyA,
      sign: true,
    });
    assert.equal(list.json.data.items.length, 1);
    const other = await call(h.base, 'GET', `/api/operator/v1/invoices/${issued}`, { key: keyB, sign: true });
    const unknown = await call(h.base, 'GET', '/api/operator/v1/invoices/inv-op_inv_b-2026-03-1', {
      key: keyB,
      sign: true,
    });
    assert.equal(other.status, 404);
    assert.equal(other.text, unknown.text);
    const theirs = await call(h.base, 'GET', '/api/operator/v1/invoices', { key: keyB, sign: true });
    assert.deepEqual(theirs.json.data.items, []);
  });

  test('a credit note reverses it (once), and the month is invoiced again; the first stays as issued', async () => {
    const cn = await admin('POST', `/invoices/${issued}/credit-note`, { reason: 'GBP/USD rate corrected' });
    assert.equal(cn.status, 201, cn.text);
    const note = InvoiceResponse.parse(cn.json).data;
    assert.equal(note.kind, 'credit_note');
    assert.equal(note.invoice_id, 'cn-op_inv_a-2026-03-1');
    assert.equal(note.credits_invoice_id, issued);
    assert.equal(String(note.amount_due_minor), '-18650');
    assert.equal(String(note.lines[3]!.ggr_billing_minor), '-16000');
    assert.equal((await admin('POST', `/invoices/${issued}/credit-note`, { reason: 'again' })).status, 409);
    assert.equal(
      (await admin('POST', `/invoices/${note.invoice_id}/credit-note`, { reason: 'x' })).status,
      409,
    );
    const first = InvoiceResponse.parse((await admin('GET', `/invoices/${issued}`)).json).data;
    assert.equal(first.credited, true);

    await admin('POST', '/exchange-rates', {
      rates: [
        { base_currency: 'USD', quote_currency: 'GBP', rate_date: '2026-03-31', rate: '0.79', source: 'ECB' },
      ],
    });
    const re = await admin('POST', '/invoices', { operator_id: 'op_inv_a', period: '2026-03' });
    assert.equal(re.status, 201, re.text);
    const second = InvoiceResponse.parse(re.json).data;
    assert.equal(second.invoice_id, 'inv-op_inv_a-2026-03-2');
    assert.deepEqual(
      [second.lines[3]!.rate, second.lines[3]!.rate_direction, String(second.lines[3]!.ggr_billing_minor)],
      ['0.79', 'direct', '15800'],
    );
    const again = InvoiceResponse.parse((await admin('GET', `/invoices/${issued}`)).json).data;
    assert.deepEqual(again.lines, first.lines);
    assert.equal(again.invoice_hash, first.invoice_hash);
  });

  test('malformed requests are 422, unknown ids 404', async () => {
    for (const body of [
      { operator_id: 'op_inv_a', period: '2026-13' },
      { operator_id: 'op_inv_a', period: '1969-12' },
      { operator_id: 'OP', period: '2026-03' },
      { operator_id: 'op_inv_a', period: '2026-03', x: 1 },
      { operator_id: 'op_inv_a', period: '2026-03', preview: 'yes' },
    ]) {
      const res = await admin('POST', '/invoices', body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal(
      (await admin('POST', '/invoices', { operator_id: 'op_nobody', period: '2026-03' })).status,
      404,
    );
    assert.equal((await admin('GET', '/invoices/nope')).status, 404);
    assert.equal((await admin('GET', '/invoices?period=2026-3')).status, 422);
    assert.equal((await admin('POST', `/invoices/${issued}/credit-note`, { reason: '' })).status, 422);
    assert.equal(
      (await admin('POST', '/invoices/inv-op_inv_a-2026-01-1/credit-note', { reason: 'x' })).status,
      404,
    );
  });
});

describe('the share', () => {
  test('flat, tiered (marginal), a loss, rounding half away from zero', () => {
    const flat = [{ from_ggr_minor: 0n, rate_ppm: 200_000 }];
    assert.equal(shareOf(10_000n, flat), 2_000n);
    assert.equal(shareOf(-5_000n, flat), 0n);
    assert.equal(shareOf(3n, [{ from_ggr_minor: 0n, rate_ppm: 500_000 }]), 2n); // 1.5 → 2
    const tiers = [
      { from_ggr_minor: 0n, rate_ppm: 150_000 },
      { from_ggr_minor: 100_000n, rate_ppm: 100_000 },
      { from_ggr_minor: 1_000_000n, rate_ppm: 50_000 },
    ];
    assert.equal(shareOf(50_000n, tiers), 7_500n);
    assert.equal(shareOf(2_000_000n, tiers), 15_000n + 90_000n + 50_000n);
  });
});
