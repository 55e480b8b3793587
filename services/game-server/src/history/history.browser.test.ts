import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { DESKTOP, PHONE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { Page } from 'playwright-core';

// The history panel (issue 26, docs/game-pages.md "History panel") on the slot, native (Spark
// Dice, prov_c) and crash (dcrash1, prov_d) pages, in Debian's chromium on the real stack (the
// sandbox wallet over HTTP, rounds settled by the Temporal worker), at 1280x800 and on a 390x844
// touch phone: play a round, open the panel, and the round is listed with its stake and win and a
// link to its replay page (a share link `/replay/<round_id>?k=…&iat=…&exp=…&sig=`, a new tab, no
// opener, no referrer); "this game / all games", "More", and a second round listed when the panel
// is opened again.
const OP = 'op_hist_page';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

before(async () => {
  w = await startPlayWorld({
    queue: 'history-browser',
    browser: true,
    operatorWalletTitles: ['cndice'],
    operators: [
      {
        id: OP,
        titles: [slot.symbol, 'cndice', 'dcrash1'],
        settings: { default_currency: 'EUR', allowed_currencies: ['EUR', 'USD'] },
      },
    ],
  });
  ({ h, admin, key } = w);
});
after(() => w.close());

const TITLES = {
  slot: { symbol: slot.symbol, currency: 'EUR', bet: 'spin-button', betPath: '/api/runtime/spin' },
  native: { symbol: 'cndice', currency: 'EUR', bet: 'play-button', betPath: '/api/runtime/native/bet' },
  crash: { symbol: 'dcrash1', currency: 'USD', bet: 'bet-button', betPath: '/api/runtime/crash/bet' },
} as const;
type Family = keyof typeof TITLES;

async function launch(family: Family, player: string): Promise<{ url: string; sessionId: string }> {
  const t = TITLES[family];
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol: t.symbol, currency: t.currency, external_player_id: player },
  });
  assert.equal(res.status, 200, res.text);
  return { url: res.json.launch_url, sessionId: res.json.session_id };
}

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const press = (page: Page, id: string, tap: boolean) => (tap ? hook(page, id).tap() : hook(page, id).click());

async function open(device: typeof DESKTOP | typeof PHONE, url: string) {
  const context = await w.lobbyContext(device);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Trusted ?Type|TrustedHTML/i.test(m.text()))
      problems.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  await until(
    'the page is ready',
    async () => (await hook(page, 'game').getAttribute('data-state')) === 'ready',
  );
  return { context, page, problems };
}

interface StoredRound {
  round_id: string;
  bet_minor: string;
  win: string;
  status: string;
}
async function rounds(sessionId: string): Promise<StoredRound[]> {
  const { rows } = await h.db.pool.query<StoredRound>(
    `SELECT round_id, bet_minor::text, (win_minor + jackpot_win_minor)::text AS win, status
     FROM rounds WHERE session_id = $1 ORDER BY created_at DESC, round_id DESC`,
    [sessionId],
  );
  return rows;
}

/** One round through the page, until it is settled; its stored row. */
async function playRound(page: Page, family: Family, tap: boolean, sessionId: string): Promise<StoredRound> {
  const before = (await rounds(sessionId)).length;
  if (family === 'crash') await hook(page, 'auto-cashout').fill('1.01');
  await until('play is enabled', async () => !(await hook(page, TITLES[family].bet).isDisabled()));
  const answer = page.waitForResponse((r) => r.url().endsWith(TITLES[family].betPath));
  await press(page, TITLES[family].bet, tap);
  assert.equal((await answer).status(), 200);
  let latest: StoredRound | undefined;
  await until('the round is settled', async () => {
    const all = await rounds(sessionId);
    latest = all[0];
    return all.length === before + 1 && latest?.status === 'completed';
  });
  // The page has shown the round's end (its balance is read again) before the panel is opened.
  await until('the page is ready again', async () => !(await hook(page, TITLES[family].bet).isDisabled()));
  return latest!;
}

async function openPanel(page: Page, tap: boolean): Promise<void> {
  await until('the History button shows', () => hook(page, 'history-button').isVisible());
  const loaded = page.waitForResponse((r) => r.url().includes('/api/runtime/history'));
  await press(page, 'history-button', tap);
  assert.equal((await loaded).status(), 200);
  await until(
    'the panel has loaded',
    async () => (await hook(page, 'history-panel').getAttribute('data-loading')) === 'false',
  );
  assert.equal(await hook(page, 'history-button').getAttribute('aria-expanded'), 'true');
}

async function listed(page: Page): Promise<string[]> {
  return hook(page, 'history-item').evaluateAll((els) =>
    els.map((e) => e.getAttribute('data-round-id') ?? ''),
  );
}

async function assertListed(page: Page, r: StoredRound): Promise<void> {
  const item = page.locator(`[data-testid="history-item"][data-round-id="${r.round_id}"]`);
  await until(`round ${r.round_id} is listed`, () => item.isVisible());
  assert.equal(await item.getAttribute('data-stake-minor'), r.bet_minor);
  assert.equal(await item.getAttribute('data-win-minor'), r.win);
  assert.equal(await item.getAttribute('data-status'), 'completed');
  assert.match((await item.locator('[data-testid="history-item-stake"]').textContent()) ?? '', /\d/);
  assert.match((await item.locator('[data-testid="history-item-win"]').textContent()) ?? '', /\d/);
  const link = item.locator('[data-testid="history-replay"]');
  const href = (await link.getAttribute('href')) ?? '';
  // A ten-minute share link made for the read (issue 34), never the round's permanent details link.
  assert.match(
    href,
    new RegExp(
      `^http://games\\.test/replay/${r.round_id}\\?k=k[A-Za-z0-9_-]{10}&iat=\\d+&exp=\\d+&sig=[A-Za-z0-9_-]{43}$`,
    ),
  );
  assert.equal(await link.getAttribute('target'), '_blank');
  assert.deepEqual(((await link.getAttribute('rel')) ?? '').split(' ').sort(), ['noopener', 'noreferrer']);
}

/** The open panel lies within the viewport's width (a 390 px phone included), its controls too. */
async function assertFits(page: Page, width: number): Promise<void> {
  for (const id of [
    'history-panel',
    'history-close',
    'history-scope-title',
    'history-scope-all',
    'history-list',
  ]) {
    const box = await hook(page, id).boundingBox();
    assert.ok(box, `${id} is laid out`);
    assert.ok(
      box.x >= 0 && box.x + box.width <= width + 0.5,
      `${id} fits ${width}px: ${JSON.stringify(box)}`,
    );
  }
  const overflow = (await page.evaluate(
    'document.documentElement.scrollWidth - window.innerWidth',
  )) as number;
  assert.ok(overflow <= 0, `no sideways scroll (${overflow}px)`);
}

for (const family of ['slot', 'native', 'crash'] as const) {
  for (const [name, device] of [
    ['desktop 1280x800', DESKTOP],
    ['phone 390x844 (touch)', PHONE],
  ] as const) {
    const tap = device === PHONE;
    test(`${family} page (${name}): a played round is listed with its stake, win and replay link`, async () => {
      const player = `hist-${family}-${randomUUID().slice(0, 8)}`;
      await admin.createPlayer({
        operatorId: OP,
        playerId: player,
        currency: TITLES[family].currency,
        balanceMinor: 1_000_000,
      });
      const l = await launch(family, player);
      const o = await open(device, l.url);
      try {
        const { page } = o;
        const first = await playRound(page, family, tap, l.sessionId);
        await openPanel(page, tap);
        await assertListed(page, first);
        assert.deepEqual(await listed(page), [first.round_id]);
        await assertFits(page, device.viewport.width);
        // The panel is a dialog over the game: it closes, and focus goes back to its button.
        await press(page, 'history-close', tap);
        assert.equal(await hook(page, 'history-panel').isVisible(), false);

        // A second round: opened again, the panel reads the list again, newest first.
        const second = await playRound(page, family, tap, l.sessionId);
        await openPanel(page, tap);
        await assertListed(page, second);
        assert.deepEqual(await listed(page), [second.round_id, first.round_id]);

        // All games: the same rounds here (the player has played only this title).
        const all = page.waitForResponse((r) => r.url().includes('scope=all'));
        await press(page, 'history-scope-all', tap);
        assert.equal((await all).status(), 200);
        await until('all games listed', async () => (await listed(page)).length === 2);
        assert.equal(await hook(page, 'history-scope-all').getAttribute('aria-pressed'), 'true');
        assert.equal(await hook(page, 'history-scope-title').getAttribute('aria-pressed'), 'false');
        assert.equal(await hook(page, 'history-more').isVisible(), false, 'no more pages');
        assert.deepEqual(o.problems, []);
      } finally {
        await o.context.close();
      }
    });
  }
}

test('slot page: "More" pages through older rounds (25 rounds, 20 a page), within 90 days only; a round that ends while open is listed', async () => {
  const player = `hist-more-${randomUUID().slice(0, 8)}`;
  await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor: 1_000_000 });
  const l = await launch('slot', player);
  const o = await open(PHONE, l.url);
  try {
    const { page } = o;
    const played = await playRound(page, 'slot', true, l.sessionId);
    // 24 older rounds of this session's player, an hour apart, and one from 100 days ago.
    await h.db.pool.query(
      `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                           bet_minor, win_minor, intent, created_at)
       SELECT $1 || n, s.operator_id, s.session_id, s.player_id, s.symbol, s.provider_id, s.currency, 'completed',
              100, 50, '{}'::jsonb, now() - make_interval(hours => n)
       FROM sessions s, generate_series(1, 24) n WHERE s.session_id = $2
       UNION ALL
       SELECT $1 || 'old', s.operator_id, s.session_id, s.player_id, s.symbol, s.provider_id, s.currency, 'completed',
              100, 50, '{}'::jsonb, now() - interval '100 days'
       FROM sessions s WHERE s.session_id = $2`,
      [`${l.sessionId}-h`, l.sessionId],
    );
    await openPanel(page, true);
    await assertListed(page, played);
    assert.equal((await listed(page)).length, 20);
    assert.equal(await hook(page, 'history-more').isVisible(), true);
    const more = page.waitForResponse((r) => r.url().includes('before='));
    await press(page, 'history-more', true);
    assert.equal((await more).status(), 200);
    await until('the older rounds are appended', async () => (await listed(page)).length === 25);
    const ids = await listed(page);
    assert.equal(new Set(ids).size, 25, 'each round once');
    assert.equal(ids[0], played.round_id);
    assert.equal(ids[24], `${l.sessionId}-h24`);
    assert.ok(!ids.includes(`${l.sessionId}-hold`), 'not older than 90 days');
    await until('no more pages', async () => !(await hook(page, 'history-more').isVisible()));

    // While open, the panel reads the list again when a round ends (the page's balance changes):
    // a round written now is listed first without reopening.
    await h.db.pool.query(
      `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                           bet_minor, win_minor, intent)
       SELECT $1, operator_id, session_id, player_id, symbol, provider_id, currency, 'completed', 100, 0, '{}'::jsonb
       FROM sessions WHERE session_id = $2`,
      [`${l.sessionId}-new`, l.sessionId],
    );
    const reread = page.waitForResponse((r) => r.url().includes('/api/runtime/history'));
    await hook(page, 'game-balance').evaluate((e) => e.setAttribute('data-balance-minor', '1'));
    assert.equal((await reread).status(), 200);
    await until(
      'the new round is listed first',
      async () => (await listed(page))[0] === `${l.sessionId}-new`,
    );
    assert.equal((await listed(page)).length, 20, 'the first page again');
    assert.deepEqual(o.problems, []);
  } finally {
    await o.context.close();
  }
});
