import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ExchangeRateLookupResponse,
  ExchangeRatesResponse,
  isCalendarDate,
  LoadExchangeRatesResponse,
} from '@opi/contract';
import { convertMinor, divRoundHalfAwayFromZero, exchangeRateOn } from '@opi/db';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';

/*
 * Exchange rates (issue 38 point 3): the provider's admins load them, list them and look up the
 * one in force on a day; a loaded rate never changes; every value the schema accepts is one the
 * database takes (exact decimals, never floats); conversions are exact rationals.
 */
let h: Harness;
let opKey = '';
before(async () => {
  h = await startApi();
  opKey = (await createOperator(h.base, 'op_fx_a')).key;
});
after(() => h?.close());

const admin = (method: string, path: string, body?: unknown, key = ADMIN_KEY) =>
  call(h.base, method, `/api/admin/v1${path}`, { key, sign: true, ...(body !== undefined ? { body } : {}) });

const rate = (over: Record<string, string> = {}) => ({
  base_currency: 'EUR',
  quote_currency: 'USD',
  rate_date: '2026-01-30',
  rate: '1.0823',
  source: 'ECB',
  ...over,
});

describe('loading', () => {
  test('a load is stored exactly, answered 201, and a repeat is a 200 no-op', async () => {
    const body = {
      rates: [
        rate(),
        rate({ quote_currency: 'GBP', rate: '0.83450' }),
        rate({ quote_currency: 'JPY', rate: '160.12' }),
        rate({
          base_currency: 'BTC',
          quote_currency: 'EUR',
          rate: '98765.123456789012345678',
          source: 'coingecko',
        }),
        rate({ rate_date: '2026-01-29', rate: '1.0800' }),
      ],
    };
    const res = await admin('POST', '/exchange-rates', body);
    assert.equal(res.status, 201, res.text);
    const data = LoadExchangeRatesResponse.parse(res.json).data;
    assert.equal(data.inserted, 5);
    assert.equal(data.unchanged, 0);
    assert.deepEqual(
      data.items.map((i) => i.rate),
      ['1.0823', '0.8345', '160.12', '98765.123456789012345678', '1.08'],
      'exact, in the request order, trailing zeros dropped',
    );
    assert.match(data.items[0]!.loaded_by ?? '', /.+/);
    const again = await admin('POST', '/exchange-rates', body);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.data.inserted, 0);
    assert.equal(again.json.data.unchanged, 5);
    // The same value written otherwise (trailing zeros) is the same rate.
    const same = await admin('POST', '/exchange-rates', { rates: [rate({ rate: '1.082300' })] });
    assert.equal(same.status, 200, same.text);
    const { rows } = await h.db.pool.query(
      `SELECT rate::text FROM exchange_rates WHERE source = 'coingecko'`,
    );
    assert.equal(rows[0].rate, '98765.123456789012345678');
  });

  test('a loaded rate never changes: another value is 409 and nothing of the load is stored', async () => {
    const res = await admin('POST', '/exchange-rates', {
      rates: [rate({ rate_date: '2026-01-27', rate: '1.07' }), rate({ rate: '1.09' })],
    });
    assert.equal(res.status, 409, res.text);
    assert.match(res.json.detail, /EUR\/USD 2026-01-30 ECB: 1\.0823/);
    const { rows } = await h.db.pool.query(`SELECT 1 FROM exchange_rates WHERE rate_date = '2026-01-27'`);
    assert.equal(rows.length, 0, 'all or none');
    // A correction goes under another source.
    const fixed = await admin('POST', '/exchange-rates', {
      rates: [rate({ rate: '1.09', source: 'ECB-corrected' })],
    });
    assert.equal(fixed.status, 201, fixed.text);
  });

  test('bad input is a 422 naming the field, never a database error', async () => {
    const bad: [unknown, (string | number)[]][] = [
      [{ rates: [rate({ rate: '0' })] }, ['body', 'rates', 0, 'rate']],
      [{ rates: [rate({ rate: '0.000' })] }, ['body', 'rates', 0, 'rate']],
      [{ rates: [rate({ rate: '1e3' })] }, ['body', 'rates', 0, 'rate']],
      [{ rates: [rate({ rate: '-1.2' })] }, ['body', 'rates', 0, 'rate']],
      [{ rates: [rate({ rate: '123456789012345678901' })] }, ['body', 'rates', 0, 'rate']],
      [{ rates: [rate({ rate: '1.1234567890123456789' })] }, ['body', 'rates', 0, 'rate']],
      [{ rates: [{ ...rate(), rate: 1.0823 }] }, ['body', 'rates', 0, 'rate']],
      [{ rates: [rate({ rate_date: '2026-02-30' })] }, ['body', 'rates', 0, 'rate_date']],
      [{ rates: [rate({ rate_date: '2025-02-29' })] }, ['body', 'rates', 0, 'rate_date']],
      [{ rates: [rate({ rate_date: '1969-12-31' })] }, ['body', 'rates', 0, 'rate_date']],
      [{ rates: [rate({ rate_date: '9999-12-31' })] }, ['body', 'rates', 0, 'rate_date']],
      [{ rates: [rate({ quote_currency: 'EUR' })] }, ['body', 'rates', 0, 'quote_currency']],
      [{ rates: [rate({ base_currency: 'eur' })] }, ['body', 'rates', 0, 'base_currency']],
      [{ rates: [rate({ source: '' })] }, ['body', 'rates', 0, 'source']],
      [{ rates: [rate({ source: 'a\u0000b' })] }, ['body', 'rates', 0, 'source']],
      [{ rates: [rate({ source: 'x'.repeat(65) })] }, ['body', 'rates', 0, 'source']],
      [{ rates: [{ ...rate(), extra: 1 }] }, ['body', 'rates', 0]],
      [{ rates: [] }, ['body', 'rates']],
      [
        { rates: [rate({ rate_date: '2026-01-20' }), rate({ rate_date: '2026-01-20', rate: '2' })] },
        ['body', 'rates', 1, 'rate'],
      ],
    ];
    for (const [body, loc] of bad) {
      const res = await admin('POST', '/exchange-rates', body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.status} ${res.text}`);
      assert.ok(
        res.json.detail.some((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc)),
        `${JSON.stringify(body)}: ${res.text}`,
      );
    }
    const tooMany = await admin('POST', '/exchange-rates', {
      rates: Array.from({ length: 301 }, (_, i) => rate({ rate: `1.${i + 1}` })),
    });
    assert.equal(tooMany.status, 422, tooMany.text);
    // 300 of the longest form fit the body limit.
    const longest = Array.from({ length: 300 }, (_, i) =>
      rate({
        base_currency: 'XAG',
        rate_date: `2024-${String((i % 12) + 1).padStart(2, '0')}-${String(Math.floor(i / 12) + 1).padStart(2, '0')}`,
        rate: '99999999999999999999.999999999999999999',
        source: `s${'x'.repeat(63)}`,
      }),
    );
    const full = await admin('POST', '/exchange-rates', { rates: longest });
    assert.equal(full.status, 201, full.text.slice(0, 300));
    assert.equal(full.json.data.inserted, 300);
    // The largest rate the schema takes is one the database takes.
    const big = await admin('POST', '/exchange-rates', {
      rates: [
        rate({
          base_currency: 'XAU',
          quote_currency: 'IDR',
          rate: '99999999999999999999.999999999999999999',
        }),
      ],
    });
    assert.equal(big.status, 201, big.text);
    assert.equal(big.json.data.items[0].rate, '99999999999999999999.999999999999999999');
  });

  test('rates dated after tomorrow (UTC) are refused; tomorrow is taken', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const later = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const res = await admin('POST', '/exchange-rates', { rates: [rate({ rate_date: later })] });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.detail[0].loc, ['body', 'rates', 0, 'rate_date']);
    const ok = await admin('POST', '/exchange-rates', {
      rates: [rate({ rate_date: tomorrow, source: 'tomorrow' })],
    });
    assert.equal(ok.status, 201, ok.text);
  });

  test('only a provider-admin key loads or reads rates', async () => {
    for (const [m, p, b] of [
      ['POST', '/exchange-rates', { rates: [rate()] }],
      ['GET', '/exchange-rates', undefined],
      ['GET', '/exchange-rates/lookup?base_currency=EUR&quote_currency=USD&date=2026-01-30', undefined],
    ] as const) {
      assert.equal((await admin(m, p, b, opKey)).status, 403);
      assert.equal((await call(h.base, m, `/api/admin/v1${p}`, b ? { body: b } : {})).status, 401);
    }
  });
});

describe('reading', () => {
  test('the listing pages newest first with filters and an opaque cursor', async () => {
    await admin('POST', '/exchange-rates', {
      rates: Array.from({ length: 7 }, (_, i) =>
        rate({ base_currency: 'CHF', rate_date: `2025-12-0${i + 1}`, rate: `1.1${i}` }),
      ),
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const res = await admin(
        'GET',
        `/exchange-rates?base_currency=CHF&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(res.status, 200, res.text);
      const data = ExchangeRatesResponse.parse(res.json).data;
      seen.push(...data.items.map((x) => x.rate_date));
      cursor = data.next_cursor;
      if (!cursor) break;
    }
    assert.deepEqual(seen, [
      '2025-12-07',
      '2025-12-06',
      '2025-12-05',
      '2025-12-04',
      '2025-12-03',
      '2025-12-02',
      '2025-12-01',
    ]);
    const window = await admin('GET', '/exchange-rates?base_currency=CHF&from=2025-12-03&to=2025-12-04');
    assert.deepEqual(
      window.json.data.items.map((x: { rate_date: string }) => x.rate_date),
      ['2025-12-04', '2025-12-03'],
    );
    for (const q of [
      'cursor=%00',
      'cursor=bm9wZQ',
      'from=2025-13-01',
      'limit=0',
      'limit=1001',
      'nope=1',
      'source=%00',
    ]) {
      const res = await admin('GET', `/exchange-rates?${q}`);
      assert.equal(res.status, 422, `${q}: ${res.text}`);
    }
  });

  test('the rate in force: the latest on or before the day, either way round', async () => {
    const look = (qs: string) => admin('GET', `/exchange-rates/lookup?${qs}`);
    const on30 = ExchangeRateLookupResponse.parse(
      (await look('base_currency=EUR&quote_currency=USD&date=2026-01-30&source=ECB')).json,
    ).data;
    assert.equal(on30.rate, '1.0823');
    assert.equal(on30.direction, 'direct');
    // A Saturday: Friday's rate.
    const sat = (await look('base_currency=EUR&quote_currency=USD&date=2026-01-31&source=ECB')).json.data;
    assert.equal(sat.rate_date, '2026-01-30');
    const thu = (await look('base_currency=EUR&quote_currency=USD&date=2026-01-29&source=ECB')).json.data;
    assert.equal(thu.rate, '1.08');
    // Only BTC/EUR is loaded: EUR→BTC is its inverse.
    const inv = (await look('base_currency=EUR&quote_currency=BTC&date=2026-02-15')).json.data;
    assert.equal(inv.direction, 'inverse');
    assert.equal(inv.base_currency, 'BTC');
    assert.equal((await look('base_currency=EUR&quote_currency=USD&date=2025-01-01')).status, 404);
    assert.equal((await look('base_currency=EUR&quote_currency=EUR&date=2025-01-01')).status, 422);
    assert.equal((await look('base_currency=EUR&quote_currency=USD')).status, 422);
    const direct = await exchangeRateOn(h.db.pool, 'EUR', 'GBP', '2026-02-01');
    assert.equal(direct?.rate, '0.8345');
  });
});

describe('exact conversion', () => {
  test('minor units convert as exact rationals with one rounding, half away from zero', () => {
    assert.equal(convertMinor(10_000n, '1.0823', 2, 2), 10_823n);
    assert.equal(convertMinor(10_823n, '1.0823', 2, 2, 'inverse'), 10_000n);
    assert.equal(convertMinor(100n, '160.12', 2, 0), 160n);
    assert.equal(convertMinor(160n, '160.12', 0, 2, 'inverse'), 100n);
    assert.equal(convertMinor(1n, '0.5', 2, 2), 1n, '0.5 rounds away from zero');
    assert.equal(convertMinor(-1n, '0.5', 2, 2), -1n);
    assert.equal(convertMinor(3n, '0.5', 2, 2), 2n);
    // 1 BTC (8 decimals) at 98,765.12 EUR.
    assert.equal(convertMinor(100_000_000n, '98765.123456789012345678', 8, 2), 9_876_512n);
    // int64 extremes stay exact (bigint all the way).
    assert.equal(convertMinor(9_223_372_036_854_775_807n, '1', 2, 2), 9_223_372_036_854_775_807n);
    assert.equal(divRoundHalfAwayFromZero(-5n, 2n), -3n);
    assert.equal(divRoundHalfAwayFromZero(5n, 2n), 3n);
    assert.equal(divRoundHalfAwayFromZero(4n, 3n), 1n);
  });

  test('calendar dates', () => {
    for (const d of ['2024-02-29', '2000-02-29', '1970-01-01', '9999-12-31']) assert.ok(isCalendarDate(d), d);
    for (const d of ['1900-02-29', '2025-02-29', '2026-04-31', '2026-00-10', '1969-12-31', '2026-1-01'])
      assert.ok(!isCalendarDate(d), d);
  });
});
