import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { walletRefusalMessage } from '@opi/contract';
import { minorToDecimalString } from '@opi/money';
import { call, type Harness } from '@opi/testkit/harness';
import { DESKTOP, PHONE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { BrowserContext, Page } from 'playwright-core';

// The native pages in a real browser (Debian's chromium driven by playwright-core, launched the
// way the slot page's browser tests launch it) on the real stack: launch through the provider
// API, the launch URL opened unchanged (games.test mapped to the API's port by Chromium's host
// resolver), rounds settled by a Temporal worker against the sandbox wallet over HTTP. Desktop
// (1280x800, mouse) and phone (390x844, touch): Mines to a cash-out, Hi-Lo to a loss.
const OP = 'op_native_browser';
const LOBBY = 'https://lobby.operator.test/return?from=native';
const DEVICES = [
  ['desktop', DESKTOP, false],
  ['phone', PHONE, true],
] as const;

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

before(async () => {
  const titles = ['cnmines', 'cnhilo', 'cndice'];
  w = await startPlayWorld({
    queue: 'native-browser',
    browser: true,
    operatorWalletTitles: titles,
    operators: [{ id: OP, titles }],
  });
  ({ h, admin, key } = w);
});
after(() => w.close());

// ── helpers ───────────────────────────────────────────────────────────────────────────────────

const eur = new Intl.NumberFormat('en', {
  style: 'currency',
  currency: 'EUR',
  currencyDisplay: 'code',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const shown = (minor: string | bigint) =>
  eur.format(minorToDecimalString(BigInt(minor), 'EUR') as unknown as number).replace(/\s/g, ' ');
const norm = (s: string | null) => (s ?? '').replace(/\s/g, ' ').trim();

async function launch(symbol: string, player: string, balanceMinor: number) {
  await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor });
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol, external_player_id: player, return_url: LOBBY },
  });
  assert.equal(res.status, 200, res.text);
  assert.match(res.json.launch_url, /^http:\/\/games\.test\/native\/[a-z-]+\/\?grant=/);
  return { url: res.json.launch_url as string, sessionId: res.json.session_id as string };
}

interface Opened {
  context: BrowserContext;
  page: Page;
  problems: string[];
  referers: string[];
}

async function openPage(device: typeof DESKTOP | typeof PHONE): Promise<Opened> {
  const context = await w.lobbyContext(device);
  const page = await context.newPage();
  const problems: string[] = [];
  const referers: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => {
    const ref = r.headers()['referer'];
    if (ref) referers.push(`${r.url()} <- ${ref}`);
  });
  return { context, page, problems, referers };
}

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const press = (page: Page, id: string, touch: boolean) =>
  touch ? hook(page, id).tap() : hook(page, id).click();

async function balanceMatchesWallet(page: Page, player: string): Promise<string> {
  const held = (await admin.balance(OP, player, 'EUR')).balance_minor;
  await until(
    `game-balance ${held}`,
    async () => (await hook(page, 'game-balance').getAttribute('data-balance-minor')) === held,
  );
  assert.equal(norm(await hook(page, 'game-balance').textContent()), shown(held));
  return held;
}

const gameState = (page: Page) => hook(page, 'game').getAttribute('data-state');
const waitState = (page: Page, state: string) =>
  until(`page state ${state}`, async () => (await gameState(page)) === state);

/** Every control is inside the viewport (nothing needs a scroll to be reached on this device). */
async function controlsVisible(page: Page, ids: string[]) {
  const vp = page.viewportSize()!;
  for (const id of ids) {
    const box = await hook(page, id).boundingBox();
    assert.ok(box, `${id} is rendered`);
    assert.ok(
      box.x >= 0 && box.x + box.width <= vp.width + 1,
      `${id} fits the width (${JSON.stringify(box)})`,
    );
    assert.ok(box.width >= 24 && box.height >= 24, `${id} is large enough to hit`);
  }
}

// ── the tests ────────────────────────────────────────────────────────────────────────────────

describe('native pages in chromium', () => {
  for (const [name, device, touch] of DEVICES) {
    test(`${name}: Ember Mines to a cash-out, then close to the lobby`, async () => {
      const player = `nb-mines-${name}-${randomUUID().slice(0, 6)}`;
      const { url } = await launch('cnmines', player, 50_000);
      const o = await openPage(device);
      try {
        const { page } = o;
        const res = await page.goto(url);
        assert.equal(res?.status(), 200);
        await waitState(page, 'ready');
        await balanceMatchesWallet(page, player);
        await controlsVisible(page, [
          'play-button',
          'stake-select',
          'mines-select',
          'mine-cell-0',
          'mine-cell-24',
        ]);
        await hook(page, 'stake-select').selectOption('1000');
        await hook(page, 'mines-select').selectOption('3');
        await press(page, 'play-button', touch);
        await waitState(page, 'playing');
        assert.equal(await hook(page, 'cashout-button').isDisabled(), true, 'nothing to cash out yet');
        const roundId = (await hook(page, 'game').getAttribute('data-round-id'))!;
        const { rows } = await h.db.pool.query(`SELECT outcome FROM rounds WHERE round_id = $1`, [roundId]);
        const mines: number[] = rows[0].outcome.mines;
        const safe = Array.from({ length: 25 }, (_, i) => i).filter((i) => !mines.includes(i));
        for (const [n, cell] of safe.slice(0, 2).entries()) {
          await press(page, `mine-cell-${cell}`, touch);
          await until(
            `cell ${cell} revealed`,
            async () => (await hook(page, `mine-cell-${cell}`).getAttribute('data-state')) === 'safe',
          );
          await until(`${n + 1} reveals`, async () => !(await hook(page, 'cashout-button').isDisabled()));
        }
        assert.match(norm(await hook(page, 'cashout-button').textContent()), /Cash out EUR 12\.59/);
        await press(page, 'cashout-button', touch);
        await waitState(page, 'completed');
        assert.equal(await hook(page, 'last-win').getAttribute('data-win-minor'), '1259');
        assert.equal(norm(await hook(page, 'last-win').textContent()), shown(1259n));
        const held = await balanceMatchesWallet(page, player);
        assert.equal(held, String(50_000 - 1000 + 1259));
        // The layout shows once the round is over.
        assert.equal(await page.locator('[data-state="mine"]').count(), 3);
        assert.equal(await hook(page, 'play-button').isDisabled(), false, 'ready for the next round');
        assert.equal(await hook(page, 'game-error').isHidden(), true);
        assert.deepEqual(o.problems, []);
        assert.deepEqual(o.referers, [], 'no request carries a Referer');
        await press(page, 'close-button', touch);
        await page.waitForURL(LOBBY);
      } finally {
        await o.context.close();
      }
    });

    test(`${name}: Ash Hi-Lo to a loss`, async () => {
      const player = `nb-hilo-${name}-${randomUUID().slice(0, 6)}`;
      const { url } = await launch('cnhilo', player, 50_000);
      const o = await openPage(device);
      try {
        const { page } = o;
        await page.goto(url);
        await waitState(page, 'ready');
        await balanceMatchesWallet(page, player);
        await controlsVisible(page, [
          'play-button',
          'stake-select',
          'hilo-higher',
          'hilo-lower',
          'cashout-button',
        ]);
        await hook(page, 'stake-select').selectOption('500');
        let lost = false;
        for (let attempt = 0; attempt < 20 && !lost; attempt++) {
          await press(page, 'play-button', touch);
          await waitState(page, 'playing');
          const card = (await hook(page, 'hilo-card').getAttribute('data-rank'))!;
          assert.match(card, /^([1-9]|1[0-3])$/);
          // "Same" is right one time in 13: a loss is the likely end; a right guess is cashed out.
          await press(page, 'hilo-same', touch);
          await until('the guess answered', async () => {
            const s = await gameState(page);
            return (
              s === 'completed' || (s === 'playing' && !(await hook(page, 'cashout-button').isDisabled()))
            );
          });
          if ((await gameState(page)) === 'completed') {
            lost = true;
            break;
          }
          await press(page, 'cashout-button', touch);
          await waitState(page, 'completed');
        }
        assert.ok(lost, 'a wrong guess within 20 rounds');
        assert.match(norm(await hook(page, 'game-message').textContent()), /Wrong guess/);
        assert.equal(await hook(page, 'last-win').getAttribute('data-win-minor'), '0');
        const { rows } = await h.db.pool.query(
          `SELECT coalesce(sum(win_minor - bet_minor), 0)::bigint AS net FROM rounds r JOIN players p USING (player_id)
           WHERE p.external_player_id = $1 AND r.status = 'completed'`,
          [player],
        );
        const held = await balanceMatchesWallet(page, player);
        assert.equal(BigInt(held), 50_000n + rows[0].net);
        assert.deepEqual(o.problems, []);
      } finally {
        await o.context.close();
      }
    });
  }

  test('an expired grant shows the error page; insufficient funds is shown on the page', async () => {
    const { url, sessionId } = await launch('cndice', `nb-dice-${randomUUID().slice(0, 6)}`, 100);
    const o = await openPage(PHONE);
    try {
      const { page } = o;
      await page.goto(url);
      await waitState(page, 'ready');
      await hook(page, 'dice-target').fill('50.00');
      assert.match(norm(await hook(page, 'dice-multiplier').textContent()), /×1\.96/);
      await hook(page, 'stake-select').selectOption('200');
      await press(page, 'play-button', true);
      await waitState(page, 'rejected');
      assert.match(norm(await hook(page, 'game-error').textContent()), /Insufficient funds/);
      await h.db.pool.query(
        `UPDATE sessions SET grant_expires_at = now() - interval '1 second' WHERE session_id = $1`,
        [sessionId],
      );
      const res = await page.goto(url);
      assert.equal(res?.status(), 401);
      assert.match(norm(await hook(page, 'game-error').textContent()), /expired/);
      assert.equal(await hook(page, 'play-button').count(), 0, 'no game controls');
    } finally {
      await o.context.close();
    }
  });

  for (const [name, device] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    test(`player protection (${name}): player_blocked shows its message and disables Bet until a relaunch; limit_reached allows the next bet`, async () => {
      const player = `nb-pp-${randomUUID().slice(0, 6)}`;
      const { url } = await launch('cndice', player, 10_000);
      await admin.setProtection({
        operatorId: OP,
        playerId: player,
        refuseDebitsWith: 'limit_reached',
        times: 1,
      });
      const o = await openPage(device);
      try {
        const { page } = o;
        await page.goto(url);
        await waitState(page, 'ready');
        // limit_reached: that round only.
        await press(page, 'play-button', name === 'phone');
        await waitState(page, 'rejected');
        assert.match(
          norm(await hook(page, 'game-error').textContent()),
          /^You have reached a limit set with your operator\./,
        );
        await until('play enabled', async () => !(await hook(page, 'play-button').isDisabled()));
        await press(page, 'play-button', name === 'phone');
        await waitState(page, 'completed');
        assert.equal(await hook(page, 'game-error').isVisible(), false);

        // player_blocked: Bet stays disabled, with the message, also after a reload.
        await admin.setProtection({ operatorId: OP, playerId: player, refuseDebitsWith: 'player_blocked' });
        await press(page, 'play-button', name === 'phone');
        await waitState(page, 'blocked');
        assert.equal(
          norm(await hook(page, 'game-error').textContent()),
          walletRefusalMessage('player_blocked'),
        );
        assert.equal(await hook(page, 'game').getAttribute('data-bets-blocked'), 'player_blocked');
        assert.equal(await hook(page, 'play-button').isDisabled(), true);
        assert.equal(await hook(page, 'stake-select').isDisabled(), true);
        assert.deepEqual(o.problems, []);
        await admin.setProtection({ operatorId: OP, playerId: player, refuseDebitsWith: null });
        const again = await launch('cndice', player, 10_000);
        await page.goto(again.url);
        await waitState(page, 'ready');
        assert.equal(await hook(page, 'play-button').isDisabled(), false);
        assert.equal(await hook(page, 'game-error').isVisible(), false);
      } finally {
        await o.context.close();
      }
    });
  }
});
