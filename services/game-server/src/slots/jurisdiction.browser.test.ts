import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { DESKTOP, PHONE as MOBILE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { Page } from 'playwright-core';

// Jurisdiction rules on the slot page (issue 18), in Debian's chromium on the real stack: the
// session's time played and net position always on screen, GB's 2.5 s between spin starts, no
// autoplay or turbo offered, and the reality check (pause, continue, leave to return_url), at
// 1280x800 and on a 390x844 touch phone.
const OP_GB = 'op_jr_page_gb';
const OP_RC = 'op_jr_page_rc';
const LOBBY = 'https://lobby.operator.test/return?from=game';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
const keys: Record<string, string> = {};

before(async () => {
  w = await startPlayWorld({
    queue: 'jr-browser',
    browser: true,
    operators: [
      { id: OP_GB, titles: [slot.symbol], settings: { default_jurisdiction: 'GB' } },
      { id: OP_RC, titles: [slot.symbol], settings: { reality_check_interval_seconds: 2 } },
    ],
  });
  ({ h, admin } = w);
  for (const op of [OP_GB, OP_RC]) keys[op] = w.operators[op]!.key;
});
after(() => w.close());

async function launch(op: string): Promise<string> {
  const player = `jrp-${randomUUID().slice(0, 8)}`;
  await admin.createPlayer({ operatorId: op, playerId: player, currency: 'EUR', balanceMinor: 1_000_000 });
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key: keys[op]!,
    body: { symbol: slot.symbol, external_player_id: player, return_url: LOBBY },
  });
  assert.equal(res.status, 200, res.text);
  return res.json.launch_url;
}

async function open(device: typeof DESKTOP | typeof MOBILE, url: string) {
  const context = await w.lobbyContext(device);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await until(
    'the page is ready',
    async () => (await hook(page, 'game').getAttribute('data-state')) === 'ready',
  );
  return { context, page, problems };
}
const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const press = (page: Page, id: string, tap: boolean) => (tap ? hook(page, id).tap() : hook(page, id).click());

for (const [name, device] of [
  ['desktop 1280x800', DESKTOP],
  ['phone 390x844 (touch)', MOBILE],
] as const) {
  const tap = device === MOBILE;

  test(`GB (${name}): time played and net position on screen, 2.5 s between spins, no autoplay or turbo`, async () => {
    const o = await open(device, await launch(OP_GB));
    try {
      const { page } = o;
      assert.equal(await hook(page, 'game').getAttribute('data-jurisdiction'), 'GB');
      for (const id of ['session-elapsed', 'session-net']) {
        assert.ok(await hook(page, id).isVisible(), `${id} is visible`);
        const box = await hook(page, id).boundingBox();
        assert.ok(box && box.y + box.height <= device.viewport.height, `${id} is within the viewport`);
      }
      const first = Number(await hook(page, 'session-elapsed').getAttribute('data-elapsed-ms'));
      await until('the time played advances', async () => {
        return Number(await hook(page, 'session-elapsed').getAttribute('data-elapsed-ms')) >= first + 1000;
      });
      assert.match((await hook(page, 'session-elapsed').textContent()) ?? '', /^\d+:\d\d:\d\d$/);
      assert.equal(await hook(page, 'session-net').getAttribute('data-net-minor'), '0');
      const text = (await page.locator('body').textContent()) ?? '';
      assert.doesNotMatch(text, /autoplay|auto ?spin|turbo|quick ?spin/i, 'no autoplay or turbo is offered');

      const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
      const clicked = Date.now();
      await press(page, 'spin-button', tap);
      const res = await answer;
      assert.equal(res.status(), 200);
      const body = (await res.json()) as { status: string; bet_minor: string; win_minor: string };
      assert.equal(body.status, 'completed');
      const net = (BigInt(body.win_minor) - BigInt(body.bet_minor)).toString();
      await until('the net position shows the round', async () => {
        return (await hook(page, 'session-net').getAttribute('data-net-minor')) === net;
      });
      // The spin button stays disabled until 2.5 s after the spin started.
      if (Date.now() - clicked < 2000) assert.equal(await hook(page, 'spin-button').isDisabled(), true);
      await until(
        'the spin button is enabled again',
        async () => !(await hook(page, 'spin-button').isDisabled()),
      );
      assert.ok(Date.now() - clicked >= 2500, `enabled ${Date.now() - clicked} ms after the click`);
      const second = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
      await press(page, 'spin-button', tap);
      assert.equal((await second).status(), 200, 'the next spin is taken');
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });

  test(`reality check (${name}): the page pauses with time played and net position; continue, then leave`, async () => {
    const o = await open(device, await launch(OP_RC));
    try {
      const { page } = o;
      await until('the reality check shows', async () => await hook(page, 'reality-check').isVisible());
      assert.equal(await hook(page, 'game').getAttribute('data-reality-check'), 'open');
      assert.equal(await hook(page, 'spin-button').isDisabled(), true, 'no spin while the check is open');
      const text = (await hook(page, 'reality-check-text').textContent()) ?? '';
      assert.match(text, /playing for \d+:\d\d:\d\d/);
      assert.match(text, /net position .*EUR/);
      const box = await hook(page, 'reality-check-continue').boundingBox();
      assert.ok(box && box.y + box.height <= device.viewport.height, 'continue is within the viewport');
      await press(page, 'reality-check-continue', tap);
      await until('the check is answered', async () => !(await hook(page, 'reality-check').isVisible()));
      assert.equal(await hook(page, 'game').getAttribute('data-reality-check'), 'answered');
      // Two seconds later the next check is due: the page pauses again; leave goes to return_url.
      await until('the next reality check shows', async () => await hook(page, 'reality-check').isVisible());
      await Promise.all([page.waitForURL(LOBBY), press(page, 'reality-check-leave', tap)]);
      const { rows } = await h.db.pool.query<{ action: string }>(
        `SELECT c.action FROM reality_checks c JOIN sessions s USING (session_id)
          WHERE s.operator_id = $1 ORDER BY c.check_id DESC LIMIT 2`,
        [OP_RC],
      );
      assert.deepEqual(rows.map((r) => r.action).reverse(), ['continue', 'leave']);
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });
}
