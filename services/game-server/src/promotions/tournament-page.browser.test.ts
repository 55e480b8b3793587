import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, type Harness } from '@opi/testkit/harness';
import { DESKTOP, PHONE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { Page } from 'playwright-core';

// Issue 25: the tournament leaderboard is live on the game page: the player's own place and the
// top ten, other players by a pseudonym. Debian's chromium on the real stack.
const OPERATOR = 'op_t_page';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

before(async () => {
  w = await startPlayWorld({
    queue: 't-page',
    browser: true,
    operators: [{ id: OPERATOR, titles: [slot.symbol] }],
  });
  ({ h, admin, key } = w);
  const admin_ = (method: string, path: string, body: unknown) =>
    call(h.base, method, `/api/admin/v1/tournaments${path}`, { key: ADMIN_KEY, sign: true, body });
  const now = Date.now();
  const created = await admin_('PUT', '/page-cup', {
    name: 'Page Cup',
    scoring: 'total_win',
    starts_at: new Date(now - 1_000).toISOString(),
    ends_at: new Date(now + 3_600_000).toISOString(),
    titles: [slot.symbol],
    currencies: { EUR: { min_stake_minor: 1, prizes: [5_000, 2_000, 1_000] } },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal((await admin_('PUT', `/page-cup/operators/${OPERATOR}`, { enabled: true })).status, 200);
});
after(() => w?.close());

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);

async function launch(player: string) {
  await admin.createPlayer({
    operatorId: OPERATOR,
    playerId: player,
    currency: 'EUR',
    balanceMinor: 1_000_000,
  });
  return w.launch(key, { symbol: slot.symbol, external_player_id: player });
}

for (const [device, options] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const) {
  test(`${device}: the page shows the player's place and the top ten, and both follow play`, async () => {
    const me = `t-${device}`;
    const launched = await launch(me);
    const context = await w.lobbyContext(options);
    const page = await context.newPage();
    await page.goto(launched.url.toString());
    await until('the tournament panel', async () => (await hook(page, 'tournament').isVisible()) === true);
    assert.equal(await hook(page, 'tournament-name').textContent(), 'Page Cup');
    // Spin on the page until a round wins something (only settled wins score in total_win).
    let scored = false;
    for (let i = 0; i < 40 && !scored; i++) {
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
      await hook(page, 'spin-button').click();
      const json = await (await answer).json();
      scored = json.status === 'completed' && json.win_minor !== '0';
      await until('ready to spin again', async () => !(await hook(page, 'spin-button').isDisabled()), 10_000);
    }
    assert.ok(scored, 'a winning round in 40 spins');
    await until(
      'my place shows',
      async () => (await hook(page, 'tournament').getAttribute('data-my-rank')) !== '',
    );
    const own = page.locator('[data-testid="tournament-row"][data-own="true"]');
    await until('my row in the top ten', async () => (await own.count()) === 1);
    assert.match((await own.textContent())!, /You/);
    // Another player's far bigger total shows above, by a pseudonym, within a few seconds.
    const other = await launch(`t-other-${device}`);
    let otherWon = 0n;
    for (let i = 0; i < 60 && otherWon < 100_000n; i++) {
      const r = await w.runtime(other.token!, 'POST', '/api/runtime/spin', { bet_minor: 5_000 });
      if (r.json?.status === 'completed') otherWon += BigInt(r.json.win_minor);
    }
    const { rows } = await h.db.pool.query(
      `SELECT external_player_id, score::text FROM tournament_scores WHERE tournament_id = 'page-cup' ORDER BY score DESC`,
    );
    const board = await until(
      'the board follows',
      async () => {
        const names = await page
          .locator('[data-testid="tournament-row"]')
          .evaluateAll((els) => els.map((e) => e.textContent ?? ''));
        return names.length === rows.length ? names : false;
      },
      10_000,
    );
    assert.ok(
      board.every((line) => !line.includes(`t-other-${device}`)),
      'other players are shown by a pseudonym',
    );
    // The player's place follows the live order (ties: the earlier score first).
    const { rows: order } = await h.db.pool.query(
      `SELECT external_player_id FROM tournament_scores WHERE tournament_id = 'page-cup'
        ORDER BY score DESC, score_reached_at, external_player_id COLLATE "C"`,
    );
    const expected = String(order.findIndex((r) => r.external_player_id === me) + 1);
    await until(
      `my place ${expected}`,
      async () => (await hook(page, 'tournament').getAttribute('data-my-rank')) === expected,
      10_000,
    );
    await context.close();
  });
}
