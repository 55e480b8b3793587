import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '@opi/config';
import { RECONCILIATION_CSV_HEADER } from '@opi/contract';
import { checkReplayLink } from '@opi/signing';
import { ADMIN_KEY, call, GAME_BASE_URL, TEST_REPLAY_KEYS } from '@opi/testkit/harness';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { watchPage } from './test-support/page-problems.js';
import { PORTAL_DIR, type Portal, startPortal } from './test-support/portal.js';
import { OP_A, OP_B, slot, staffCall, startWorld, type World } from './test-support/world.js';

// The staff portal in a real browser (Debian's chromium through playwright-core) against its
// production build (`next build`, made by the test runner) served by portal/server.mjs
// (test-support/portal.ts), reading through the real API (Temporal worker, sandbox wallet over
// HTTP) after real rounds were played. Every page is visited, filtered and drilled into, on a
// laptop and a phone; each page's screenshot is kept under portal/test-artifacts/.
const ARTIFACTS = path.join(PORTAL_DIR, 'test-artifacts');
const CHROMIUM = process.env.OPI_TEST_CHROMIUM ?? DEFAULT_CHROMIUM;
const DESKTOP = { viewport: { width: 1280, height: 860 } };
const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  userAgent:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36',
};

let w: World;
let portal: Portal | undefined;
/** The portal as production runs it (PORTAL_PUBLIC_URL an https origin), started by its own test. */
let secondPortal: Portal | undefined;
let origin = '';
let browser: Browser;
const played = {
  eurSession: '',
  eurPlayer: '',
  eurRounds: [] as string[],
  rejected: '',
  mines: '',
};
before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  w = await startWorld();
  // Real rounds: slot spins in two currencies, a refused debit, a Mines round with its stages.
  const eur = await w.player('EUR', 100_000);
  played.eurSession = eur.sessionId;
  played.eurPlayer = eur.ext;
  for (let i = 0; i < 6; i++) played.eurRounds.push((await w.spin(eur.token, 100 + 10 * i)).round_id);
  const usd = await w.player('USD', 10_000);
  for (let i = 0; i < 3; i++) await w.spin(usd.token, 200);
  const poor = await w.player('EUR', 50);
  const refused = await w.spin(poor.token, 100);
  assert.equal(refused.status, 'rejected');
  played.rejected = refused.round_id;
  played.mines = (await w.minesRound()).roundId;

  portal = await startPortal({ api: w.h.base });
  origin = portal.origin;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
});

after(async () => {
  await browser?.close();
  await Promise.all([portal?.stop(), secondPortal?.stop()]);
  await w?.close();
});

// ── helpers ───────────────────────────────────────────────────────────────────────────────────

interface Opened {
  context: BrowserContext;
  page: Page;
  /** What went wrong on the page so far (test-support/page-problems.ts). */
  readonly problems: string[];
}

async function open(device: typeof DESKTOP | typeof PHONE = DESKTOP): Promise<Opened> {
  const context = await browser.newContext({ ...device, acceptDownloads: true });
  const page = await context.newPage();
  const watch = watchPage(page);
  return {
    context,
    page,
    get problems() {
      return watch.problems;
    },
  };
}

async function login(page: Page, username: string, password: string) {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((u) => u.href !== `${origin}/login`);
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

/**
 * Accessibility basics on the current page: the document has a language and one h1; every form
 * control has a label; every image has alt text; the skip link is the first Tab stop and moves
 * focus into main; and text keeps a 4.5:1 contrast against its background.
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

async function keyboardSkip(page: Page) {
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate('document.activeElement.textContent'), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.match(page.url(), /#main$/);
}

async function noSideScroll(page: Page) {
  const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
  const viewport = page.viewportSize()!.width;
  const wide = await page.evaluate(
    `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > ${viewport} + 0.5 && !e.closest('.table-wrap')).slice(0, 3).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`,
  );
  assert.ok(
    width <= viewport,
    `${page.url()}: no sideways scrolling (${width} > ${viewport}): ${JSON.stringify(wide)}`,
  );
}

const op = (p: string) => `${origin}/o/${OP_A}${p}`;

/** Presses Tab (nothing else) until the focused element matches `selector`; fails after `max` presses. */
async function tabTo(page: Page, selector: string, max = 60) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`!!document.activeElement?.matches(${JSON.stringify(selector)})`)) return;
  }
  const at = await page.evaluate('document.activeElement?.outerHTML.slice(0, 120)');
  assert.fail(`${page.url()}: ${selector} not reached with ${max} Tabs (focus on ${String(at)})`);
}

/**
 * The focused element shows where focus is: it matches :focus-visible and draws an outline (or a
 * box-shadow ring) whose colour has at least 3:1 contrast against what is behind it (WCAG 1.4.11).
 */
async function focusVisible(page: Page, selector: string) {
  const f = (await page.evaluate(`(() => {
    const el = document.activeElement;
    const s = getComputedStyle(el);
    const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null; const p = m[1].split(',').map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
    const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
    // The outline is drawn outside the element: what is behind it is its parent's background.
    const bgOf = (e) => { for (; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0.5) return c; } return { r: 255, g: 255, b: 255, a: 1 }; };
    const ring = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2 ? parse(s.outlineColor) : s.boxShadow !== 'none' ? parse(s.boxShadow) : null;
    const [a, b] = ring ? [lum(ring), lum(bgOf(el.parentElement))].sort((x, y) => y - x) : [0, 0];
    return {
      matches: el.matches(${JSON.stringify(selector)}),
      focusVisible: el.matches(':focus-visible'),
      outline: s.outlineStyle + ' ' + s.outlineWidth + ' ' + s.outlineColor,
      boxShadow: s.boxShadow,
      ring: !!ring,
      contrast: ring ? (a + 0.05) / (b + 0.05) : 0,
    };
  })()`)) as {
    matches: boolean;
    focusVisible: boolean;
    outline: string;
    boxShadow: string;
    ring: boolean;
    contrast: number;
  };
  const what = `${page.url()} ${selector}`;
  assert.ok(f.matches, `${what}: focused`);
  assert.ok(f.focusVisible, `${what}: :focus-visible`);
  assert.ok(f.ring, `${what}: an outline or ring is drawn (${f.outline}; ${f.boxShadow})`);
  assert.ok(f.contrast >= 3, `${what}: focus ring contrast ${f.contrast.toFixed(2)} < 3 (${f.outline})`);
}

/** The login form POSTed as a browser on `from` would (its Origin), not following the redirect. */
function formLogin(at: string, from: string, who: { username: string; password: string }, headers = {}) {
  return fetch(`${at}/auth/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: from, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ username: who.username, password: who.password }).toString(),
  });
}

interface SetCookie {
  line: string;
  name: string;
  value: string;
  /** Attribute names lower-cased; flags have ''. */
  attrs: Map<string, string>;
}

function setCookies(res: Response): SetCookie[] {
  return res.headers.getSetCookie().map((line) => {
    const [pair = '', ...attrs] = line.split(/;\s*/);
    const eq = pair.indexOf('=');
    return {
      line,
      name: pair.slice(0, eq),
      value: decodeURIComponent(pair.slice(eq + 1)),
      attrs: new Map(
        attrs.map((a): [string, string] => {
          const i = a.indexOf('=');
          return i < 0 ? [a.toLowerCase(), ''] : [a.slice(0, i).toLowerCase(), a.slice(i + 1)];
        }),
      ),
    };
  });
}

/** The session cookie a login set: exactly one, HttpOnly, SameSite=Strict, Path=/, no Domain, 12 hours. */
function sessionCookieOf(res: Response, name: string, secure: boolean): string {
  const cookies = setCookies(res);
  assert.deepEqual(
    cookies.map((c) => c.name),
    [name],
    cookies.map((c) => c.line).join(' | '),
  );
  const c = cookies[0]!;
  assert.match(c.value, /^stf_[A-Za-z0-9_-]{43}$/);
  assert.equal(c.attrs.get('path'), '/', c.line);
  assert.equal(c.attrs.has('httponly'), true, c.line);
  assert.equal(c.attrs.get('samesite')?.toLowerCase(), 'strict', c.line);
  assert.equal(c.attrs.get('max-age'), String(12 * 3600), c.line);
  assert.equal(c.attrs.has('domain'), false, `${c.line}: no Domain`);
  assert.equal(c.attrs.has('secure'), secure, `${c.line}: Secure ${secure ? 'required' : 'not expected'}`);
  return c.value;
}

// ── tests ─────────────────────────────────────────────────────────────────────────────────────

describe('staff portal', () => {
  test('login: a wrong password is refused and said so; the session cookie is httpOnly and SameSite=Strict', async () => {
    const o = await open();
    try {
      await login(o.page, w.staff.provider.username, 'not-the-password-at-all');
      assert.match(o.page.url(), /\/login\?error=invalid$/);
      assert.equal((await hook(o.page, 'login-error').textContent())?.trim(), 'Wrong username or password.');
      await accessible(o.page);
      await keyboardSkip(o.page);
      await shot(o.page, '01-login-error');
      await login(o.page, w.staff.provider.username, w.staff.provider.password);
      assert.equal(o.page.url(), `${origin}/`, 'provider staff choose among every operator');
      const cookie = (await o.context.cookies()).find((c) => c.name === 'opi_staff');
      assert.ok(cookie, 'the session cookie is set');
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Strict');
      assert.equal(await o.page.evaluate('document.cookie'), '', 'script cannot read it');
      await shot(o.page, '02-operators');
      await accessible(o.page);
      await o.page.getByRole('link', { name: OP_B }).waitFor();
      await o.page.getByRole('link', { name: OP_A }).click();
      await o.page.waitForURL(op(''));
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });

  test('every page on a laptop: overview, catalog, sessions, a session, rounds, a round, reconciliation, stuck, wallet, audit', async () => {
    const o = await open();
    const { page } = o;
    try {
      await login(page, w.staff.provider.username, w.staff.provider.password);
      await page.goto(op(''));
      assert.equal(await page.locator('h1').textContent(), `Staff Casino A (${OP_A})`);
      await hook(page, 'bet-win-EUR').waitFor();
      await hook(page, 'bet-win-USD').waitFor();
      assert.ok(
        (await page.locator('figure svg[role="img"]').count()) >= 3,
        'bet/win per currency and RTP charts',
      );
      await hook(page, 'rtp-chart').waitFor();
      await accessible(page);
      await shot(page, '03-overview');

      // Catalog: filters by status and family; blockers in words.
      await page.goto(op('/catalog'));
      assert.equal(await hook(page, 'catalog-item').count(), 3);
      await page.getByLabel('Status').selectOption('blocked');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=blocked/);
      const blocked = hook(page, 'catalog-item');
      assert.equal(await blocked.count(), 1);
      assert.equal(await blocked.first().getAttribute('data-symbol'), 'cnhilo');
      assert.match(
        (await hook(page, 'blockers').first().textContent()) ?? '',
        /operator-wallet transport is not available/,
      );
      await shot(page, '04-catalog-blocked');
      await page.getByLabel('Status').selectOption('');
      await page.getByLabel('Family').selectOption('video-slot');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/family=video-slot/);
      assert.equal(await hook(page, 'catalog-item').count(), 1);
      const img = page.locator('[data-testid="catalog-item"] img').first();
      await img.waitFor();
      await w.until(
        'the artwork to load',
        () => img.evaluate((el: any) => el.complete && el.naturalWidth > 0),
        10_000,
      );
      await accessible(page);
      await shot(page, '05-catalog');

      // Sessions: search by player, drill into the session, then a round.
      await page.goto(op('/sessions'));
      assert.ok((await page.locator('[data-testid="sessions-table"] tbody tr').count()) >= 4);
      await page.getByLabel('Player (external id)').fill(played.eurPlayer);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/player_id=/);
      const rows = page.locator('[data-testid="sessions-table"] tbody tr');
      assert.equal(await rows.count(), 1);
      await accessible(page);
      await shot(page, '06-sessions');
      await rows.first().getByRole('link').click();
      await page.waitForURL(new RegExp(`/sessions/${played.eurSession}$`));
      assert.equal(await page.locator('[data-testid="session-rounds"] tbody tr').count(), 6);
      await accessible(page);
      await shot(page, '07-session');
      await page.getByRole('link', { name: played.eurRounds[0]! }).click();
      await page.waitForURL(new RegExp(`/rounds/${played.eurRounds[0]}$`));
      const tx = page.locator('[data-testid="transactions-table"] tbody tr');
      assert.deepEqual(await tx.evaluateAll((trs) => trs.map((t) => t.getAttribute('data-type'))), [
        'debit',
        'credit',
      ]);
      await hook(page, 'timeline').locator('svg.chart').waitFor();
      // Issue 26: a Replay link to the round's stable, signed replay page on the game origin.
      const replay = page.getByRole('link', { name: 'Replay', exact: true });
      assert.equal(await replay.getAttribute('data-testid'), 'replay-link');
      const href = (await replay.getAttribute('href')) ?? '';
      assert.ok(href.startsWith(`${GAME_BASE_URL}/replay/${played.eurRounds[0]}?k=`), href);
      const link = new URL(href);
      assert.deepEqual(
        checkReplayLink(TEST_REPLAY_KEYS, played.eurRounds[0], {
          k: link.searchParams.get('k'),
          sig: link.searchParams.get('sig'),
        }),
        {
          ok: true,
          kind: 'details',
          roundId: played.eurRounds[0],
          keyId: TEST_REPLAY_KEYS.current.kid,
          issuedAt: null,
          expiresAt: null,
        },
      );
      await accessible(page);
      await shot(page, '08-round');

      // Rounds: search by currency and status.
      await page.goto(op('/rounds'));
      await page.getByLabel('Currency').selectOption('USD');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/currency=USD/);
      assert.equal(await page.locator('[data-testid="rounds-table"] tbody tr').count(), 3);
      await page.getByLabel('Currency').selectOption('');
      await page.getByLabel('Status').selectOption('rejected');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/status=rejected/);
      const rejected = page.locator('[data-testid="rounds-table"] tbody tr');
      assert.equal(await rejected.count(), 1);
      assert.match((await rejected.first().textContent()) ?? '', new RegExp(played.rejected));
      await accessible(page);
      await shot(page, '09-rounds');

      // A native round: its stages replayed one by one.
      await page.goto(op(`/rounds/${played.mines}`));
      const current = hook(page, 'stage-current');
      assert.equal(await current.getAttribute('data-seq'), '3', 'the last stage (cash-out) first');
      assert.deepEqual(await page.locator('ol.stages a').allTextContents(), [
        '0: bet',
        '1: reveal',
        '2: reveal',
        '3: cashout',
      ]);
      await shot(page, '10-round-stages');
      await hook(page, 'stage-prev').click();
      await page.waitForURL(/stage=2/);
      assert.equal(await hook(page, 'stage-current').getAttribute('data-seq'), '2');
      await page.getByRole('link', { name: '0: bet' }).click();
      await page.waitForURL(/stage=0/);
      assert.equal(await hook(page, 'stage-current').getAttribute('data-seq'), '0');
      assert.equal(await hook(page, 'stage-prev').count(), 0);
      await hook(page, 'stage-next').click();
      await page.waitForURL(/stage=1/);
      assert.match((await hook(page, 'stage-current').textContent()) ?? '', /reveal/);
      await accessible(page);
      await shot(page, '11-round-stage-replay');

      // Stuck settlements, wallet diagnostics and the audit log (exercised in their own tests).
      for (const [p, name] of [
        ['/stuck', '12-stuck'],
        ['/wallet', '13-wallet'],
        ['/audit', '14-audit'],
      ] as const) {
        await page.goto(op(p));
        await accessible(page);
        await shot(page, name);
      }
      assert.deepEqual(o.problems, [], 'no script error and no CSP violation');
    } finally {
      await o.context.close();
    }
  });

  test('reconciliation: balanced, window picker, CSV download matches the table, a difference is drilled down to its round', async () => {
    const o = await open();
    const { page } = o;
    try {
      await login(page, w.staff.adminA.username, w.staff.adminA.password);
      assert.equal(page.url(), op(''), 'operator staff with one operator land on it');
      await page.goto(op('/reconciliation'));
      assert.equal(await hook(page, 'balanced').getAttribute('data-balanced'), 'true');
      const table = await page.locator('[data-testid="recon-table"] tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          currency: tr.getAttribute('data-currency'),
          wallet: tr.querySelectorAll('td')[2]?.getAttribute('data-minor'),
          game: tr.querySelectorAll('td')[3]?.getAttribute('data-minor'),
        })),
      );
      assert.deepEqual(
        table.map((t) => t.currency),
        ['EUR', 'USD'],
      );
      await accessible(page);
      await shot(page, '15-reconciliation');

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        hook(page, 'csv-download').click(),
      ]);
      assert.equal(download.suggestedFilename(), `reconciliation-${OP_A}.csv`);
      const csv = readFileSync((await download.path())!, 'utf8');
      const lines = csv.split('\r\n').filter(Boolean);
      assert.equal(lines[0], RECONCILIATION_CSV_HEADER.join(','));
      assert.deepEqual(
        lines.slice(1).map((l) => {
          const f = l.split(',');
          return { currency: f[0], wallet: f[3], game: f[4], balanced: f[7] };
        }),
        table.map((t) => ({ currency: t.currency, wallet: t.wallet, game: t.game, balanced: 'true' })),
      );

      // The window picker: a window in the future holds nothing; one currency only.
      await page.getByLabel('From (UTC)').fill('2999-01-01T00:00');
      await page.getByRole('button', { name: 'Reconcile' }).click();
      await page.waitForURL(/from=2999/);
      assert.match(
        (await page.locator('[data-testid="recon-table"] tbody').textContent()) ?? '',
        /No rounds/,
      );
      await page.getByRole('link', { name: 'All time' }).click();
      await page.waitForURL(op('/reconciliation?all=1'));
      await page.getByLabel('Currency').selectOption('USD');
      await page.getByRole('button', { name: 'Reconcile' }).click();
      await page.waitForURL(/currency=USD/);
      assert.equal(await page.locator('[data-testid="recon-table"] tbody tr').count(), 1);
      const [usdCsv] = await Promise.all([page.waitForEvent('download'), hook(page, 'csv-download').click()]);
      const usdLines = readFileSync((await usdCsv.path())!, 'utf8')
        .split('\r\n')
        .filter(Boolean);
      assert.equal(usdLines.length, 2);
      assert.match(usdLines[1]!, /^USD,3,/);

      // A difference: the history says a round won 50 more than its credit paid.
      const roundId = played.eurRounds[2]!;
      await w.h.db.pool.query(`UPDATE rounds SET win_minor = win_minor + 50 WHERE round_id = $1`, [roundId]);
      try {
        await page.goto(op('/reconciliation'));
        assert.equal(await hook(page, 'balanced').getAttribute('data-balanced'), 'false');
        const items = page.locator('[data-testid="recon-items"] tbody tr');
        assert.equal(await items.count(), 1);
        assert.match((await items.first().textContent()) ?? '', /−0\.50 EUR/);
        await hook(page, 'diff-chart').locator('svg.chart').first().waitFor();
        await accessible(page);
        await shot(page, '16-reconciliation-difference');
        await items.first().getByRole('link').click();
        await page.waitForURL(new RegExp(`/rounds/${roundId}$`));
        assert.equal(await page.locator('[data-testid="transactions-table"] tbody tr').count(), 2);
      } finally {
        await w.h.db.pool.query(`UPDATE rounds SET win_minor = win_minor - 50 WHERE round_id = $1`, [
          roundId,
        ]);
      }
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });

  test('wallet diagnostics: every check passes against the sandbox wallet; a wrong secret fails and the failure is shown', async () => {
    const o = await open();
    const { page } = o;
    try {
      await login(page, w.staff.provider.username, w.staff.provider.password);
      await w.admin.createPlayer({
        operatorId: OP_A,
        playerId: `${OP_A}-diagnostics`,
        currency: 'EUR',
        balanceMinor: 10_000,
      });
      await page.goto(op('/wallet'));
      await hook(page, 'run-diagnostics').click();
      await page.waitForURL(/\/wallet\?run=\d+$/);
      const result = hook(page, 'diagnostics-result');
      assert.equal(await result.getAttribute('data-passed'), 'true');
      const checks = await page
        .locator('[data-testid="checks"] tbody tr')
        .evaluateAll((trs) => trs.map((t) => [t.getAttribute('data-check'), t.getAttribute('data-status')]));
      assert.deepEqual(checks, [
        ['signature', 'passed'],
        ['balance', 'passed'],
        ['debit', 'passed'],
        ['duplicate', 'passed'],
        ['credit', 'passed'],
        ['cancel', 'passed'],
        ['rollback', 'passed'],
        ['insufficient_funds', 'passed'],
        // No protection test player is named for OP_A: shown as not configured, with how to set it.
        ['protection_refusal', 'not_configured'],
        ['promo_win', 'passed'],
      ]);
      const protection = page.locator('[data-testid="checks"] tr[data-check="protection_refusal"]');
      assert.match(
        (await protection.textContent()) ?? '',
        /not configured.*diagnostics_protection_player_id/,
      );
      assert.ok(!(await page.content()).includes('wsec_'), 'no wallet secret on the page');
      await accessible(page);
      await shot(page, '17-wallet-passed');

      await w.admin.createPlayer({
        operatorId: OP_B,
        playerId: `${OP_B}-diagnostics`,
        currency: 'EUR',
        balanceMinor: 10_000,
      });
      await page.goto(`${origin}/o/${OP_B}/wallet`);
      await hook(page, 'run-diagnostics').click();
      await page.waitForURL(/\/wallet\?run=\d+$/);
      assert.equal(await hook(page, 'diagnostics-result').getAttribute('data-passed'), 'false');
      const balance = page.locator('[data-testid="checks"] tr[data-check="balance"]');
      assert.equal(await balance.getAttribute('data-passed'), 'false');
      assert.match((await balance.textContent()) ?? '', /refused our signature.*does not match/);
      assert.match((await page.locator('[role="status"]').first().textContent()) ?? '', /checks failed/);
      await accessible(page);
      await shot(page, '18-wallet-wrong-secret');
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });

  test('stuck settlements: an admin cancels through the workflow; the action is in the audit log', async () => {
    const p = await w.player('EUR', 20_000);
    const roundId = await w.stuckRound(p.sessionId, p.ext, 'EUR');
    const o = await open();
    const { page } = o;
    try {
      await login(page, w.staff.adminA.username, w.staff.adminA.password);
      await page.goto(op('/stuck'));
      const card = page.locator(`[data-round="${roundId}"]`);
      await card.getByLabel('Reason (kept in the audit log)').fill('wallet outage, player asked');
      await card.getByRole('button', { name: 'Cancel this round' }).click();
      await page.waitForURL(/\/stuck\?action=\d+$/);
      const banner = hook(page, 'cancel-result');
      assert.equal(await banner.getAttribute('data-result'), 'accepted');
      assert.match((await banner.textContent()) ?? '', new RegExp(roundId));
      await shot(page, '19-stuck-cancel-accepted');
      const log = page.locator('[data-testid="cancel-log"] tbody tr').first();
      assert.match((await log.textContent()) ?? '', /alice.*wallet outage, player asked.*accepted/);

      // The workflow applies it once the debit's outcome is known: let the wallet answer again.
      await w.until(
        'the workflow to take the signal',
        async () => {
          const events = (await w.client.workflow.getHandle(roundId).fetchHistory()).events ?? [];
          const i = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes);
          return i >= 0 && events.slice(i).some((e) => e.workflowTaskCompletedEventAttributes);
        },
        60_000,
      );
      await w.admin.setFaults({});
      await w.until('the round cancelled', async () => {
        const { rows } = await w.h.db.pool.query('SELECT status FROM rounds WHERE round_id = $1', [roundId]);
        return rows[0]?.status === 'cancelled';
      });
      await page.goto(op('/stuck'));
      assert.equal(await page.locator(`[data-round="${roundId}"]`).count(), 0);
      await page.goto(op(`/rounds/${roundId}`));
      assert.deepEqual(
        await page
          .locator('[data-testid="transactions-table"] tbody tr')
          .evaluateAll((trs) => trs.map((t) => t.getAttribute('data-type'))),
        ['debit', 'cancel'],
      );
      await shot(page, '20-round-cancelled');
      await page.goto(op('/audit'));
      const first = page.locator('[data-testid="audit-table"] tbody tr').first();
      assert.match(
        (await first.textContent()) ?? '',
        new RegExp(`alice.*round\\.cancel.*${roundId}.*accepted`),
      );
      await shot(page, '21-audit-log');
      assert.deepEqual(o.problems, []);
    } finally {
      await w.admin.setFaults({});
      await o.context.close();
    }
  });

  test('a viewer reads but cannot act, and sees nothing of another operator', async () => {
    const o = await open();
    const { page } = o;
    try {
      await login(page, w.staff.viewerA.username, w.staff.viewerA.password);
      await page.goto(op('/wallet'));
      assert.equal(await hook(page, 'run-diagnostics').isDisabled(), true);
      await page.goto(op('/stuck'));
      await page.goto(`${origin}/o/${OP_B}/rounds`);
      assert.match((await hook(page, 'problem').textContent()) ?? '', /No access/);
      await page.goto(`${origin}/o/${OP_B}/rounds/${played.eurRounds[0]}`);
      assert.match((await hook(page, 'problem').textContent()) ?? '', /No access/);
      await shot(page, '22-viewer-no-access');
      // A forged cancel from the viewer's own session: the API refuses the role.
      const res = await page.evaluate(
        `fetch('/o/${OP_A}/stuck/cancel', { method: 'POST', body: new URLSearchParams({ round_id: '${played.eurRounds[0]}', reason: 'not mine' }), redirect: 'manual' }).then((r) => r.status)`,
      );
      assert.ok([0, 303].includes(Number(res)));
      const { rows } = await w.h.db.pool.query(
        `SELECT count(*)::int AS n FROM staff_audit_log WHERE username = 'victor' AND action = 'round.cancel'`,
      );
      assert.equal(rows[0].n, 0, 'refused before anything ran');
    } finally {
      await o.context.close();
    }
  });

  test('on a phone: login, every section fits the screen; logout ends the session', async () => {
    const o = await open(PHONE);
    const { page } = o;
    try {
      await login(page, w.staff.adminA.username, w.staff.adminA.password);
      for (const [p, name] of [
        ['', 'overview'],
        ['/catalog', 'catalog'],
        ['/sessions', 'sessions'],
        [`/sessions/${played.eurSession}`, 'session'],
        ['/rounds', 'rounds'],
        [`/rounds/${played.mines}`, 'round'],
        ['/reconciliation', 'reconciliation'],
        ['/stuck', 'stuck'],
        ['/wallet', 'wallet'],
        ['/audit', 'audit'],
      ] as const) {
        await page.goto(op(p));
        await noSideScroll(page);
        await shot(page, `phone-${name}`);
      }
      const box = await page.getByRole('link', { name: 'Reconciliation' }).boundingBox();
      assert.ok(box && box.height >= 44, 'touch-sized navigation');
      await page.getByRole('button', { name: 'Log out' }).tap();
      await page.waitForURL(/\/login\?bye=1$/);
      await page.goto(op('/rounds'));
      await page.waitForURL(/\/login/);
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });

  test('CSRF: a POST from another origin, or with no origin at all, is refused', async () => {
    const o = await open();
    try {
      await login(o.page, w.staff.adminA.username, w.staff.adminA.password);
      const cookie = (await o.context.cookies()).find((c) => c.name === 'opi_staff')!;
      const headers = {
        cookie: `opi_staff=${cookie.value}`,
        'content-type': 'application/x-www-form-urlencoded',
      };
      const body = `round_id=${played.eurRounds[0]}&reason=forged`;
      for (const extra of [
        { origin: 'https://evil.example' },
        {},
        { origin, 'sec-fetch-site': 'cross-site' },
      ] as Record<string, string>[]) {
        const res = await fetch(`${origin}/o/${OP_A}/stuck/cancel`, {
          method: 'POST',
          headers: { ...headers, ...extra },
          body,
          redirect: 'manual',
        });
        assert.equal(res.status, 403, JSON.stringify(extra));
      }
      const logout = await fetch(`${origin}/auth/logout`, {
        method: 'POST',
        headers: { ...headers, origin: 'https://evil.example' },
        redirect: 'manual',
      });
      assert.equal(logout.status, 403);
      const same = await fetch(`${origin}/o/${OP_A}/stuck/cancel`, {
        method: 'POST',
        headers: { ...headers, origin },
        body,
        redirect: 'manual',
      });
      assert.equal(same.status, 303, 'the same origin is let through to the API');
      const { rows } = await w.h.db.pool.query(
        `SELECT count(*)::int AS n FROM staff_audit_log WHERE detail->>'reason' = 'forged'`,
      );
      assert.equal(rows[0].n, 1, 'only the same-origin POST reached the API');
      const csp = (await fetch(`${origin}/login`)).headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
      assert.match(csp, /frame-ancestors 'none'/);
    } finally {
      await o.context.close();
    }
  });

  test('login attempts are rate limited through the portal (the browser address is forwarded)', async () => {
    const o = await open();
    try {
      const name = `locked-${randomUUID().slice(0, 6)}`;
      for (let i = 0; i < 6; i++) await login(o.page, name, 'wrong-password-123');
      assert.match(o.page.url(), /error=locked/);
      assert.match((await hook(o.page, 'login-error').textContent()) ?? '', /Too many login attempts/);
      await shot(o.page, '23-login-locked');
      const { rows } = await w.h.db.pool.query(
        `SELECT client_ip FROM staff_audit_log WHERE username = $1 AND result = 'rate_limited'`,
        [name],
      );
      assert.equal(rows[0].client_ip, '127.0.0.1');
    } finally {
      await o.context.close();
    }
  });

  test('keyboard only after login: the sections, the sessions filters (game, then status) and the reconciliation filter, focus always visible', async () => {
    // A revoked session to find by status (the Mines session from before() is the only one of its game).
    const gone = await w.player('EUR', 1_000);
    const revoked = await call(w.h.base, 'POST', `/api/admin/v1/sessions/${gone.sessionId}/revoke`, {
      key: ADMIN_KEY,
      sign: true,
      body: { reason: 'keyboard test' },
    });
    assert.equal(revoked.status, 200, revoked.text);
    const o = await open();
    const { page } = o;
    try {
      await login(page, w.staff.adminA.username, w.staff.adminA.password);
      assert.equal(page.url(), op(''));
      const sections = 'nav[aria-label="Sections"] a';

      // From the top of the overview: the skip link first, then on through the header to the sections.
      await page.keyboard.press('Tab');
      await focusVisible(page, 'a.skip');
      await tabTo(page, `${sections}[href="/o/${OP_A}/catalog"]`);
      await focusVisible(page, `${sections}[href="/o/${OP_A}/catalog"]`);
      await page.keyboard.press('Tab');
      await focusVisible(page, `${sections}[href="/o/${OP_A}/sessions"]`);
      await page.keyboard.press('Enter');
      await page.waitForURL(op('/sessions'));
      await page.locator(`${sections}[aria-current="page"]`, { hasText: 'Sessions' }).waitFor();
      const rows = page.locator('[data-testid="sessions-table"] tbody tr');
      const total = await rows.count();
      assert.ok(total >= 5, `${total} sessions before filtering`);

      // By game: type the symbol into its field, Enter submits the form.
      await tabTo(page, '#game_symbol');
      await focusVisible(page, '#game_symbol');
      await page.keyboard.type('cnmines');
      await page.keyboard.press('Enter');
      await page.waitForURL(/[?&]game_symbol=cnmines/);
      assert.deepEqual(
        await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[2]?.textContent)),
        ['cnmines'],
      );

      // By status: clear the game, pick Revoked in the select by typing, then Enter on Search.
      await tabTo(page, '#game_symbol');
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      await tabTo(page, '#status');
      await focusVisible(page, '#status');
      await page.keyboard.type('Revoked');
      assert.equal(await page.locator('#status').inputValue(), 'revoked');
      await tabTo(page, 'form[aria-label="Search sessions"] button[type="submit"]');
      await focusVisible(page, 'form[aria-label="Search sessions"] button[type="submit"]');
      await page.keyboard.press('Enter');
      await page.waitForURL(/[?&]status=revoked/);
      assert.match(page.url(), /[?&]game_symbol=(&|$)/, 'the game filter was cleared');
      const found = await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
      );
      assert.deepEqual(
        found.map((cells) => [cells[0], cells[2], cells[4]]),
        [[gone.sessionId, slot.symbol, 'revoked']],
      );
      await shot(page, '24-sessions-keyboard-revoked');

      // On to Reconciliation through the sections; one currency, submitted with Enter on the button.
      await tabTo(page, `${sections}[href="/o/${OP_A}/reconciliation"]`);
      await focusVisible(page, `${sections}[href="/o/${OP_A}/reconciliation"]`);
      await page.keyboard.press('Enter');
      await page.waitForURL(op('/reconciliation'));
      assert.equal(await page.locator('[data-testid="recon-table"] tbody tr').count(), 2);
      await tabTo(page, '#currency');
      await focusVisible(page, '#currency');
      await page.keyboard.type('USD');
      assert.equal(await page.locator('#currency').inputValue(), 'USD');
      await tabTo(page, 'form[aria-label="Reconciliation window"] button[type="submit"]');
      await focusVisible(page, 'form[aria-label="Reconciliation window"] button[type="submit"]');
      await page.keyboard.press('Enter');
      await page.waitForURL(/[?&]currency=USD/);
      assert.deepEqual(
        await page
          .locator('[data-testid="recon-table"] tbody tr')
          .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-currency'))),
        ['USD'],
      );
      // The header's controls sit on the dark bar: their focus shows there too.
      await tabTo(page, '#operator-picker');
      await focusVisible(page, '#operator-picker');
      await tabTo(page, '[data-testid="logout"]');
      await focusVisible(page, '[data-testid="logout"]');
      await shot(page, '25-reconciliation-keyboard');
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });

  test('session cookie over plain HTTP: opi_staff, HttpOnly, SameSite=Strict, Path=/, not Secure, no __Host- prefix', async () => {
    const res = await formLogin(origin, origin, w.staff.viewerA);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), `${origin}/`);
    const token = sessionCookieOf(res, 'opi_staff', false);
    assert.equal(
      (await staffCall(w.h.base, token, 'GET', '/me')).status,
      200,
      'the cookie holds a live session',
    );
  });

  test('session cookie behind a TLS proxy (X-Forwarded-Proto: https): __Host-opi_staff, Secure; logout drops it as Secure too', async () => {
    const https = origin.replace(/^http:/, 'https:');
    const proxied = { 'x-forwarded-proto': 'https' };
    // The page's origin is now https: a POST claiming the plain one is cross-site.
    assert.equal((await formLogin(origin, origin, w.staff.viewerA, proxied)).status, 403);
    const res = await formLogin(origin, https, w.staff.viewerA, proxied);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), `${https}/`);
    const token = sessionCookieOf(res, '__Host-opi_staff', true);
    assert.match(
      setCookies(res)[0]!.line,
      /^__Host-opi_staff=stf_[^;]+; Path=\/; .*Secure; HttpOnly; SameSite=strict$/,
    );
    assert.equal((await staffCall(w.h.base, token, 'GET', '/me')).status, 200);

    const out = await fetch(`${origin}/auth/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: https, cookie: `__Host-opi_staff=${token}`, ...proxied },
    });
    assert.equal(out.status, 303);
    assert.equal(out.headers.get('location'), `${https}/login?bye=1`);
    assert.equal(
      (await staffCall(w.h.base, token, 'GET', '/me')).status,
      401,
      'the session ended at the API',
    );
    const dropped = new Map(setCookies(out).map((c) => [c.name, c]));
    const host = dropped.get('__Host-opi_staff');
    assert.ok(host, 'the __Host- cookie is dropped');
    // Without Secure a browser refuses any __Host- cookie, its removal too: the cookie would stay.
    assert.equal(host.attrs.has('secure'), true, `${host.line}: a __Host- removal needs Secure`);
    assert.equal(host.attrs.get('path'), '/', host.line);
    assert.equal(host.value, '');
    assert.equal(host.attrs.get('max-age'), '0', host.line);
    assert.equal(host.attrs.has('domain'), false, host.line);
    assert.ok(dropped.has('opi_staff'), 'the plain name is dropped as well');
  });

  test('session cookie with the production setting (PORTAL_PUBLIC_URL https): __Host-opi_staff, Secure, whatever the request scheme', async () => {
    const publicUrl = 'https://staff.example.test';
    const started = await startPortal({ api: w.h.base, publicUrl });
    secondPortal = started;
    try {
      const res = await formLogin(started.origin, publicUrl, w.staff.viewerA, {
        'x-forwarded-proto': 'http',
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), `${publicUrl}/`);
      const token = sessionCookieOf(res, '__Host-opi_staff', true);
      assert.equal((await staffCall(w.h.base, token, 'GET', '/me')).status, 200);
      // Only the configured origin may POST.
      assert.equal((await formLogin(started.origin, started.origin, w.staff.viewerA)).status, 403);
    } finally {
      await started.stop();
      secondPortal = undefined;
    }
  });
});
