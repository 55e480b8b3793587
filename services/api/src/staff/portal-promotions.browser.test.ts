import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '@opi/config';
import { type Browser, chromium, type Page } from 'playwright-core';
import { watchPage } from './test-support/page-problems.js';
import { launchPortal, PORTAL_DIR, type Portal } from './test-support/portal.js';
import { DROP, JACKPOT, LIVE, type Seeded, SHORT, seedPromotions } from './test-support/promotions.js';
import { OP_A, slot, startWorld, type World } from './test-support/world.js';

// The staff portal's Jackpots, Tournaments and Prize drops pages (issue 25) in chromium against the
// portal's production build and the real API, game server, Temporal worker and sandbox wallet
// (test-support/promotions.ts: an always-hitting jackpot, an always-awarding drop, a live and a
// frozen tournament with a rival of another operator). A viewer reads every page on a laptop and a
// phone; a provider admin creates a tournament with the form and cancels it; an operator admin
// sees no form and its forged post is refused by the API.
const ARTIFACTS = path.join(PORTAL_DIR, 'test-artifacts');
const CHROMIUM = process.env.OPI_TEST_CHROMIUM ?? DEFAULT_CHROMIUM;
const DESKTOP = { viewport: { width: 1280, height: 860 } };
const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};

let w: World;
let portal: Portal | undefined;
let origin = '';
let browser: Browser;
let seeded: Seeded;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  w = await startWorld();
  // The portal starts while the promotions are played.
  portal = await launchPortal({ api: w.h.base });
  origin = portal.origin;
  seeded = await seedPromotions(w);
  await portal.ready();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
});

after(async () => {
  await browser?.close();
  await portal?.stop();
  await w?.close();
});

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

async function login(page: Page, username: string, password: string) {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((u) => u.href !== `${origin}/login`);
}

/**
 * One h1, every control labelled, text at a 4.5:1 contrast against its background (as
 * portal.browser.test.ts checks it), and on a phone no sideways scrolling.
 */
async function basics(page: Page, phone: boolean) {
  const facts = (await page.evaluate(`(() => {
    const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null; const p = m[1].split(',').map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
    const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
    const bgOf = (el) => { for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0.5) return c; } return { r: 255, g: 255, b: 255, a: 1 }; };
    const low = [];
    for (const el of document.querySelectorAll('body *')) {
      if (!['P','A','SPAN','TD','TH','LABEL','BUTTON','LI','DT','DD','H1','H2','H3','SUMMARY','CAPTION','STRONG','CODE','LEGEND','DIV'].includes(el.tagName)) continue;
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || el.closest('svg') || el.offsetParent === null) continue;
      const fg = parse(getComputedStyle(el).color); if (!fg) continue;
      const [a, b] = [lum(fg), lum(bgOf(el))].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      if (ratio < 4.5) low.push(el.tagName + ' "' + el.textContent.trim().slice(0, 30) + '" ' + ratio.toFixed(2));
    }
    return {
      h1: document.querySelectorAll('h1').length,
      unlabeled: [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
        .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')).length,
      width: document.documentElement.scrollWidth,
      low: low.slice(0, 5),
    };
  })()`)) as { h1: number; unlabeled: number; width: number; low: string[] };
  assert.equal(facts.h1, 1, `${page.url()}: one h1`);
  assert.equal(facts.unlabeled, 0, `${page.url()}: every control has a label`);
  assert.deepEqual(facts.low, [], `${page.url()}: text contrast at least 4.5:1`);
  if (phone)
    assert.ok(facts.width <= 390, `${page.url()}: no sideways scrolling on a phone (${facts.width} px)`);
}

async function shot(page: Page, phone: boolean, name: string) {
  await page.screenshot({
    path: path.join(ARTIFACTS, `${phone ? 'phone-' : ''}${name}.png`),
    fullPage: true,
  });
}

test('a viewer reads the jackpots, the tournaments and the prize drops (laptop and phone)', async () => {
  for (const device of [DESKTOP, PHONE]) {
    const phone = device === PHONE;
    const context = await browser.newContext(device);
    try {
      const page = await context.newPage();
      const watch = watchPage(page);
      await login(page, w.staff.viewerA.username, w.staff.viewerA.password);
      await page.goto(`${origin}/o/${OP_A}`);

      // Jackpots: the pool now, and the hits with the newest first, linked to their rounds.
      await page.getByRole('link', { name: 'Jackpots', exact: true }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/jackpots`);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Jackpots');
      const mini = page.locator(`[data-jackpot="${JACKPOT}"] tr[data-level="mini"][data-currency="EUR"]`);
      assert.equal(await mini.getAttribute('data-hits'), String(seeded.hitRounds.length));
      const { rows } = await w.h.db.pool.query(
        `SELECT (amount_micros / 1000000)::text AS amount FROM jackpot_pools WHERE jackpot_id = $1 AND level = 'mini'`,
        [JACKPOT],
      );
      assert.equal(await mini.getAttribute('data-amount'), rows[0].amount);
      assert.match((await mini.textContent()) ?? '', /5\.00 EUR/, 'the seed');
      const newest = page.locator('[data-testid="hits-table"] tbody tr').first();
      const hitRound = seeded.hitRounds.at(-1)!;
      assert.equal(await newest.getAttribute('data-round'), hitRound);
      assert.equal(await newest.getAttribute('data-status'), 'paid');
      assert.equal(await newest.getAttribute('data-level'), 'mini');
      assert.match((await newest.textContent()) ?? '', new RegExp(seeded.player));
      await basics(page, phone);
      await shot(page, phone, '30-jackpots');
      await newest.getByRole('link', { name: hitRound }).click();
      await page.waitForURL(new RegExp(`/rounds/${hitRound}$`));
      assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', new RegExp(hitRound));

      // Tournaments: the list, no create form for a viewer.
      await page.getByRole('link', { name: 'Tournaments', exact: true }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/tournaments`);
      const live = page.locator(`[data-testid="tournaments-table"] tr[data-tournament="${LIVE}"]`);
      assert.equal(await live.getAttribute('data-status'), 'running');
      const short = page.locator(`[data-testid="tournaments-table"] tr[data-tournament="${SHORT}"]`);
      assert.ok(['ended', 'paid'].includes((await short.getAttribute('data-status')) ?? ''));
      assert.equal(await hook(page, 'create-section').count(), 0, 'no create form for a viewer');
      await basics(page, phone);
      await shot(page, phone, '31-tournaments');

      // The live leaderboard: the rival by its pseudonym, the operator's own player by id.
      await live.getByRole('link', { name: 'Weekly race' }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/tournaments/${LIVE}`);
      const board = hook(page, 'board-table');
      assert.equal(await board.locator('tr[data-rank="1"]').getAttribute('data-own'), 'false');
      assert.match((await board.locator('tr[data-rank="1"]').textContent()) ?? '', /player-[0-9a-f]{10}/);
      assert.equal(await board.locator('tr[data-rank="2"]').getAttribute('data-player'), seeded.player);
      assert.ok(
        !(await page.content()).includes(seeded.rival),
        "another operator's player id is never shown",
      );
      assert.equal(await hook(page, 'cancel-start').count(), 0, 'no cancel for a viewer');
      await basics(page, phone);
      await shot(page, phone, '32-tournament-live');

      // The frozen one: each prize's payout, the payout id of the operator's own player only.
      await page.goto(`${origin}/o/${OP_A}/tournaments/${SHORT}`);
      const prizes = hook(page, 'prizes-table');
      assert.equal(await prizes.locator('tr[data-rank="1"]').getAttribute('data-payout-status'), 'pending');
      assert.equal(await prizes.locator('tr[data-rank="1"] [data-testid="payout-id"]').count(), 0);
      const own = prizes.locator('tr[data-rank="2"]');
      assert.equal(await own.getAttribute('data-payout-status'), 'paid');
      assert.match(
        (await own.locator('[data-testid="payout-id"]').textContent()) ?? '',
        new RegExp(`^pp_t_${SHORT}_[0-9a-f]{32}$`),
      );
      assert.match((await own.textContent()) ?? '', /10\.00 EUR/);
      assert.match((await page.locator('h2', { hasText: 'Final leaderboard' }).textContent()) ?? '', /EUR/);
      await basics(page, phone);
      await shot(page, phone, '33-tournament-frozen');

      // Prize drops: prizes left of total, and the award with its payout.
      await page.getByRole('link', { name: 'Prize drops', exact: true }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/prize-drops`);
      const drop = page.locator(`[data-testid="drops-table"] tr[data-drop="${DROP}"]`);
      assert.deepEqual(
        [
          await drop.getAttribute('data-state'),
          await drop.getAttribute('data-left'),
          await drop.getAttribute('data-total'),
          await drop.getAttribute('data-awarded'),
        ],
        ['active', '4', '5', '1'],
      );
      await basics(page, phone);
      await shot(page, phone, '34-prize-drops');
      await drop.getByRole('link', { name: 'Staff drop' }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/prize-drops/${DROP}`);
      const award = page.locator(`[data-testid="awards-table"] tr[data-payout="${seeded.dropPayout}"]`);
      assert.equal(await award.getAttribute('data-status'), 'paid');
      assert.match((await award.textContent()) ?? '', /2\.50 EUR/);
      assert.match((await award.textContent()) ?? '', new RegExp(seeded.player));
      await basics(page, phone);
      await shot(page, phone, '35-prize-drop');

      // Unknown ones are the not-found page.
      assert.equal((await page.goto(`${origin}/o/${OP_A}/tournaments/no-such-tournament`))?.status(), 404);
      assert.equal((await page.goto(`${origin}/o/${OP_A}/prize-drops/no-such-drop`))?.status(), 404);
      assert.deepEqual(
        watch.problems.filter((p) => !/404/.test(p)),
        [],
      );
    } finally {
      await context.close();
    }
  }
});

test('a provider admin creates a tournament with the form (laptop), then cancels it after a confirmation', async () => {
  const context = await browser.newContext(DESKTOP);
  try {
    const page = await context.newPage();
    const watch = watchPage(page);
    await login(page, w.staff.provider.username, w.staff.provider.password);
    await page.goto(`${origin}/o/${OP_A}/tournaments`);
    const form = hook(page, 'create-form');
    await basics(page, false);
    // A prize table that grows with rank: the API's 422, shown on the page; nothing stored.
    await form.getByLabel('Id (lower-case letters, digits, _ and -)').fill('stf-form');
    await form.getByLabel('Name').fill('Form sprint');
    await form.locator(`input[name="titles"][value="${slot.symbol}"]`).check();
    await form.getByLabel('Minimum stake of a round that counts').fill('1.00');
    await form.getByLabel(/^Prizes by rank/).fill('10.00, 30.00');
    await form.getByRole('button', { name: 'Create the tournament' }).click();
    await page.waitForURL(/\/tournaments\?error=/);
    assert.match((await hook(page, 'create-error').textContent()) ?? '', /must not increase with rank/);
    assert.equal(
      (await w.h.db.pool.query(`SELECT 1 FROM tournaments WHERE tournament_id = 'stf-form'`)).rowCount,
      0,
    );

    await form.getByLabel('Id (lower-case letters, digits, _ and -)').fill('stf-form');
    await form.getByLabel('Name').fill('Form sprint');
    await form.getByLabel('Scoring').selectOption('max_multiplier');
    await form.locator(`input[name="titles"][value="${slot.symbol}"]`).check();
    await form.getByLabel('Minimum stake of a round that counts').fill('0.50');
    await form.getByLabel(/^Prizes by rank/).fill('30.00, 10.00, 2.5');
    await form.getByRole('button', { name: 'Create the tournament' }).click();
    await page.waitForURL(/\/tournaments\/stf-form\?action=\d+$/);
    const result = hook(page, 'action-result');
    assert.equal(await result.getAttribute('data-result'), 'created');
    assert.match((await result.textContent()) ?? '', new RegExp(w.staff.provider.username));
    assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', /Form sprint/);
    assert.equal(await hook(page, 'board-empty').count(), 1);
    await basics(page, false);
    await shot(page, false, '36-tournament-created');
    // Stored as the admin API stores it, the page's operator in, the workflow running, audited.
    const { rows: prizes } = await w.h.db.pool.query(
      `SELECT t.scoring, c.min_stake_minor::text AS min, array_agg(p.amount_minor::text ORDER BY p.rank) AS prizes,
              (SELECT array_agg(operator_id) FROM tournament_operators o WHERE o.tournament_id = t.tournament_id AND opted_in) AS ops
         FROM tournaments t JOIN tournament_currencies c USING (tournament_id)
         JOIN tournament_prizes p USING (tournament_id, currency)
        WHERE t.tournament_id = 'stf-form' GROUP BY t.tournament_id, t.scoring, c.min_stake_minor`,
    );
    assert.deepEqual(prizes, [
      { scoring: 'max_multiplier', min: '50', prizes: ['3000', '1000', '250'], ops: [OP_A] },
    ]);
    assert.equal(
      (await w.client.workflow.getHandle('tournament-stf-form').describe()).status.name,
      'RUNNING',
    );

    // Cancel: a confirmation first ("Keep it" changes nothing), then the result.
    await hook(page, 'cancel-start').click();
    await hook(page, 'cancel-confirm').getByRole('link', { name: 'Keep it' }).click();
    await page.waitForURL(`${origin}/o/${OP_A}/tournaments/stf-form`);
    await hook(page, 'cancel-start').click();
    await page.getByLabel('Reason (kept in the audit log, optional)').fill('made by the browser test');
    await basics(page, false);
    await page.getByRole('button', { name: 'Yes, cancel the tournament' }).click();
    await page.waitForURL(/\/tournaments\/stf-form\?action=\d+$/);
    assert.equal(await hook(page, 'action-result').getAttribute('data-result'), 'cancelled');
    assert.equal(await hook(page, 'cancel-section').count(), 0);
    const { rows: audit } = await w.h.db.pool.query(
      `SELECT action, result, detail->>'reason' AS reason FROM staff_audit_log WHERE target = 'stf-form' ORDER BY audit_id`,
    );
    assert.deepEqual(audit, [
      { action: 'tournament.create', result: 'created', reason: null },
      { action: 'tournament.cancel', result: 'cancelled', reason: 'made by the browser test' },
    ]);
    assert.deepEqual(watch.problems, []);
  } finally {
    await context.close();
  }
});

test('the create form on a phone (provider admin): laid out without sideways scrolling', async () => {
  const context = await browser.newContext(PHONE);
  try {
    const page = await context.newPage();
    const watch = watchPage(page);
    await login(page, w.staff.provider.username, w.staff.provider.password);
    await page.goto(`${origin}/o/${OP_A}/tournaments#create`);
    assert.ok(await hook(page, 'create-form').isVisible());
    await basics(page, true);
    await shot(page, true, '36-tournament-create');
    assert.deepEqual(watch.problems, []);
  } finally {
    await context.close();
  }
});

test('operator staff get no create form, and a forged create post is refused by the API (403)', async () => {
  const context = await browser.newContext(DESKTOP);
  try {
    const page = await context.newPage();
    await login(page, w.staff.adminA.username, w.staff.adminA.password);
    await page.goto(`${origin}/o/${OP_A}/tournaments`);
    assert.equal(await hook(page, 'create-section').count(), 0, 'no form for an operator admin');
    await page.goto(`${origin}/o/${OP_A}/tournaments/${LIVE}`);
    assert.equal(await hook(page, 'cancel-start').count(), 0, 'no cancel for an operator admin');
    const res = await page.request.post(`${origin}/o/${OP_A}/tournaments/create`, {
      headers: { origin },
      form: {
        tournament_id: 'stf-forged',
        name: 'Forged',
        scoring: 'total_win',
        starts_at: new Date(Date.now() + 3_600_000).toISOString().slice(0, 16),
        ends_at: new Date(Date.now() + 86_400_000).toISOString().slice(0, 16),
        titles: slot.symbol,
        currency: 'EUR',
        min_stake: '1.00',
        prizes: '10.00',
      },
    });
    assert.equal(res.status(), 200);
    assert.match(res.url(), /\/tournaments\?error=/);
    assert.match(decodeURIComponent(res.url()), /needs the provider admin role/);
    assert.match(await res.text(), /needs the provider admin role/);
    const cancel = await page.request.post(`${origin}/o/${OP_A}/tournaments/${LIVE}/cancel`, {
      headers: { origin },
      form: { reason: 'forged' },
    });
    assert.match(decodeURIComponent(cancel.url()), /needs the provider admin role/);
    const { rows } = await w.h.db.pool.query(
      `SELECT (SELECT count(*)::int FROM tournaments WHERE tournament_id = 'stf-forged') AS forged,
              (SELECT status FROM tournaments WHERE tournament_id = $1) AS live`,
      [LIVE],
    );
    assert.deepEqual(rows[0], { forged: 0, live: 'running' });
  } finally {
    await context.close();
  }
});
