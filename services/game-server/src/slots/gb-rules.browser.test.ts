import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { DESKTOP, PHONE as MOBILE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { Page } from 'playwright-core';

// The UK's rules on the game pages (issue 26), in Debian's chromium on the real stack, at
// 1280x800 and on a 390x844 touch phone. Every jurisdiction: a return at or below the stake is not
// celebrated ("Returned", no "win" wording, data-celebrate false) on the slot, native (Spark Dice)
// and crash (dcrash1) pages. GB: after a native or crash round the bet button waits 5 s with a
// countdown, then the next bet is taken; no autoplay or auto-bet is offered; the slot page offers
// only stakes within the cap.
const OP_GB = 'op_gb26_page';
const OP = 'op_gb26_page_mt';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
const keys: Record<string, string> = {};

before(async () => {
  const settings = { default_currency: 'EUR', allowed_currencies: ['EUR', 'USD', 'GBP'] };
  const titles = [slot.symbol, 'cndice', 'dcrash1'];
  w = await startPlayWorld({
    queue: 'gb26-browser',
    browser: true,
    operatorWalletTitles: ['cndice'],
    operators: [
      { id: OP_GB, titles, settings: { ...settings, default_jurisdiction: 'GB' } },
      { id: OP, titles, settings: { ...settings, default_jurisdiction: 'MT' } },
    ],
  });
  ({ h, admin } = w);
  for (const op of [OP_GB, OP]) keys[op] = w.operators[op]!.key;
});
after(() => w.close());

async function launch(
  op: string,
  symbol: string,
  currency: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const player = `gb26p-${randomUUID().slice(0, 8)}`;
  await admin.createPlayer({ operatorId: op, playerId: player, currency, balanceMinor: 10_000_000 });
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key: keys[op]!,
    body: { symbol, currency, external_player_id: player, ...extra },
  });
  assert.equal(res.status, 200, res.text);
  return res.json.launch_url;
}

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const press = (page: Page, id: string, tap: boolean) => (tap ? hook(page, id).tap() : hook(page, id).click());

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
const text = async (page: Page, id: string) => ((await hook(page, id).textContent()) ?? '').trim();
/** The label shown next to the last win / return. */
const lastLabel = (page: Page) => hook(page, 'last-win').locator('xpath=preceding-sibling::*[1]');

async function assertNeutral(page: Page, message: string) {
  assert.match(message, /^(Rolled [0-9.]+: )?[Rr]eturned /, message);
  assert.doesNotMatch(message, /\bwin\b|\bwon\b|!/i, message);
  assert.equal(await hook(page, 'last-win').getAttribute('data-celebrate'), 'false');
  assert.equal(((await lastLabel(page).textContent()) ?? '').trim(), 'Returned');
}

for (const [name, device] of [
  ['desktop 1280x800', DESKTOP],
  ['phone 390x844 (touch)', MOBILE],
] as const) {
  const tap = device === MOBILE;

  test(`slot page (${name}): a return at or below the stake reads "Returned", never a win`, async () => {
    const o = await open(device, await launch(OP, slot.symbol, 'EUR'));
    try {
      const { page } = o;
      let found = false;
      for (let i = 0; i < 150 && !found; i++) {
        await until(
          'the spin button is enabled',
          async () => !(await hook(page, 'spin-button').isDisabled()),
        );
        const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
        await press(page, 'spin-button', tap);
        const res = await answer;
        assert.equal(res.status(), 200, await res.text());
        const body = (await res.json()) as { status: string; bet_minor: string; win_minor: string };
        if (body.status !== 'completed') continue;
        // The spin is over (aria-busy false, set after the answer is shown): a last win equal to
        // the previous spin's is already on the page while the reels still land ('Spinning…').
        await until(
          'the page shows the round',
          async () =>
            (await hook(page, 'spin-button').getAttribute('aria-busy')) === 'false' &&
            (await hook(page, 'last-win').getAttribute('data-win-minor')) === body.win_minor,
        );
        const win = BigInt(body.win_minor);
        if (win > 0n && win <= BigInt(body.bet_minor)) {
          found = true;
          await assertNeutral(page, await text(page, 'game-message'));
        } else if (win > BigInt(body.bet_minor)) {
          assert.match(await text(page, 'game-message'), /You won/);
          assert.equal(await hook(page, 'last-win').getAttribute('data-celebrate'), 'true');
          assert.equal(((await lastLabel(page).textContent()) ?? '').trim(), 'Last win');
        }
      }
      assert.ok(found, 'a spin returned at most its stake within 150 spins');
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });

  test(`dice page (${name}): a roll paying exactly the stake (target 98.00, x1.00) reads "Returned"`, async () => {
    const o = await open(device, await launch(OP, 'cndice', 'EUR'));
    try {
      const { page } = o;
      await hook(page, 'dice-target').fill('98.00');
      let found = false;
      for (let i = 0; i < 10 && !found; i++) {
        await until('the bet button is enabled', async () => !(await hook(page, 'play-button').isDisabled()));
        const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/native/bet'));
        await press(page, 'play-button', tap);
        const res = await answer;
        assert.equal(res.status(), 200, await res.text());
        const { round } = (await res.json()) as {
          round: { status: string; win_minor: string; stake_minor: string };
        };
        if (round.status !== 'completed' || round.win_minor === '0') continue;
        assert.equal(round.win_minor, round.stake_minor, 'x1.00 pays the stake back');
        found = true;
        await until('the page shows the round', async () => /Rolled/.test(await text(page, 'game-message')));
        await assertNeutral(page, await text(page, 'game-message'));
        assert.match(await text(page, 'game-message'), /^Rolled [0-9.]+: returned /);
      }
      assert.ok(found, 'a roll under 98.00 within 10 bets');
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });

  test(`GB native and crash pages (${name}): 5 s with a countdown after a round, then the next bet; no autoplay or auto-bet`, async () => {
    for (const [symbol, currency, button, path] of [
      ['cndice', 'EUR', 'play-button', '/api/runtime/native/bet'],
      ['dcrash1', 'USD', 'bet-button', '/api/runtime/crash/bet'],
    ] as const) {
      const o = await open(device, await launch(OP_GB, symbol, currency));
      try {
        const { page } = o;
        const body = (await page.locator('body').textContent()) ?? '';
        assert.doesNotMatch(
          body,
          /autoplay|auto[- ]?bet|auto ?play|turbo/i,
          `${symbol}: no autoplay offered`,
        );
        if (symbol === 'dcrash1') await hook(page, 'auto-cashout').fill('1.01');
        const answer = page.waitForResponse((r) => r.url().endsWith(path));
        await press(page, button, tap);
        assert.equal((await answer).status(), 200);
        // The round ends (dice at once; crash at 1.01x or its crash), then the wait shows.
        await until(
          `${symbol}: the countdown shows`,
          async () => (await hook(page, 'game').getAttribute('data-cycle-wait')) === 'true',
          20_000,
        );
        const shownAt = Date.now();
        assert.equal(await hook(page, button).isDisabled(), true);
        assert.match(await text(page, button), /^Next game in [1-5] s$/);
        const box = await hook(page, button).boundingBox();
        assert.ok(
          box && box.y + box.height <= device.viewport.height,
          `${symbol}: the countdown is in the viewport`,
        );
        await until(
          `${symbol}: the bet button is enabled again`,
          async () => !(await hook(page, button).isDisabled()),
          10_000,
        );
        assert.ok(
          Date.now() - shownAt >= 3000,
          `${symbol}: enabled ${Date.now() - shownAt} ms after the wait showed`,
        );
        assert.doesNotMatch(await text(page, button), /Next game/);
        const next = page.waitForResponse((r) => r.url().endsWith(path));
        await press(page, button, tap);
        assert.equal((await next).status(), 200, `${symbol}: the next bet is taken`);
        assert.deepEqual(o.problems, []);
      } finally {
        await o.context.close();
      }
    }
  });
}

test('crash page: an automatic cash-out at 1.01x on the smallest stake returns the stake and reads "returned"', async () => {
  const o = await open(DESKTOP, await launch(OP, 'dcrash1', 'USD'));
  try {
    const { page } = o;
    const smallest = await hook(page, 'stake-select').locator('option').first().getAttribute('value');
    await hook(page, 'stake-select').selectOption(smallest!);
    await hook(page, 'auto-cashout').fill('1.01');
    let found = false;
    for (let i = 0; i < 10 && !found; i++) {
      await until(
        'the bet button is enabled',
        async () => !(await hook(page, 'bet-button').isDisabled()),
        20_000,
      );
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/crash/bet'));
      await press(page, 'bet-button', false);
      const res = await answer;
      assert.equal(res.status(), 200, await res.text());
      const roundId = ((await res.json()) as { round: { round_id: string } }).round.round_id;
      await until('the round ended on the page', async () =>
        /Cashed out|Crashed/.test(await text(page, 'game-message')),
      );
      const { rows } = await h.db.pool.query<{ state: string; win: string; stake: string }>(
        `SELECT state, win_minor::text AS win, stake_minor::text AS stake FROM crash_rounds WHERE round_id = $1`,
        [roundId],
      );
      if (rows[0]!.state !== 'cashed_out') continue;
      assert.ok(
        BigInt(rows[0]!.win) <= BigInt(rows[0]!.stake),
        `1.01x of ${rows[0]!.stake} is ${rows[0]!.win}`,
      );
      found = true;
      const message = await text(page, 'game-message');
      assert.match(message, /^Cashed out at 1\.01×: returned /);
      assert.doesNotMatch(message, /\bwin\b|\bwon\b|!/i);
      assert.equal(await hook(page, 'last-win').getAttribute('data-celebrate'), 'false');
      assert.equal(await hook(page, 'multiplier').getAttribute('data-state'), 'returned');
    }
    assert.ok(found, 'a round reached 1.01x within 10 bets');
    assert.deepEqual(o.problems, []);
  } finally {
    await o.context.close();
  }
});

test('GB slot page (phone): the stake selector offers only stakes within the cap (GBP 2 without an age band, GBP 5 for 25+)', async () => {
  for (const [extra, cap] of [
    [{}, 200n],
    [{ age_band: '25+' }, 500n],
  ] as const) {
    const o = await open(MOBILE, await launch(OP_GB, slot.symbol, 'GBP', extra));
    try {
      const { page } = o;
      const values = await hook(page, 'stake-select')
        .locator('option')
        .evaluateAll((os) => os.map((x) => (x as unknown as { value: string }).value));
      assert.ok(values.length > 0);
      for (const v of values) assert.ok(BigInt(v) <= cap, `stake ${v} offered above the cap ${cap}`);
      assert.ok(
        values.some((v) => BigInt(v) > cap / 2n),
        `the largest stakes up to the cap are offered: ${values.join(',')}`,
      );
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  }
});
