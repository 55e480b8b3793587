import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { DESKTOP, PHONE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { Page, Route } from 'playwright-core';

// Issue 40: whatever the order of a spin's answer, a balance-refresh signal and the page's own
// reads, the slot page ends on the newest balance the wallet gave (docs/game-pages.md, "The
// balance shown"). A deposit lands in the sandbox wallet and the operator sends
// player-balance-refresh before the spin's answer reaches the page, while the reels turn, and right
// after they land; then a spin answers `pending` (the wallet slow) and its round completes later.
// Real stack: the API, the game server, the sandbox wallet over HTTP, a Temporal worker, chromium.
const OPERATOR = 'op_balance_order';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

before(async () => {
  // A spin answers `pending` after 1.5 s (SPIN_WAIT_MS), so the pending case needs no long wallet.
  w = await startPlayWorld({
    queue: 'balance-order',
    browser: true,
    env: { SPIN_WAIT_MS: '1500' },
    operators: [{ id: OPERATOR, titles: [slot.symbol] }],
  });
  ({ h, admin, key } = w);
});
after(async () => {
  await w?.close();
});

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const shownMinor = (page: Page) => hook(page, 'game-balance').getAttribute('data-balance-minor');
const held = async (player: string) => (await admin.balance(OPERATOR, player, 'EUR')).balance_minor;

async function openGame(player: string, device: typeof DESKTOP | typeof PHONE) {
  await admin.createPlayer({
    operatorId: OPERATOR,
    playerId: player,
    currency: 'EUR',
    balanceMinor: 100_000,
  });
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol: slot.symbol, external_player_id: player },
  });
  assert.equal(res.status, 200, res.text);
  const context = await w.lobbyContext(device);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(res.json.launch_url);
  await until('the wallet balance on the page', async () => (await shownMinor(page)) === '100000');
  await until(
    'the event stream is ready',
    async () => (await page.locator('main').getAttribute('data-events')) === 'ready',
  );
  await hook(page, 'stake-select').selectOption('100');
  return { context, page, problems };
}

/** A deposit in the operator's wallet, then the operator's refresh signal for the player. */
async function depositAndRefresh(player: string, amountMinor: number) {
  await admin.deposit({
    operatorId: OPERATOR,
    playerId: player,
    currency: 'EUR',
    amountMinor,
    reference: `dep-${randomUUID()}`,
  });
  const res = await call(h.base, 'POST', '/api/provider/v1/player-balance-refresh', {
    key,
    body: { external_player_id: player, reason: 'deposit' },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.subscribers_notified, 1, res.text);
}

/** The page shows the wallet's balance now, and still does a second later (nothing older lands). */
async function endsOnWalletBalance(page: Page, player: string, what: string) {
  const wallet = await held(player);
  await until(
    `${what}: the page shows the wallet's ${wallet}`,
    async () => (await shownMinor(page)) === wallet,
    15_000,
  );
  await until('the spin is over', async () => !(await hook(page, 'spin-button').isDisabled()), 15_000);
  await new Promise((r) => setTimeout(r, 1200));
  assert.equal(await shownMinor(page), wallet, `${what}: the page still shows the wallet's balance`);
  assert.equal(await held(player), wallet, 'the wallet did not move meanwhile');
}

for (const [name, device] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  test(`${name}: a refresh before the spin's answer reaches the page ends on the wallet's balance`, async () => {
    const player = `bo-a-${randomUUID().slice(0, 8)}`;
    const o = await openGame(player, device);
    try {
      // The spin's answer is held in the browser after the server sent it: the round is settled
      // (debit and credit applied), then the deposit and its signal reach the page first.
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let settled!: () => void;
      const answered = new Promise<void>((r) => {
        settled = r;
      });
      await o.page.route('**/api/runtime/spin', async (route: Route) => {
        // Playwright's own fetch does not use chromium's host mapping: straight to the game server.
        const response = await route.fetch({
          url: route
            .request()
            .url()
            .replace(/^http:\/\/games\.test/, h.game),
          timeout: 30_000,
        });
        settled();
        await gate;
        await route.fulfill({ response });
      });
      await hook(o.page, 'spin-button').click();
      await answered;
      await depositAndRefresh(player, 5_000);
      // Time for the signal to reach the page and any read it makes to answer.
      await new Promise((r) => setTimeout(r, 800));
      release();
      await endsOnWalletBalance(o.page, player, 'refresh before the answer');
      await o.page.unroute('**/api/runtime/spin');
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });

  test(`${name}: a refresh while the reels turn ends on the wallet's balance`, async () => {
    const player = `bo-b-${randomUUID().slice(0, 8)}`;
    const o = await openGame(player, device);
    try {
      const answer = o.page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
      await hook(o.page, 'spin-button').click();
      assert.equal((await answer).status(), 200);
      // The answer has reached the page; its reels take at least 0.7 s from the click to stop,
      // then stop one by one (0.7 s more).
      await depositAndRefresh(player, 7_000);
      assert.equal(
        await hook(o.page, 'spin-button').isDisabled(),
        true,
        'the refresh was sent before the spin was over on the page',
      );
      await endsOnWalletBalance(o.page, player, 'refresh while the reels turn');
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });

  test(`${name}: a refresh right after the reels land ends on the wallet's balance`, async () => {
    const player = `bo-c-${randomUUID().slice(0, 8)}`;
    const o = await openGame(player, device);
    try {
      await hook(o.page, 'spin-button').click();
      await until('the spin is over', async () => !(await hook(o.page, 'spin-button').isDisabled()));
      await depositAndRefresh(player, 9_000);
      await endsOnWalletBalance(o.page, player, 'refresh after the reels land');
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });
}

test("a spin answered `pending` carries no outcome; the page follows its round and ends on the wallet's balance (desktop and phone)", async () => {
  for (const device of [DESKTOP, PHONE]) {
    const player = `bo-p-${randomUUID().slice(0, 8)}`;
    const o = await openGame(player, device);
    try {
      // Every wallet call now takes 2.5 s: the spin answers `pending` after 1.5 s, the round
      // completes after its debit and credit (about 5 s).
      await admin.setFaults({ latencyMs: [2500, 2500], latencyRate: 1 });
      const answer = o.page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
      await hook(o.page, 'spin-button').click();
      const res = await answer;
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body.status, 'pending', JSON.stringify(body));
      assert.equal(body.outcome, null, 'a pending answer carries no outcome');
      assert.equal(body.win_minor, null, 'nor the win');
      assert.deepEqual(body.jackpot_wins, []);
      assert.equal(body.prize_drop, null);
      await until(
        'the page follows the round',
        async () => (await o.page.locator('main').getAttribute('data-round')) === 'pending',
      );
      assert.equal(await hook(o.page, 'spin-button').isDisabled(), true, 'no spin while the round is open');
      assert.equal(await hook(o.page, 'last-win').getAttribute('data-win-minor'), '0', 'no win shown yet');
      // A deposit and its signal while the round is still open.
      await depositAndRefresh(player, 11_000);
      const over = await o.page.waitForResponse(
        async (r) =>
          r.url().includes(`/api/runtime/rounds/${String(body.round_id)}`) &&
          ((await r.json().catch(() => ({}))) as { status?: string }).status === 'completed',
        { timeout: 30_000 },
      );
      const round = (await over.json()) as { win_minor: string; outcome: unknown };
      assert.ok(round.outcome, 'the outcome once the round is over');
      await admin.setFaults({});
      await endsOnWalletBalance(o.page, player, 'pending round completed later');
      assert.equal(await hook(o.page, 'last-win').getAttribute('data-win-minor'), round.win_minor);
      assert.equal(
        BigInt(await held(player)),
        100_000n - 100n + BigInt(round.win_minor) + 11_000n,
        'the wallet holds the round and the deposit',
      );
      assert.equal(await o.page.locator('main').getAttribute('data-round'), null);
      assert.deepEqual(o.problems, []);
    } finally {
      await admin.setFaults({});
      await o.context.close();
    }
  }
});

test('GET /api/runtime/rounds/:round_id answers only the session its round belongs to', async () => {
  const a = await w.launch(key, { symbol: slot.symbol, external_player_id: await w.newPlayer(OPERATOR) });
  const b = await w.launch(key, { symbol: slot.symbol, external_player_id: await w.newPlayer(OPERATOR) });
  const spun = await w.spin(a.token!, { bet_minor: '100', mode: 'base' });
  assert.equal(spun.status, 200, spun.text);
  const mine = await w.runtime(a.token!, 'GET', `/api/runtime/rounds/${spun.json.round_id}`);
  assert.equal(mine.status, 200, mine.text);
  assert.equal(mine.json.status, 'completed');
  assert.equal(mine.json.win_minor, spun.json.win_minor);
  assert.deepEqual(mine.json.outcome, spun.json.outcome);
  assert.equal(mine.json.balance, spun.json.balance);
  for (const path of [
    `/api/runtime/rounds/${spun.json.round_id}`,
    `/api/runtime/rounds/r_${randomUUID()}`,
    '/api/runtime/rounds/%27%20OR%201%3D1',
  ]) {
    const other = await w.runtime(b.token!, 'GET', path);
    assert.equal(other.status, 404, other.text);
    assert.equal(typeof other.json.detail, 'string');
  }
});
