import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '@opi/config';
import { call } from '@opi/testkit/harness';
import { type Browser, chromium, type Page } from 'playwright-core';
import { watchPage } from './test-support/page-problems.js';
import { launchPortal, PORTAL_DIR, type Portal } from './test-support/portal.js';
import { OP_A, slot, startWorld, type World } from './test-support/world.js';

// The staff portal's Free rounds pages (issue 18, item 4) in chromium against the portal's
// production build (made by the test runner) and the real API: a campaign created through the
// operator API, a free round played through the runtime and settled by the workflow at the sandbox
// wallet; a viewer opens the list and the campaign (players, rounds, the round link) on a laptop
// and a phone and sees no cancel; an admin cancels it with a confirmation and sees the result.
const ARTIFACTS = path.join(PORTAL_DIR, 'test-artifacts');
const CHROMIUM = process.env.OPI_TEST_CHROMIUM ?? DEFAULT_CHROMIUM;
const DESKTOP = { viewport: { width: 1280, height: 860 } };
const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};
const HOUR = 3600_000;
const CAMPAIGN = 'stf-browser-c1';

let w: World;
let portal: Portal | undefined;
let origin = '';
let browser: Browser;
const played = { ext: '', roundId: '' };

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  w = await startWorld();
  // The portal starts (up to a minute on a busy machine) while the campaign is made.
  portal = await launchPortal({ api: w.h.base });
  origin = portal.origin;

  // A campaign through the operator API and one of its rounds played (a free round: no debit).
  played.ext = `stf-frb-${randomUUID().slice(0, 8)}`;
  await w.admin.createPlayer({
    operatorId: OP_A,
    playerId: played.ext,
    currency: 'EUR',
    balanceMinor: 10_000,
  });
  const created = await call(w.h.base, 'POST', '/api/provider/v1/free-rounds', {
    key: w.keyA,
    sign: true,
    body: {
      campaign_id: CAMPAIGN,
      symbols: [slot.symbol],
      currency: 'EUR',
      bet_minor: 100,
      rounds: 3,
      valid_from: new Date(Date.now() - HOUR).toISOString(),
      expires_at: new Date(Date.now() + 24 * HOUR).toISOString(),
      players: [played.ext, 'stf-frb-other'],
    },
  });
  assert.equal(created.status, 201, created.text);
  const launched = await call(w.h.base, 'POST', '/api/provider/v1/launch-url', {
    key: w.keyA,
    body: { symbol: slot.symbol, external_player_id: played.ext, currency: 'EUR' },
  });
  assert.equal(launched.status, 200, launched.text);
  const spin = await call(w.h.game, 'POST', '/api/runtime/spin', {
    headers: { 'x-session-token': new URL(launched.json.launch_url).searchParams.get('mgckey')! },
    body: { bet_minor: 100, free_round: true },
  });
  assert.equal(spin.status, 200, spin.text);
  assert.equal(spin.json.free_round?.campaign_id, CAMPAIGN, spin.text);
  played.roundId = spin.json.round_id;

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

/** One h1, every control labelled, and on a phone no sideways scrolling. */
async function basics(page: Page, phone: boolean) {
  const facts = (await page.evaluate(`(() => ({
    h1: document.querySelectorAll('h1').length,
    unlabeled: [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
      .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')).length,
    width: document.documentElement.scrollWidth,
  }))()`)) as { h1: number; unlabeled: number; width: number };
  assert.equal(facts.h1, 1, `${page.url()}: one h1`);
  assert.equal(facts.unlabeled, 0, `${page.url()}: every control has a label`);
  if (phone)
    assert.ok(facts.width <= 390, `${page.url()}: no sideways scrolling on a phone (${facts.width} px)`);
}

test('free rounds: the campaigns list and one campaign with its players and rounds (viewer, laptop and phone)', async () => {
  for (const device of [DESKTOP, PHONE]) {
    const phone = device === PHONE;
    const context = await browser.newContext(device);
    try {
      const page = await context.newPage();
      const watch = watchPage(page);
      await login(page, w.staff.viewerA.username, w.staff.viewerA.password);
      await page.goto(`${origin}/o/${OP_A}`);
      await page.getByRole('link', { name: 'Free rounds', exact: true }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/free-rounds`);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Free rounds');
      const row = page.locator(`[data-testid="campaigns-table"] tr[data-campaign="${CAMPAIGN}"]`);
      assert.equal(await row.getAttribute('data-status'), 'active');
      assert.equal(await row.getAttribute('data-played'), '1');
      assert.equal(await row.getAttribute('data-remaining'), '5');
      assert.match((await row.textContent()) ?? '', /1\.00 EUR/);
      await basics(page, phone);
      await page.screenshot({
        path: path.join(ARTIFACTS, phone ? 'phone-free-rounds.png' : '27-free-rounds.png'),
        fullPage: true,
      });

      await row.getByRole('link', { name: CAMPAIGN }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/free-rounds/${CAMPAIGN}`);
      assert.match((await page.getByRole('heading', { level: 1 }).textContent()) ?? '', new RegExp(CAMPAIGN));
      const player = page.locator(`[data-testid="players-table"] tr[data-player="${played.ext}"]`);
      assert.equal(await player.getAttribute('data-used'), '1');
      assert.equal(await player.getAttribute('data-remaining'), '2');
      const other = page.locator('[data-testid="players-table"] tr[data-player="stf-frb-other"]');
      assert.equal(await other.getAttribute('data-remaining'), '3');
      const round = page.locator(`[data-testid="rounds-table"] tr[data-round="${played.roundId}"]`);
      assert.equal(await round.getAttribute('data-status'), 'completed');
      assert.match((await round.textContent()) ?? '', new RegExp(played.ext));
      // A viewer sees no cancel.
      assert.equal(await hook(page, 'cancel-start').count(), 0);
      assert.ok(await page.getByText('Cancelling a campaign needs the admin role.').isVisible());
      await basics(page, phone);
      await page.screenshot({
        path: path.join(ARTIFACTS, phone ? 'phone-free-round-campaign.png' : '28-free-round-campaign.png'),
        fullPage: true,
      });
      // The round link opens the existing round page.
      await round.getByRole('link', { name: played.roundId }).click();
      await page.waitForURL(new RegExp(`/rounds/${played.roundId}$`));
      assert.match(
        (await page.getByRole('heading', { level: 1 }).textContent()) ?? '',
        new RegExp(played.roundId),
      );
      // An unknown campaign is the not-found page.
      const missing = await page.goto(`${origin}/o/${OP_A}/free-rounds/stf-no-such-campaign`);
      assert.equal(missing?.status(), 404);
      assert.deepEqual(
        watch.problems.filter((p) => !/404/.test(p)),
        [],
      );
    } finally {
      await context.close();
    }
  }
});

test('free rounds: an admin cancels the campaign after a confirmation and sees the result', async () => {
  const context = await browser.newContext(DESKTOP);
  try {
    const page = await context.newPage();
    const watch = watchPage(page);
    await login(page, w.staff.adminA.username, w.staff.adminA.password);
    const url = `${origin}/o/${OP_A}/free-rounds/${CAMPAIGN}`;
    await page.goto(url);
    assert.equal(await hook(page, 'cancel-confirm').count(), 0, 'nothing is cancelled before a confirmation');
    await hook(page, 'cancel-start').click();
    await page.waitForURL(`${url}?confirm=cancel#cancel`);
    const confirm = hook(page, 'cancel-confirm');
    assert.match((await confirm.textContent()) ?? '', /5 unplayed rounds of 2 players will be void/);
    await basics(page, false);
    // "Keep it" leaves the campaign as it was.
    await confirm.getByRole('link', { name: 'Keep it' }).click();
    await page.waitForURL(url);
    assert.equal(
      (await call(w.h.base, 'GET', `/api/provider/v1/free-rounds/${CAMPAIGN}`, { key: w.keyA, sign: true }))
        .json.data.status,
      'active',
    );
    await hook(page, 'cancel-start').click();
    await page.waitForURL(`${url}?confirm=cancel#cancel`);
    await page.getByLabel('Reason (kept in the audit log, optional)').fill('ended early by the operator');
    await page.getByRole('button', { name: 'Yes, cancel the campaign' }).click();
    await page.waitForURL(/\?action=\d+$/);
    const result = hook(page, 'cancel-result');
    assert.equal(await result.getAttribute('data-result'), 'cancelled');
    assert.match((await result.textContent()) ?? '', /5 unplayed rounds void/);
    assert.match((await result.textContent()) ?? '', new RegExp(w.staff.adminA.username));
    assert.equal(await hook(page, 'cancel-section').count(), 0, 'a cancelled campaign offers no cancel');
    assert.match((await hook(page, 'players-table').textContent()) ?? '', /\(void\)/);
    await page.screenshot({ path: path.join(ARTIFACTS, '29-free-round-cancelled.png'), fullPage: true });

    // The operator API sees the cancel; the audit log has it with the reason.
    const seen = await call(w.h.base, 'GET', `/api/provider/v1/free-rounds/${CAMPAIGN}`, {
      key: w.keyA,
      sign: true,
    });
    assert.equal(seen.json.data.status, 'cancelled');
    const { rows } = await w.h.db.pool.query(
      `SELECT username, result, detail->>'reason' AS reason FROM staff_audit_log
        WHERE action = 'free_rounds.cancel' AND target = $1`,
      [CAMPAIGN],
    );
    assert.deepEqual(rows, [
      { username: w.staff.adminA.username, result: 'cancelled', reason: 'ended early by the operator' },
    ]);
    // The list shows it cancelled.
    await page.getByRole('link', { name: '← Free rounds' }).click();
    await page.waitForURL(`${origin}/o/${OP_A}/free-rounds`);
    assert.equal(
      await page
        .locator(`[data-testid="campaigns-table"] tr[data-campaign="${CAMPAIGN}"]`)
        .getAttribute('data-status'),
      'cancelled',
    );
    assert.deepEqual(watch.problems, []);
  } finally {
    await context.close();
  }
});
