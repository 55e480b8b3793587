import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { walletRefusalMessage } from '@opi/contract';
import { createSecretBox } from '@opi/db';
import { chainSeed, commitmentOf, crashPointCents, formatMultiplier, payoutMinor } from '@opi/games';
import { call, type Harness, SERVICE_SECRET } from '@opi/testkit/harness';
import { DESKTOP, PHONE as MOBILE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { BrowserContext, Page } from 'playwright-core';

// The crash page in a real browser (Debian's chromium driven by playwright-core) on the real stack:
// launch through the API, the page's grant exchange, the sandbox wallet over HTTP, rounds settled
// by a Temporal worker. The launch URL is opened unchanged: its host (PUBLIC_BASE_URL
// http://games.test) is mapped to the API's port by Chromium's host resolver; the operator's lobby
// is answered by route interception. Crash points are chosen by typing a client seed into the page,
// picked from the chain's next seed (the test knows SERVICE_SECRET), as a player could not.
const OP = 'op_crash_browser';
const LOBBY = 'https://lobby.operator.test/crash-return';
const box = createSecretBox(SERVICE_SECRET);

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

before(async () => {
  w = await startPlayWorld({
    queue: 'crash-browser',
    browser: true,
    operators: [
      {
        id: OP,
        titles: ['dcrash1', 'dcrash2'],
        settings: { default_currency: 'USD', allowed_currencies: ['USD', 'EUR', 'GBP'] },
      },
    ],
  });
  ({ h, admin, key } = w);
});

after(() => w.close());

// ── helpers ───────────────────────────────────────────────────────────────────────────────────

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const norm = (s: string | null) => (s ?? '').replace(/\s/g, ' ').trim();

async function launch(player: string, symbol: string) {
  await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'USD', balanceMinor: 100_000 });
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol, external_player_id: player, currency: 'USD', return_url: LOBBY },
  });
  assert.equal(res.status, 200, res.text);
  return {
    url: res.json.launch_url as string,
    login: new URL(res.json.launch_url).searchParams.get('login')!,
  };
}

interface Opened {
  context: BrowserContext;
  page: Page;
  requests: { url: string; referer: string | undefined }[];
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

/** The page is ready: the wallet's balance shows and the bet button is enabled. */
async function ready(page: Page, player: string) {
  const held = (await admin.balance(OP, player, 'USD')).balance_minor;
  await until(
    `balance ${held}`,
    async () => (await hook(page, 'game-balance').getAttribute('data-balance-minor')) === held,
  );
  await until('bet enabled', async () => !(await hook(page, 'bet-button').isDisabled()));
  return held;
}

/** Types a client seed giving the next round a crash point `want` accepts; returns it and the commitment. */
async function chooseCrash(page: Page, player: string, symbol: string, want: (c: number) => boolean) {
  const { rows } = await h.db.pool.query<{ root_seed_enc: string; length: number; next_position: number }>(
    `SELECT c.root_seed_enc, c.length, c.next_position FROM crash_seed_chains c JOIN players p ON p.player_id = c.player_id
     WHERE p.external_player_id = $1 AND p.operator_id = $2 AND c.symbol = $3 AND c.exhausted_at IS NULL`,
    [player, OP, symbol],
  );
  const chain = rows[0]!;
  const seed = chainSeed(box.decrypt(chain.root_seed_enc), chain.length, chain.next_position);
  const commitment = norm(await hook(page, 'commitment').textContent());
  assert.equal(commitment, commitmentOf(seed), 'the page shows the next seed commitment before the bet');
  assert.equal(norm(await hook(page, 'nonce').textContent()), String(chain.next_position));
  for (let i = 0; ; i++) {
    const clientSeed = `browser-${i}`;
    const crash = crashPointCents(seed, clientSeed, chain.next_position, '97.00');
    if (want(crash)) {
      await hook(page, 'client-seed').fill(clientSeed);
      return { crash, seed, commitment };
    }
  }
}

async function press(page: Page, id: string, touch: boolean) {
  if (touch) await hook(page, id).tap();
  else await hook(page, id).click();
}

function assertNoLeaks(o: Opened, login: string, launchUrl: string) {
  for (const r of o.requests) {
    if (r.url === launchUrl) continue;
    assert.ok(!r.url.includes(login), `the login grant is in no other URL: ${r.url}`);
  }
  assert.deepEqual(
    o.requests.filter((r) => r.referer !== undefined),
    [],
    'no request carries a Referer',
  );
  assert.deepEqual(o.problems, []);
}

// ── tests ─────────────────────────────────────────────────────────────────────────────────────

for (const [name, device] of [
  ['desktop 1280x800', DESKTOP],
  ['phone 390x844 (touch)', MOBILE],
] as const) {
  const touch = device === MOBILE;

  test(`${name}: bet, watch the multiplier, cash out; the wallet pays stake x multiplier; close`, async () => {
    const player = `cb-${touch ? 'm' : 'd'}-${randomUUID().slice(0, 8)}`;
    const { url, login } = await launch(player, 'dcrash1');
    const o = await open(device);
    try {
      const nav = await o.page.goto(url);
      assert.equal(nav?.status(), 200);
      await ready(o.page, player);
      assert.equal(new URL(o.page.url()).search, '', 'the grant left the address bar');
      assert.equal(await o.page.title(), 'Rocket Rise');
      assert.equal(norm(await hook(o.page, 'game-balance').textContent()), 'USD 1,000.00');
      await hook(o.page, 'stake-select').selectOption('200');
      const chosen = await chooseCrash(o.page, player, 'dcrash1', (c) => c >= 500);
      await press(o.page, 'bet-button', touch);
      await until(
        'running',
        async () => (await hook(o.page, 'multiplier').getAttribute('data-state')) === 'running',
      );
      assert.equal(await hook(o.page, 'bet-button').isDisabled(), true, 'no second bet while a round runs');
      await until(
        '1.10x',
        async () => Number(await hook(o.page, 'multiplier').getAttribute('data-cents')) >= 110,
      );
      await until('cash-out enabled', async () => !(await hook(o.page, 'cashout-button').isDisabled()));
      await press(o.page, 'cashout-button', touch);
      await until(
        'cashed out',
        async () => (await hook(o.page, 'multiplier').getAttribute('data-state')) === 'cashed-out',
      );
      const cents = Number(await hook(o.page, 'multiplier').getAttribute('data-cents'));
      assert.ok(cents >= 110 && cents <= chosen.crash, `cashed out at ${cents}`);
      const win = payoutMinor(200n, cents).toString();
      await until(
        'last win',
        async () => (await hook(o.page, 'last-win').getAttribute('data-win-minor')) === win,
      );
      const expected = (100_000n - 200n + BigInt(win)).toString();
      await until(
        'the credit',
        async () => (await admin.balance(OP, player, 'USD')).balance_minor === expected,
      );
      assert.equal(await ready(o.page, player), expected, 'the page shows the credited balance');
      // After the round: the revealed seed matches the commitment shown before the bet.
      const revealed = norm(await hook(o.page, 'revealed-seed').textContent());
      assert.equal(revealed, chosen.seed);
      assert.equal(commitmentOf(revealed), chosen.commitment);
      assert.equal(
        norm(await hook(o.page, 'crash-point').textContent()),
        `${formatMultiplier(chosen.crash)}×`,
      );
      // The next round's commitment is this round's revealed seed (the chain, consumed backwards).
      await until(
        'the next commitment',
        async () => norm(await hook(o.page, 'commitment').textContent()) === chosen.seed,
      );

      if (touch) {
        const width = await o.page.evaluate('document.documentElement.scrollWidth');
        assert.ok(Number(width) <= 390, `no horizontal scrolling on a phone (${String(width)} px)`);
        for (const id of ['bet-button', 'cashout-button']) {
          const b = await hook(o.page, id).boundingBox();
          assert.ok(b && b.height >= 44 && b.width >= 44, `${id} is touch-sized`);
        }
      }
      // A reload resumes with the tab's session (the grant was used up).
      await o.page.reload();
      await ready(o.page, player);
      assert.equal(await hook(o.page, 'game-error').isVisible(), false);

      await press(o.page, 'close-button', touch);
      await o.page.waitForURL(LOBBY);
      assertNoLeaks(o, login, url);
    } finally {
      await o.context.close();
    }
  });

  test(`${name}: a crash loss shows the crash point and pays nothing`, async () => {
    const player = `cl-${touch ? 'm' : 'd'}-${randomUUID().slice(0, 8)}`;
    const { url, login } = await launch(player, 'dcrash2');
    const o = await open(device);
    try {
      await o.page.goto(url);
      await ready(o.page, player);
      await hook(o.page, 'stake-select').selectOption('100');
      const chosen = await chooseCrash(o.page, player, 'dcrash2', (c) => c >= 105 && c <= 125);
      await press(o.page, 'bet-button', touch);
      await until(
        'crashed',
        async () => (await hook(o.page, 'multiplier').getAttribute('data-state')) === 'crashed',
        20_000,
      );
      assert.equal(Number(await hook(o.page, 'multiplier').getAttribute('data-cents')), chosen.crash);
      assert.equal(
        norm(await hook(o.page, 'multiplier').textContent()),
        `${formatMultiplier(chosen.crash)}×`,
      );
      assert.equal(await hook(o.page, 'cashout-button').isDisabled(), true);
      assert.equal(await hook(o.page, 'last-win').getAttribute('data-win-minor'), '0');
      await until('the zero credit', async () => {
        const { rows } = await h.db.pool.query(
          `SELECT 1 FROM wallet_transactions WHERE player_id = $1 AND transaction_type = 'credit' AND status = 'success'`,
          [player],
        );
        return rows.length === 1;
      });
      assert.equal(await ready(o.page, player), '99900');
      assert.equal(norm(await hook(o.page, 'revealed-seed').textContent()), chosen.seed);
      assertNoLeaks(o, login, url);
    } finally {
      await o.context.close();
    }
  });

  test(`${name}: player protection: limit_reached allows the next bet; self_excluded disables Bet with its message until a relaunch`, async () => {
    const player = `cp-${touch ? 'm' : 'd'}-${randomUUID().slice(0, 8)}`;
    const { url } = await launch(player, 'dcrash1');
    await admin.setProtection({
      operatorId: OP,
      playerId: player,
      refuseDebitsWith: 'limit_reached',
      times: 1,
    });
    const o = await open(device);
    try {
      await o.page.goto(url);
      await ready(o.page, player);
      await press(o.page, 'bet-button', touch);
      await hook(o.page, 'game-error').waitFor({ state: 'visible' });
      assert.match(
        norm(await hook(o.page, 'game-error').textContent()),
        /^You have reached a limit set with your operator\./,
      );
      assert.equal(await hook(o.page, 'game').getAttribute('data-rejected'), 'limit_reached');
      await ready(o.page, player); // Bet is enabled again
      assert.equal(await hook(o.page, 'game').getAttribute('data-bets-blocked'), null);

      await admin.setProtection({ operatorId: OP, playerId: player, refuseDebitsWith: 'self_excluded' });
      await press(o.page, 'bet-button', touch);
      await until(
        'blocked',
        async () => (await hook(o.page, 'game').getAttribute('data-state')) === 'blocked',
      );
      assert.equal(
        norm(await hook(o.page, 'game-error').textContent()),
        walletRefusalMessage('self_excluded'),
      );
      assert.equal(await hook(o.page, 'game').getAttribute('data-bets-blocked'), 'self_excluded');
      assert.equal(await hook(o.page, 'bet-button').isDisabled(), true);
      assert.equal(await hook(o.page, 'stake-select').isDisabled(), true);
      assert.deepEqual(o.problems, []);
      assert.equal((await admin.balance(OP, player, 'USD')).balance_minor, '100000');

      await admin.setProtection({ operatorId: OP, playerId: player, refuseDebitsWith: null });
      const again = await launch(player, 'dcrash1');
      await o.page.goto(again.url);
      await ready(o.page, player);
      assert.equal(await hook(o.page, 'game-error').isVisible(), false);
    } finally {
      await o.context.close();
    }
  });
}

test('an expired login grant shows the error page; the demo page plays without an operator', async () => {
  const player = `ce-${randomUUID().slice(0, 8)}`;
  const { url } = await launch(player, 'dcrash1');
  await h.db.pool.query(
    `UPDATE sessions SET grant_expires_at = now() - interval '1 second' WHERE token_hash IS NOT NULL
       AND player_id = (SELECT player_id FROM players WHERE external_player_id = $1)`,
    [player],
  );
  const o = await open(MOBILE);
  try {
    const nav = await o.page.goto(url);
    assert.equal(nav?.status(), 401);
    assert.equal(await hook(o.page, 'game-error').isVisible(), true);
    assert.match(norm(await hook(o.page, 'game-error').textContent()), /expired/);
    assert.equal(await hook(o.page, 'bet-button').count(), 0);
    // (Chromium logs the 401 document load itself as a console error.)
    o.problems.length = 0;

    await o.page.goto('http://games.test/games/paper-kite/demo');
    await until('demo ready', async () => !(await hook(o.page, 'bet-button').isDisabled()));
    assert.equal(norm(await hook(o.page, 'game-balance').textContent()), 'FUN 1,000.00');
    assert.equal(await hook(o.page, 'close-button').isVisible(), false);
    await press(o.page, 'bet-button', true);
    await until('demo round', async () => {
      const s = await hook(o.page, 'multiplier').getAttribute('data-state');
      return s === 'running' || s === 'crashed';
    });
    assert.deepEqual(o.problems, []);
  } finally {
    await o.context.close();
  }
});
