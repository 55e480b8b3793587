import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CHROMIUM_ARGS, DEFAULT_CHROMIUM } from '@opi/config';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import { type Browser, chromium, type Page } from 'playwright-core';
import { watchPage } from './test-support/page-problems.js';
import { PORTAL_DIR, type Portal, startPortal } from './test-support/portal.js';
import { OP_A, startWorld, type World } from './test-support/world.js';

// The staff portal's Protection page (issue 18) in chromium against the portal's production build
// (made by the test runner), reading through the real API after a debit refused with self_excluded
// by the sandbox wallet over HTTP (a blocked session) and a reality check answered on a slot
// session; on a laptop and a phone. Its own world and portal (portal.browser.test.ts is near the
// runner's per-file time limit).
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

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  w = await startWorld();
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

async function login(page: Page, username: string, password: string) {
  await page.goto(`${origin}/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((u) => u.href !== `${origin}/login`);
}

test('protection: refused debits by code and the recent ones, the blocked session, reality checks (laptop and phone)', async (t) => {
  // An empty page first: nothing refused, nothing blocked.
  const empty = await browser.newContext(DESKTOP);
  try {
    const page = await empty.newPage();
    await login(page, w.staff.viewerA.username, w.staff.viewerA.password);
    await page.goto(`${origin}/o/${OP_A}/protection`);
    assert.ok(await hook(page, 'no-refusals').isVisible());
    assert.ok(await hook(page, 'no-blocked-sessions').isVisible());
  } finally {
    await empty.close();
  }

  // A debit the wallet refuses with self_excluded: a rejected round and a blocked session.
  const p = await w.player('EUR', 20_000);
  await w.admin.setProtection({ operatorId: OP_A, playerId: p.ext, refuseDebitsWith: 'self_excluded' });
  const refused = await w.spin(p.token, 100);
  assert.equal(refused.status, 'rejected');
  await w.admin.setProtection({ operatorId: OP_A, playerId: p.ext, refuseDebitsWith: null });
  // A reality check answered: the operator's interval at 1 s for one launch.
  const patch = (v: number | null) =>
    call(w.h.base, 'PATCH', `/api/admin/v1/operators/${OP_A}`, {
      key: ADMIN_KEY,
      sign: true,
      body: { reality_check_interval_seconds: v },
    });
  assert.equal((await patch(1)).status, 200);
  let checked: { token: string; sessionId: string };
  try {
    checked = await w.player('EUR', 20_000);
  } finally {
    assert.equal((await patch(null)).status, 200);
  }
  await w.until('the reality check is answered', async () => {
    const res = await call(w.h.game, 'POST', '/api/runtime/reality-check', {
      headers: { 'x-session-token': checked.token },
      body: { action: 'continue' },
    });
    return res.status === 200;
  });

  for (const device of [DESKTOP, PHONE]) {
    const context = await browser.newContext(device);
    try {
      const page = await context.newPage();
      const watch = watchPage(page);
      await login(page, w.staff.viewerA.username, w.staff.viewerA.password);
      await page.goto(`${origin}/o/${OP_A}`);
      await page.getByRole('link', { name: 'Protection' }).click();
      await page.waitForURL(`${origin}/o/${OP_A}/protection`);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Protection');
      const row = page.locator('[data-testid="refusals-by-code"] tr[data-code="self_excluded"]');
      assert.equal(await row.getAttribute('data-count'), '1');
      const recent = page.locator(`[data-testid="recent-refusals"] tr[data-round="${refused.round_id}"]`);
      assert.match((await recent.textContent()) ?? '', new RegExp(`self_excluded.*${p.ext}`));
      assert.equal(
        await page.locator(`[data-testid="blocked-sessions"] tr[data-session="${p.sessionId}"]`).count(),
        1,
      );
      assert.match((await hook(page, 'reality-check-summary').textContent()) ?? '', /Continued: 1\./);
      assert.match((await hook(page, 'reality-checks').textContent()) ?? '', new RegExp(checked.sessionId));
      // The round link opens the round page.
      await recent.getByRole('link', { name: refused.round_id }).click();
      await page.waitForURL(new RegExp(`/rounds/${refused.round_id}$`));
      if (device === PHONE) {
        await page.goBack();
        const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
        assert.ok(width <= 390, `no sideways scrolling on a phone (${width} px)`);
      }
      await page.screenshot({
        path: path.join(ARTIFACTS, device === PHONE ? 'phone-protection.png' : '26-protection.png'),
        fullPage: true,
      });
      if (watch.prefetchMisses.length > 0)
        t.diagnostic(`prefetches answered 4xx/5xx: ${watch.prefetchMisses.join(', ')}`);
      assert.deepEqual(watch.problems, []);
    } finally {
      await context.close();
    }
  }
});

test("the browser's own /favicon.ico request finds the portal's icon (no 404 in the console)", async () => {
  const res = await fetch(`${origin}/favicon.ico`, { redirect: 'manual' });
  assert.equal(res.status, 308);
  assert.equal(new URL(res.headers.get('location') ?? '', origin).pathname, '/icon.svg');
  const icon = await fetch(`${origin}/icon.svg`);
  assert.equal(icon.status, 200);
  assert.match(icon.headers.get('content-type') ?? '', /^image\/svg\+xml/);
});
