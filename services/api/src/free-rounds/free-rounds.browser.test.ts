import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CATALOG, SLOT_SYMBOLS } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { Browser, Page } from 'playwright-core';

// The slot page with free rounds in real chromium (desktop and phone): the page shows the count,
// the stake and what they won so far, plays them (credits only at the sandbox wallet), and offers
// paid spins once they are used up. The launch URL's host is mapped to the API by the resolver.
const OPERATOR = 'op_fr_browser';
const slot = CATALOG.find(
  (e) => e.provider_id === 'prov_a' && e.release.status === 'accepted' && SLOT_SYMBOLS.includes(e.symbol),
)!;
const DESKTOP = { viewport: { width: 1280, height: 800 } };
const MOBILE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;
let browser: Browser;

before(async () => {
  w = await startPlayWorld({
    queue: 'fr-browser',
    browser: true,
    operators: [{ id: OPERATOR, titles: [slot.symbol] }],
  });
  ({ h, admin, key } = w);
  browser = w.browser!;
});
after(() => w.close());

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

async function playFreeRounds(view: typeof DESKTOP | typeof MOBILE, name: string, tap: boolean) {
  const player = `fr-browser-${name}`;
  const campaignId = `fr-browser-${name}`;
  await admin.createPlayer({ operatorId: OPERATOR, playerId: player, currency: 'EUR', balanceMinor: 10_000 });
  const created = await call(h.base, 'POST', '/api/provider/v1/free-rounds', {
    key,
    sign: true,
    body: {
      campaign_id: campaignId,
      symbols: [slot.symbol],
      currency: 'EUR',
      bet_minor: 200,
      rounds: 2,
      valid_from: new Date(Date.now() - 60_000).toISOString(),
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      players: [player],
    },
  });
  assert.equal(created.status, 201, created.text);
  const launched = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol: slot.symbol, external_player_id: player, currency: 'EUR' },
  });
  assert.equal(launched.status, 200, launched.text);

  const context = await browser.newContext(view);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    await page.goto(launched.json.launch_url);
    await until(
      'the page ready',
      async () => (await hook(page, 'game').getAttribute('data-state')) === 'ready',
    );
    await until('free rounds shown', async () => await hook(page, 'free-rounds').isVisible());
    assert.equal((await hook(page, 'free-rounds-count').textContent())?.trim(), '2 of 2');
    assert.match((await hook(page, 'free-rounds-stake').textContent()) ?? '', /2\.00/);
    assert.equal(await hook(page, 'free-rounds-won').getAttribute('data-won-minor'), '0');
    assert.equal((await hook(page, 'spin-button').textContent())?.trim(), 'Free spin');

    let won = 0n;
    for (let i = 1; i <= 2; i++) {
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
      await until('spin enabled', async () => await hook(page, 'spin-button').isEnabled());
      if (tap) await hook(page, 'spin-button').tap();
      else await hook(page, 'spin-button').click();
      const res = await (await answer).json();
      assert.equal(res.free_round.campaign_id, campaignId);
      assert.equal(res.bet_minor, '0');
      won += BigInt(res.win_minor);
      if (i === 1) {
        await until('one free round left', async () =>
          (await hook(page, 'free-rounds-count').textContent())?.trim() === '1 of 2' ? true : undefined,
        );
        assert.equal(await hook(page, 'free-rounds-won').getAttribute('data-won-minor'), won.toString());
      }
    }
    await until('free rounds used up', async () => !(await hook(page, 'free-rounds').isVisible()));
    assert.equal((await hook(page, 'spin-button').textContent())?.trim(), 'Spin');
    await until(
      'the settled balance',
      async () =>
        (await hook(page, 'game-balance').getAttribute('data-balance-minor')) === (10_000n + won).toString(),
    );
    const { rows } = await h.db.pool.query<{ transaction_type: string }>(
      `SELECT transaction_type FROM wallet.requests WHERE operator_id = $1 AND player_id = $2
          AND transaction_type <> 'balance' ORDER BY request_seq`,
      [OPERATOR, player],
    );
    assert.deepEqual(
      rows.map((r) => r.transaction_type),
      ['credit', 'credit'],
    );
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
}

test('desktop: the slot page shows the free rounds (count, stake, won so far) and plays them', async () => {
  await playFreeRounds(DESKTOP, 'desktop', false);
});

test('phone: the same with taps', async () => {
  await playFreeRounds(MOBILE, 'phone', true);
});
