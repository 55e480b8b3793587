import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { walletRefusalMessage } from '@opi/contract';
import { CATALOG } from '@opi/games';
import { minorToDecimalString } from '@opi/money';
import { call, type Harness } from '@opi/testkit/harness';
import { DESKTOP, PHONE as MOBILE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { BrowserContext, Page } from 'playwright-core';

// The slot page in a real browser (Debian's chromium, driven by playwright-core), on the real
// stack: launch through the API, the sandbox wallet over HTTP, spins settled by a Temporal worker.
// The launch URL is opened unchanged: its host (GAME_BASE_URL http://games.test) is mapped to
// the game server's port by Chromium's host resolver, and the operator's casino page that frames the game
// to a tiny local server (both on loopback, so Chromium's local-network checks let the frame load);
// the lobby (return_url) is answered by route interception. Nothing leaves the machine.
const OPERATOR = 'op_browser';
const LOBBY = 'https://lobby.operator.test/return?from=game';
const WRAPPER = 'http://casino.operator.test/play';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;
let casino: Server;
/** The launch URL the operator's casino page frames (set by the test that uses it). */
let framed = '';

before(async () => {
  casino = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      `<!doctype html><title>Casino</title><iframe src="${framed.replaceAll('&', '&amp;')}" width="1000" height="700"></iframe>`,
    );
  }).listen(0, '127.0.0.1');
  await new Promise((r) => casino.once('listening', r));
  const casinoPort = (casino.address() as AddressInfo).port;
  w = await startPlayWorld({
    queue: 'browser',
    browser: { hostRules: [`MAP casino.operator.test:80 127.0.0.1:${casinoPort}`] },
    operators: [{ id: OPERATOR, titles: [slot.symbol] }],
  });
  ({ h, admin, key } = w);
});
after(async () => {
  await w?.close();
  casino.closeAllConnections();
  await new Promise<void>((r) => casino.close(() => r()));
});

// ── helpers ───────────────────────────────────────────────────────────────────────────────────

const money = new Intl.NumberFormat('en', {
  style: 'currency',
  currency: 'EUR',
  currencyDisplay: 'code',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
/** What the page shows for an amount: the session currency at its exponent (EUR: 2 decimals). */
const shown = (minor: string | bigint) =>
  money.format(minorToDecimalString(BigInt(minor), 'EUR') as unknown as number).replace(/\s/g, ' ');
const norm = (s: string | null) => (s ?? '').replace(/\s/g, ' ').trim();

async function launch(
  player: string,
  balanceMinor: number,
  returnUrl: string | null = LOBBY,
): Promise<{ url: string; token: string }> {
  await admin.createPlayer({ operatorId: OPERATOR, playerId: player, currency: 'EUR', balanceMinor });
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: {
      symbol: slot.symbol,
      external_player_id: player,
      ...(returnUrl ? { return_url: returnUrl } : {}),
    },
  });
  assert.equal(res.status, 200, res.text);
  assert.match(res.json.launch_url, /^http:\/\/games\.test\/gs2c\/html5Game\.do\?/);
  return { url: res.json.launch_url, token: new URL(res.json.launch_url).searchParams.get('mgckey')! };
}

interface Opened {
  context: BrowserContext;
  page: Page;
  /** Every URL the browser requested, and whether a Referer header went with it. */
  requests: { url: string; referer: string | undefined }[];
  /** Uncaught page errors and console errors (a CSP violation is one). */
  problems: string[];
}

async function open(options: typeof DESKTOP | typeof MOBILE): Promise<Opened> {
  const context = await w.lobbyContext(options);
  const page = await context.newPage();
  const requests: Opened['requests'] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push({ url: r.url(), referer: r.headers()['referer'] }));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return { context, page, requests, problems };
}

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

/** The page shows the balance the sandbox wallet holds now (text and the exact minor units). */
async function balanceMatchesWallet(page: Page, player: string): Promise<string> {
  const held = (await admin.balance(OPERATOR, player, 'EUR')).balance_minor;
  await until(`game-balance ${held}`, async () => {
    const el = hook(page, 'game-balance');
    return (await el.getAttribute('data-balance-minor')) === held;
  });
  assert.equal(norm(await hook(page, 'game-balance').textContent()), shown(held));
  return held;
}

/** One spin through the page: the button is disabled until the answer; the answer is what shows. */
async function spinOnce(page: Page, player: string, tap: boolean) {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  await page.route('**/api/runtime/spin', async (route) => {
    await gate;
    await route.continue();
  });
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
  const before = (await admin.balance(OPERATOR, player, 'EUR')).balance_minor;
  if (tap) await hook(page, 'spin-button').tap();
  else await hook(page, 'spin-button').click();
  assert.equal(await hook(page, 'spin-button').isDisabled(), true, 'disabled while the spin is open');
  assert.equal(await hook(page, 'stake-select').isDisabled(), true);
  release();
  const res = await answer;
  await page.unroute('**/api/runtime/spin');
  assert.equal(res.status(), 200);
  const body = (await res.json()) as {
    status: string;
    bet_minor: string;
    win_minor: string;
    balance: string;
  };
  assert.equal(body.status, 'completed');
  await until('spin button enabled', async () => !(await hook(page, 'spin-button').isDisabled()));
  const held = await balanceMatchesWallet(page, player);
  assert.equal(
    BigInt(held),
    BigInt(before) - BigInt(body.bet_minor) + BigInt(body.win_minor),
    'the wallet recorded the settled round',
  );
  assert.equal(await hook(page, 'last-win').getAttribute('data-win-minor'), body.win_minor);
  assert.equal(norm(await hook(page, 'last-win').textContent()), shown(body.win_minor));
  const cells = await hook(page, 'reel-cell').allTextContents();
  assert.equal(cells.length, 15);
  assert.ok(
    cells.every((c) => c.length > 0),
    'the grid shows the outcome',
  );
  return body;
}

async function eventsRouteExists(token: string): Promise<boolean> {
  const controller = new AbortController();
  try {
    const res = await fetch(`${h.game}/api/runtime/events`, {
      headers: { 'x-session-token': token, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    return res.status !== 404;
  } finally {
    controller.abort();
  }
}

function assertTokenStaysInTheLaunchUrl(o: Opened, token: string, launchUrl: string) {
  for (const r of o.requests) {
    if (r.url === launchUrl) continue;
    assert.ok(!r.url.includes(token), `the token is in no other URL: ${r.url}`);
  }
  assert.deepEqual(
    o.requests.filter((r) => r.referer !== undefined),
    [],
    'no request carries a Referer (the launch URL is a bearer secret)',
  );
}

// ── tests ─────────────────────────────────────────────────────────────────────────────────────

for (const [name, device] of [
  ['desktop 1280x800', DESKTOP],
  ['mobile 390x844 (touch)', MOBILE],
] as const) {
  test(`${name}: balance, spins settle to the wallet's balance, last win, close returns to the lobby`, async () => {
    const player = `br-${device === MOBILE ? 'm' : 'd'}-${randomUUID().slice(0, 8)}`;
    const { url, token } = await launch(player, 100_000);
    const o = await open(device);
    try {
      const nav = await o.page.goto(url);
      assert.equal(nav?.status(), 200);
      assert.equal(o.page.url(), url, 'opened unchanged');
      assert.equal(await o.page.title(), slot.title);
      await balanceMatchesWallet(o.page, player);
      assert.equal(norm(await hook(o.page, 'game-balance').textContent()), shown(100_000n));
      assert.equal(await hook(o.page, 'game-error').isVisible(), false);

      // The stakes are the server's, within the operator's limits (default 10 to 100000).
      const session = await call(h.game, 'GET', '/api/runtime/session', {
        headers: { 'x-session-token': token },
      });
      const options = await hook(o.page, 'stake-select')
        .locator('option')
        .evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
      assert.deepEqual(options, session.json.stakes_minor);
      assert.ok(options.every((v) => BigInt(v) >= 10n && BigInt(v) <= 100_000n));
      await hook(o.page, 'stake-select').selectOption('100');

      const spins = device === MOBILE ? 2 : 3;
      for (let i = 0; i < spins; i++) {
        const body = await spinOnce(o.page, player, device === MOBILE);
        assert.equal(body.bet_minor, '100');
      }

      if (device === MOBILE) {
        const width = await o.page.evaluate('document.documentElement.scrollWidth');
        assert.ok(Number(width) <= 390, `no horizontal scrolling on a phone (${String(width)} px)`);
        const box = await hook(o.page, 'spin-button').boundingBox();
        assert.ok(box && box.height >= 44 && box.width >= 44, 'a touch-sized spin button');
      }

      assert.equal(await hook(o.page, 'close-button').isVisible(), true);
      if (device === MOBILE) await hook(o.page, 'close-button').tap();
      else await hook(o.page, 'close-button').click();
      await o.page.waitForURL(LOBBY);
      assertTokenStaysInTheLaunchUrl(o, token, url);
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });
}

test('balance refresh: a sandbox deposit and player-balance-refresh update open pages (desktop and mobile)', async () => {
  const id = randomUUID().slice(0, 8);
  const players = [`br-r-${id}-d`, `br-r-${id}-m`];
  const launched = [await launch(players[0]!, 20_000), await launch(players[1]!, 30_000)];
  assert.ok(
    await eventsRouteExists(launched[0]!.token),
    'GET /api/runtime/events answers for a prov_a session',
  );
  const pages = [await open(DESKTOP), await open(MOBILE)];
  try {
    for (const [i, o] of pages.entries()) {
      await o.page.goto(launched[i]!.url);
      await balanceMatchesWallet(o.page, players[i]!);
      await until(
        'the event stream is ready',
        async () => (await o.page.locator('main').getAttribute('data-events')) === 'ready',
      );
    }
    for (const [i, o] of pages.entries()) {
      const player = players[i]!;
      const amount = i === 0 ? 12_345 : 500;
      const before = (await admin.balance(OPERATOR, player, 'EUR')).balance_minor;
      await admin.deposit({
        operatorId: OPERATOR,
        playerId: player,
        currency: 'EUR',
        amountMinor: amount,
        reference: `dep-${player}`,
      });
      // The page does not poll: until the signal it still shows the old balance.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await hook(o.page, 'game-balance').getAttribute('data-balance-minor'), before);
      const res = await call(h.base, 'POST', '/api/provider/v1/player-balance-refresh', {
        key,
        body: { external_player_id: player, reason: 'deposit', request_id: `req-${player}` },
      });
      assert.equal(res.status, 200, res.text);
      assert.ok(res.json.subscribers_notified >= 1, res.text);
      const held = await balanceMatchesWallet(o.page, player);
      assert.equal(BigInt(held), BigInt(before) + BigInt(amount));
    }
    for (const o of pages) assert.deepEqual(o.problems, []);
  } finally {
    for (const o of pages) await o.context.close();
  }
});

test('close from inside the operator iframe navigates the top window to return_url', async () => {
  const player = `br-f-${randomUUID().slice(0, 8)}`;
  const { url } = await launch(player, 10_000);
  const o = await open(DESKTOP);
  try {
    framed = url;
    await o.page.goto(WRAPPER);
    const frame = o.page.frameLocator('iframe');
    await until(
      'balance in the iframe',
      async () =>
        (await frame.locator('[data-testid="game-balance"]').getAttribute('data-balance-minor')) === '10000',
    );
    await frame.locator('[data-testid="close-button"]').click();
    await o.page.waitForURL(LOBBY);
  } finally {
    await o.context.close();
  }
});

test('an invalid token gets the error page: game-error and no game controls', async () => {
  for (const device of [DESKTOP, MOBILE]) {
    const o = await open(device);
    try {
      const res = await o.page.goto(
        `http://games.test/gs2c/html5Game.do?symbol=${slot.symbol}&mgckey=not-a-real-token`,
      );
      assert.equal(res?.status(), 401);
      assert.equal(await hook(o.page, 'game-error').isVisible(), true);
      assert.match(norm(await hook(o.page, 'game-error').textContent()), /not valid/);
      for (const id of ['spin-button', 'stake-select', 'game-balance', 'close-button']) {
        assert.equal(await hook(o.page, id).count(), 0, id);
      }
      // The only console line is Chromium's note on the 401 document itself.
      assert.deepEqual(
        o.problems.filter((p) => !/Failed to load resource: .* 401/.test(p)),
        [],
      );
    } finally {
      await o.context.close();
    }
  }
});

test('a session that ends while the page is open: the next spin shows game-error and removes the controls', async () => {
  const player = `br-e-${randomUUID().slice(0, 8)}`;
  const { url } = await launch(player, 10_000);
  const o = await open(DESKTOP);
  try {
    await o.page.goto(url);
    await balanceMatchesWallet(o.page, player);
    await launch(player, 10_000); // a relaunch retires the page's token
    // The spin is refused with 401. A background read of the page (the tournament or history
    // panel, the jackpot ticker) may meet the 401 first and end the page before the click lands:
    // the same outcome, reached by another request, so the click may find no button.
    await hook(o.page, 'spin-button')
      .click({ timeout: 10_000 })
      .catch(async (e) => {
        if (!(await hook(o.page, 'game-error').isVisible())) throw e;
      });
    await hook(o.page, 'game-error').waitFor({ state: 'visible' });
    assert.match(norm(await hook(o.page, 'game-error').textContent()), /ended/);
    assert.equal(await hook(o.page, 'spin-button').count(), 0);
    assert.equal(await hook(o.page, 'stake-select').count(), 0);
    assert.equal(await hook(o.page, 'close-button').isVisible(), true, 'the way back stays');
    assert.equal((await admin.balance(OPERATOR, player, 'EUR')).balance_minor, '10000');
  } finally {
    await o.context.close();
  }
});

test('insufficient funds (and no return_url): the bet is declined in game-error, the balance stays, no close button', async () => {
  const player = `br-i-${randomUUID().slice(0, 8)}`;
  const { url } = await launch(player, 50, null);
  const o = await open(MOBILE);
  try {
    await o.page.goto(url);
    await balanceMatchesWallet(o.page, player);
    assert.equal(await hook(o.page, 'close-button').isVisible(), false, 'no return_url, no close button');
    assert.equal(await hook(o.page, 'close-button').isDisabled(), true);
    await hook(o.page, 'stake-select').selectOption('100');
    await hook(o.page, 'spin-button').tap();
    await hook(o.page, 'game-error').waitFor({ state: 'visible' });
    assert.match(norm(await hook(o.page, 'game-error').textContent()), /^Insufficient funds/);
    await until('spin button enabled', async () => !(await hook(o.page, 'spin-button').isDisabled()));
    assert.equal(await balanceMatchesWallet(o.page, player), '50');
    assert.equal(await hook(o.page, 'last-win').getAttribute('data-win-minor'), '0');
  } finally {
    await o.context.close();
  }
});

// ── player protection from the operator's wallet ────────────────────────────────────────────

for (const [name, viewport] of [
  ['desktop', DESKTOP],
  ['phone', MOBILE],
] as const) {
  test(`player protection (${name}): self_excluded shows its message and disables the bet controls until a relaunch`, async () => {
    const player = `br-x-${randomUUID().slice(0, 8)}`;
    const { url } = await launch(player, 10_000);
    await admin.setProtection({ operatorId: OPERATOR, playerId: player, refuseDebitsWith: 'self_excluded' });
    const o = await open(viewport);
    try {
      await o.page.goto(url);
      await balanceMatchesWallet(o.page, player);
      if (name === 'phone') await hook(o.page, 'spin-button').tap();
      else await hook(o.page, 'spin-button').click();
      await hook(o.page, 'game-error').waitFor({ state: 'visible' });
      assert.equal(
        norm(await hook(o.page, 'game-error').textContent()),
        walletRefusalMessage('self_excluded'),
      );
      assert.equal(await hook(o.page, 'game').getAttribute('data-state'), 'blocked');
      assert.equal(await hook(o.page, 'game').getAttribute('data-bets-blocked'), 'self_excluded');
      // It stays so: the spin button, stake and level stay disabled (no re-enable after the answer).
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await hook(o.page, 'spin-button').isDisabled(), true);
      assert.equal(await hook(o.page, 'stake-select').isDisabled(), true);
      assert.equal(await hook(o.page, 'spin-button').isVisible(), true, 'shown, disabled');
      assert.equal(await balanceMatchesWallet(o.page, player), '10000');
      assert.deepEqual(o.problems, []);

      // A reload without a relaunch: still blocked (the session says so), nothing sent.
      await o.page.reload();
      await hook(o.page, 'game-error').waitFor({ state: 'visible' });
      assert.equal(await hook(o.page, 'game').getAttribute('data-state'), 'blocked');
      assert.equal(await hook(o.page, 'spin-button').isDisabled(), true);
      const { rows } = await h.db.pool.query(
        `SELECT count(*)::int AS n FROM wallet.requests WHERE player_id = $1 AND transaction_type = 'debit'`,
        [player],
      );
      assert.equal(rows[0].n, 1, 'one debit: the refused one');

      // The operator launches the game again: the page takes bets.
      await admin.setProtection({ operatorId: OPERATOR, playerId: player, refuseDebitsWith: null });
      const relaunched = await launch(player, 10_000);
      await o.page.goto(relaunched.url);
      await until('spin button enabled', async () => !(await hook(o.page, 'spin-button').isDisabled()));
      assert.equal(await hook(o.page, 'game-error').isVisible(), false);
      assert.equal(await hook(o.page, 'game').getAttribute('data-state'), 'ready');
    } finally {
      await o.context.close();
    }
  });

  test(`player protection (${name}): limit_reached shows its message and the next spin is allowed`, async () => {
    const player = `br-l-${randomUUID().slice(0, 8)}`;
    const { url } = await launch(player, 10_000);
    await admin.setProtection({
      operatorId: OPERATOR,
      playerId: player,
      refuseDebitsWith: 'limit_reached',
      times: 1,
    });
    const o = await open(viewport);
    try {
      await o.page.goto(url);
      await balanceMatchesWallet(o.page, player);
      const press = () =>
        name === 'phone' ? hook(o.page, 'spin-button').tap() : hook(o.page, 'spin-button').click();
      await press();
      await hook(o.page, 'game-error').waitFor({ state: 'visible' });
      assert.match(
        norm(await hook(o.page, 'game-error').textContent()),
        /^You have reached a limit set with your operator\./,
      );
      assert.equal(await hook(o.page, 'game').getAttribute('data-rejected'), 'limit_reached');
      assert.equal(await hook(o.page, 'game').getAttribute('data-bets-blocked'), null);
      await until('spin button enabled', async () => !(await hook(o.page, 'spin-button').isDisabled()));
      // The next spin is debited and settled.
      const answer = o.page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
      await press();
      const res = await (await answer).json();
      assert.equal(res.status, 'completed');
      await until('error cleared', async () => !(await hook(o.page, 'game-error').isVisible()));
      await balanceMatchesWallet(o.page, player);
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });
}
