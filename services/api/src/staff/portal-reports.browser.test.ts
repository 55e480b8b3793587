import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '@opi/config';
import { currencyExponent, minorToDecimalString } from '@opi/money';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import { type Browser, chromium, type Page } from 'playwright-core';
import { watchPage } from './test-support/page-problems.js';
import { PORTAL_DIR, type Portal, startPortal } from './test-support/portal.js';
import { OP_A, slot, startWorld, type World } from './test-support/world.js';

// The staff portal's money reports (issue 38 point 5) in chromium against the portal's production
// build, reading through the real API: slot spins in EUR and USD and a Mines round (native)
// played through the game server and settled by the workflow at the sandbox wallet over HTTP, for
// today's report; last month's rounds written as the settlement writes them, invoiced in GBP at
// loaded rates, credited and invoiced again. On a laptop and a phone: every figure shown equals the
// operator API's, formatted exactly from its minor units; the CSV downloads as the operator API's;
// the invoice's printable page (lines, rate dates and sources, round-set hashes, its credit note);
// the rates the invoices used; no page scrolls sideways on the phone.
const ARTIFACTS = path.join(PORTAL_DIR, 'test-artifacts');
const CHROMIUM = process.env.OPI_TEST_CHROMIUM ?? DEFAULT_CHROMIUM;
const DESKTOP = { viewport: { width: 1280, height: 860 } };
const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};
const DAY_MS = 86_400_000;
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

let w: World;
let portal: Portal | undefined;
let origin = '';
let browser: Browser;
const today = isoDay(Date.now());
const from30 = isoDay(Date.now() - 29 * DAY_MS);
const now = new Date();
const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1);
const lastMonth = isoDay(monthStart).slice(0, 7);
const lastDay = isoDay(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0));
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** What the portal shows for an amount: grouped digits, a true minus sign, the currency code. */
function shown(minor: string | number | bigint, currency: string): string {
  const s = minorToDecimalString(BigInt(minor), currency);
  const neg = s.startsWith('-');
  const [whole, frac] = (neg ? s.slice(1) : s).split('.');
  return `${neg ? '−' : ''}${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac ? `.${frac}` : ''} ${currency}`;
}
/** Millionths of a minor unit, exactly: EUR "50000" → "0.05000000 EUR". */
function shownMicros(micros: string, currency: string): string {
  const e = currencyExponent(currency) + 6;
  const v = BigInt(micros);
  const abs = (v < 0n ? -v : v).toString().padStart(e + 1, '0');
  return `${v < 0n ? '−' : ''}${abs.slice(0, -e)}.${abs.slice(-e)} ${currency}`;
}

const operatorApi = (p: string) => call(w.h.base, 'GET', `/api/operator/v1${p}`, { key: w.keyA, sign: true });
const admin = (method: string, p: string, body?: unknown) =>
  call(w.h.base, method, `/api/admin/v1${p}`, { key: ADMIN_KEY, sign: true, ...(body ? { body } : {}) });

/** A round of last month written as the settlement writes it (a debit and a credit, both successful). */
async function pastRound(
  id: string,
  s: { session_id: string; player_id: string },
  symbol: string,
  provider: string,
  currency: string,
  at: string,
  bet: number,
  win: number,
) {
  await w.h.db.pool.query(
    `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
       bet_minor, win_minor, intent, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'completed', $8, $9, '{}', $10)`,
    [id, OP_A, s.session_id, s.player_id, symbol, provider, currency, bet, win, at],
  );
  for (const [type, amount] of [
    ['debit', bet],
    ['credit', win],
  ] as const) {
    const body = JSON.stringify({ transaction_id: `${id}:${type}`, amount_minor: amount });
    await w.h.db.pool.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, request_body, request_hash, status, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'success', $12)`,
      [
        `${id}:${type}`,
        OP_A,
        s.session_id,
        id,
        s.player_id,
        symbol,
        type,
        amount,
        currency,
        body,
        sha(body),
        at,
      ],
    );
  }
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  w = await startWorld();
  // Today: slot spins in EUR and USD, and a native Mines round, settled at the sandbox wallet.
  const eur = await w.player('EUR', 100_000);
  for (const bet of [100, 250, 500]) await w.spin(eur.token, bet);
  const usd = await w.player('USD', 100_000);
  for (const bet of [200, 300]) await w.spin(usd.token, bet);
  await w.minesRound();
  await w.until(
    'every round settled',
    async () => {
      const { rows } = await w.h.db.pool.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM rounds WHERE operator_id = $1 AND status IN ('open', 'settling'))
              + (SELECT count(*) FROM wallet_transactions WHERE operator_id = $1 AND status = 'pending') AS n`,
        [OP_A],
      );
      return Number(rows[0]!.n) === 0;
    },
    60_000,
  );
  // Last month: EUR over two title groups and USD, invoiced in GBP, credited, invoiced again.
  const { rows } = await w.h.db.pool.query<{ session_id: string; player_id: string }>(
    'SELECT session_id, player_id FROM sessions WHERE session_id = $1',
    [eur.sessionId],
  );
  const s = rows[0]!;
  const at = (day: number, hour: number) =>
    new Date(monthStart + (day - 1) * DAY_MS + hour * 3_600_000).toISOString();
  await pastRound('prt_r1', s, slot.symbol, 'prov_a', 'EUR', at(3, 10), 120_000, 20_000);
  await pastRound('prt_r2', s, 'cnmines', 'prov_c', 'EUR', at(10, 12), 50_000, 5_000);
  await pastRound('prt_r3', s, slot.symbol, 'prov_a', 'USD', at(12, 8), 30_000, 10_000);
  const ok = async (res: Promise<{ status: number; text: string }>, status: number) => {
    const r = await res;
    assert.equal(r.status, status, r.text);
  };
  await ok(
    admin('PUT', `/operators/${OP_A}/billing-contract`, {
      billing_currency: 'GBP',
      minimum_fee_minor: 5000,
      tiers: [{ from_ggr_minor: 0, rate_ppm: 150_000 }],
    }),
    200,
  );
  const dayBefore = isoDay(Date.parse(lastDay) - DAY_MS);
  await ok(
    admin('POST', '/exchange-rates', {
      rates: [
        { base_currency: 'EUR', quote_currency: 'GBP', rate_date: dayBefore, rate: '0.8512', source: 'ECB' },
        { base_currency: 'GBP', quote_currency: 'USD', rate_date: lastDay, rate: '1.2534', source: 'ECB' },
      ],
    }),
    201,
  );
  await ok(admin('POST', '/invoices', { operator_id: OP_A, period: lastMonth }), 201);
  await ok(
    admin('POST', `/invoices/inv-${OP_A}-${lastMonth}-1/credit-note`, { reason: 'EUR rate corrected' }),
    201,
  );
  await ok(
    admin('POST', '/exchange-rates', {
      rates: [
        { base_currency: 'EUR', quote_currency: 'GBP', rate_date: lastDay, rate: '0.8601', source: 'ECB' },
      ],
    }),
    201,
  );
  await ok(admin('POST', '/invoices', { operator_id: OP_A, period: lastMonth }), 201);

  portal = await startPortal({ api: w.h.base });
  origin = portal.origin;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
});

after(async () => {
  await browser?.close();
  await portal?.stop();
  await w?.close();
});

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

async function login(page: Page) {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Username').fill(w.staff.viewerA.username);
  await page.getByLabel('Password').fill(w.staff.viewerA.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((u) => u.href !== `${origin}/login`);
}

/** Each body row of a table as its header cell, then its cells' text. */
function tableRows(page: Page, testId: string): Promise<string[][]> {
  return page
    .locator(`[data-testid="${testId}"] tbody tr`)
    .evaluateAll((trs) =>
      trs.map((tr) =>
        [...tr.querySelectorAll('th, td')].map((c) => (c.firstChild?.textContent ?? '').trim()),
      ),
    );
}

/**
 * Accessibility basics on the current page (as portal.browser.test.ts checks every other page): a
 * language, one h1, a label on every control, alt text, and text contrast of at least 4.5:1.
 */
async function accessible(page: Page) {
  const facts = (await page.evaluate(`(() => {
    const unlabeled = [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
      .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
      .map((el) => el.getAttribute('name') || el.outerHTML.slice(0, 80));
    const noAlt = [...document.querySelectorAll('img')].filter((i) => !i.hasAttribute('alt')).length;
    const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null; const p = m[1].split(',').map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
    const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
    const bgOf = (el) => { for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0.5) return c; } return { r: 255, g: 255, b: 255, a: 1 }; };
    const low = [];
    for (const el of document.querySelectorAll('body *')) {
      if (!['P','A','SPAN','TD','TH','LABEL','BUTTON','LI','DT','DD','H1','H2','H3','SUMMARY','CAPTION','STRONG','CODE'].includes(el.tagName)) continue;
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || el.closest('svg') || el.offsetParent === null) continue;
      const s = getComputedStyle(el);
      const fg = parse(s.color); if (!fg) continue;
      const bg = bgOf(el);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      if (ratio < 4.5 && !(el.closest('button:disabled'))) low.push(el.tagName + ' "' + el.textContent.trim().slice(0, 30) + '" ' + ratio.toFixed(2));
    }
    return { lang: document.documentElement.lang, h1: document.querySelectorAll('h1').length, unlabeled, noAlt, low: low.slice(0, 5) };
  })()`)) as { lang: string; h1: number; unlabeled: string[]; noAlt: number; low: string[] };
  assert.equal(facts.lang, 'en');
  assert.equal(facts.h1, 1, `${page.url()}: one h1`);
  assert.deepEqual(facts.unlabeled, [], `${page.url()}: every control has a label`);
  assert.equal(facts.noAlt, 0, `${page.url()}: every image has alt text`);
  assert.deepEqual(facts.low, [], `${page.url()}: text contrast at least 4.5:1`);
}

async function noSidewaysScroll(page: Page, what: string) {
  const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
  assert.ok(width <= 390, `${what}: no sideways scrolling on a phone (${width} px)`);
}

const FIGURES = [
  'stakes_minor',
  'cancelled_stakes_minor',
  'rolled_back_stakes_minor',
  'net_stakes_minor',
  'wins_minor',
  'free_round_wins_minor',
  'jackpot_wins_minor',
  'tournament_payouts_minor',
  'prize_drop_payouts_minor',
  'ggr_minor',
  'ggy_minor',
  'ggy_gb_minor',
  'ggy_non_gb_minor',
] as const;

const figureRow = (r: Record<string, any>, withTitle: boolean) => [
  ...(withTitle ? [r.game_symbol, r.currency] : [r.currency]),
  String(r.rounds),
  String(r.players),
  ...FIGURES.map((k) => shown(r[k], r.currency)),
  shownMicros(r.jackpot_contribution_micros, r.currency),
];

test('reports, invoices and exchange rates show the API’s figures exactly (laptop and phone)', async (t) => {
  const period = `from=${from30}&to=${today}`;
  const api = async (q: string) => {
    const res = await operatorApi(`/reports/revenue?${q}`);
    assert.equal(res.status, 200, res.text);
    return res.json.data as { definition_version: string; rows: Record<string, any>[] };
  };
  const [byDay, byTitle, byCurrency] = [
    await api(`${period}&group_by=day`),
    await api(`${period}&group_by=title`),
    await api(`${period}&group_by=currency`),
  ];
  assert.deepEqual(byCurrency.rows.map((r) => r.currency).sort(), ['EUR', 'USD']);
  assert.ok(
    byTitle.rows.some((r) => r.game_symbol === 'cnmines'),
    'the native round is reported',
  );
  const csvApi = (await operatorApi(`/reports/revenue.csv?${period}&group_by=day_title_currency`)).text;
  const invoices = (await operatorApi('/invoices')).json.data.items as Record<string, any>[];
  assert.equal(invoices.length, 3);
  const first = `inv-${OP_A}-${lastMonth}-1`;
  const note = `cn-${OP_A}-${lastMonth}-1`;
  const firstApi = invoices.find((i) => i.invoice_id === first)!;

  for (const device of [DESKTOP, PHONE]) {
    const phone = device === PHONE;
    const shot = (name: string) => path.join(ARTIFACTS, `${phone ? 'phone' : '30'}-${name}.png`);
    const context = await browser.newContext({ ...device, acceptDownloads: true });
    try {
      const page = await context.newPage();
      const watch = watchPage(page);
      await login(page);
      await page.goto(`${origin}/o/${OP_A}`);

      // ── Reports ──
      await page.getByRole('link', { name: 'Reports', exact: true }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/reports`);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Reports');
      assert.equal(await hook(page, 'definition-version').textContent(), byDay.definition_version);
      assert.equal(byDay.definition_version, 'opi-revenue/1');
      assert.equal(await hook(page, 'no-activity').count(), 0);
      for (const cur of ['EUR', 'USD'])
        assert.ok(
          await page.locator(`[data-testid="ggr-chart-${cur}"] svg.chart`).isVisible(),
          `${cur} chart`,
        );
      assert.deepEqual(
        await tableRows(page, 'by-day'),
        byDay.rows.map((r) =>
          r.no_activity
            ? [r.day, 'No activity']
            : [
                r.day,
                r.currency,
                String(r.rounds),
                String(r.players),
                shown(r.net_stakes_minor, r.currency),
                shown(r.wins_minor, r.currency),
                shown(r.ggr_minor, r.currency),
                shown(r.ggy_minor, r.currency),
              ],
        ),
      );
      assert.deepEqual(
        await tableRows(page, 'by-title'),
        byTitle.rows.map((r) => figureRow(r, true)),
      );
      assert.deepEqual(
        await tableRows(page, 'by-currency'),
        byCurrency.rows.map((r) => figureRow(r, false)),
      );
      if (phone) await noSidewaysScroll(page, 'reports');
      await accessible(page);
      await page.screenshot({ path: shot('reports'), fullPage: true });
      // The CSV downloads as the operator API's, byte for byte.
      const [download] = await Promise.all([page.waitForEvent('download'), hook(page, 'csv-daily').click()]);
      assert.equal(download.suggestedFilename(), `revenue-${OP_A}-${from30}-${today}.csv`);
      assert.equal(readFileSync((await download.path())!, 'utf8'), csvApi);
      // A period without activity says so, day by day.
      await page.getByLabel('From (first day)').fill('2020-01-01');
      await page.getByLabel('To (last day)').fill('2020-01-03');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/from=2020-01-01/);
      assert.ok(await hook(page, 'no-activity').isVisible());
      assert.deepEqual(await tableRows(page, 'by-day'), [
        ['2020-01-01', 'No activity'],
        ['2020-01-02', 'No activity'],
        ['2020-01-03', 'No activity'],
      ]);
      // The currency filter.
      await page.goto(`${origin}/o/${OP_A}/reports?${period}&currency=USD`);
      assert.deepEqual(
        await tableRows(page, 'by-currency'),
        byCurrency.rows.filter((r) => r.currency === 'USD').map((r) => figureRow(r, false)),
      );

      // Last month (the invoiced rounds), from its quick link (which keeps the currency chosen).
      await page.getByRole('link', { name: 'Last month', exact: true }).click();
      await page.waitForURL(new RegExp(`from=${lastMonth}-01&to=${lastDay}&currency=USD`));
      await page.getByLabel('Currency').selectOption('');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(
        (u) => u.searchParams.get('from') === `${lastMonth}-01` && !u.searchParams.get('currency'),
      );
      const lastMonthApi = await api(`from=${lastMonth}-01&to=${lastDay}&group_by=currency`);
      assert.deepEqual(
        await tableRows(page, 'by-currency'),
        lastMonthApi.rows.map((r) => figureRow(r, false)),
      );
      assert.deepEqual(
        lastMonthApi.rows.map((r) => [r.currency, r.ggr_minor]),
        [
          ['EUR', 145_000],
          ['USD', 20_000],
        ],
      );

      // ── Invoices ──
      await page.getByRole('link', { name: 'Invoices', exact: true }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/invoices`);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Invoices');
      const listed = await tableRows(page, 'invoices');
      assert.deepEqual(
        listed.map((r) => [r[0], r[1], r[2], r[3], r[4], r[5]]),
        invoices.map((i) => [
          i.invoice_id,
          i.period,
          i.kind === 'credit_note' ? 'credit note' : i.credited ? 'credited' : 'issued',
          shown(i.ggr_billing_minor, 'GBP'),
          shown(i.share_minor, 'GBP'),
          shown(i.amount_due_minor, 'GBP'),
        ]),
      );
      if (phone) await noSidewaysScroll(page, 'invoices');
      await accessible(page);
      await page.screenshot({ path: shot('invoices'), fullPage: true });

      // ── The invoice's printable page ──
      await page.getByRole('link', { name: first, exact: true }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/invoices/${first}`);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Invoice ${first}`);
      assert.deepEqual(
        await tableRows(page, 'invoice-lines'),
        firstApi.lines.map((l: Record<string, any>) => [
          String(l.line_no),
          l.currency,
          l.title_group,
          String(l.rounds),
          shown(l.ggr_minor, l.currency),
          l.rate_direction === 'identity'
            ? '—'
            : l.rate_direction === 'direct'
              ? `1 ${l.currency} = ${l.rate} GBP`
              : `1 GBP = ${l.rate} ${l.currency}`,
          l.rate_date,
          l.rate_source,
          shown(l.ggr_billing_minor, 'GBP'),
          l.round_set_hash,
        ]),
      );
      assert.deepEqual(
        firstApi.lines.map((l: Record<string, any>) => [l.currency, l.title_group, l.rate, l.rate_date]),
        [
          ['EUR', 'prov_a', '0.8512', isoDay(Date.parse(lastDay) - DAY_MS)],
          ['EUR', 'prov_c', '0.8512', isoDay(Date.parse(lastDay) - DAY_MS)],
          ['USD', 'prov_a', '1.2534', lastDay],
        ],
      );
      assert.equal(firstApi.lines[0].round_set_hash, sha('prt_r1'));
      assert.equal(await hook(page, 'amount-due').textContent(), shown(firstApi.amount_due_minor, 'GBP'));
      assert.equal(await hook(page, 'total-ggr').textContent(), shown(firstApi.ggr_billing_minor, 'GBP'));
      assert.ok(await hook(page, 'credited').isVisible());
      assert.deepEqual(
        (await tableRows(page, 'credit-notes')).map((r) => r.slice(0, 3)),
        [[note, 'EUR rate corrected', shown(-BigInt(firstApi.amount_due_minor), 'GBP')]],
      );
      if (phone) await noSidewaysScroll(page, 'invoice');
      await accessible(page);
      await page.screenshot({ path: shot('invoice'), fullPage: true });
      // Printed: the invoice alone, without the portal's header and sections.
      await page.emulateMedia({ media: 'print' });
      assert.equal(await page.locator('nav.nav').isVisible(), false);
      assert.equal(await page.locator('header.top').isVisible(), false);
      assert.ok(await hook(page, 'invoice-lines').isVisible());
      if (!phone) {
        const pdf = await page.pdf({ format: 'A4' });
        assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
      }
      await page.emulateMedia({ media: 'screen' });
      // The credit note, against its invoice.
      await page.locator('[data-testid="credit-notes"]').getByRole('link', { name: note }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/invoices/${note}`);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), `Credit note ${note}`);
      assert.match(
        (await hook(page, 'reverses').textContent()) ?? '',
        new RegExp(`${first}.*EUR rate corrected`),
      );

      // ── Exchange rates: the ones the invoices used ──
      await page.getByRole('link', { name: 'Exchange rates', exact: true }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/exchange-rates`);
      const used = await page
        .locator('[data-testid="rates"] tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [
            tr.getAttribute('data-currency'),
            tr.getAttribute('data-rate'),
            tr.getAttribute('data-source'),
          ]),
        );
      const expected = new Map<string, string[]>();
      for (const inv of invoices)
        for (const l of inv.lines)
          if (l.rate_direction !== 'identity')
            expected.set(`${l.currency}|${l.rate}`, [l.currency, l.rate, l.rate_source]);
      assert.deepEqual(
        used.map((u) => u.join('|')).sort(),
        [...expected.values()].map((u) => u.join('|')).sort(),
      );
      assert.equal(used.length, 3);
      if (phone) await noSidewaysScroll(page, 'exchange rates');
      await accessible(page);
      await page.screenshot({ path: shot('exchange-rates'), fullPage: true });

      if (watch.prefetchMisses.length > 0)
        t.diagnostic(`prefetches answered 4xx/5xx: ${watch.prefetchMisses.join(', ')}`);
      assert.deepEqual(watch.problems, []);
    } finally {
      await context.close();
    }
  }
});
