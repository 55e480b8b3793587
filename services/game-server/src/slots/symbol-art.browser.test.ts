import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GB_MIN_SPIN_INTERVAL_MS } from '@opi/contract';
import { CATALOG, SYMBOL_NAMES, slotConfig, symbolArtPath, symbolLabel } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { DESKTOP, PHONE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { BrowserContextOptions, Page } from 'playwright-core';

// The slot page's drawn symbols in Debian's chromium on the real stack (issue 26): each cell shows
// the title's art for its data-symbol and is named for screen readers, the reels spin and land
// within GB's 2.5 s between spin starts (and stand still with reduced motion), winning lines are
// marked, a fresh browser's first visit logs no error and no 404 (favicon included), and free
// rounds show their own stake in the (disabled) stake selector, at 1280x800 and on a touch phone.
const OP = 'op_art_browser';
const OP_GB = 'op_art_browser_gb';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const config = slotConfig(slot.symbol);

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;

before(async () => {
  w = await startPlayWorld({
    queue: 'art-browser',
    browser: true,
    operators: [
      { id: OP, titles: [slot.symbol] },
      { id: OP_GB, titles: [slot.symbol], settings: { default_jurisdiction: 'GB' } },
    ],
  });
  ({ h, admin } = w);
});
after(() => w.close());

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const press = (page: Page, id: string, tap: boolean) => (tap ? hook(page, id).tap() : hook(page, id).click());
let players = 0;

async function launch(
  op: string,
  extra: Record<string, unknown> = {},
): Promise<{ url: string; player: string }> {
  const player = `art-${op.slice(-2)}-${++players}-${Date.now().toString(36)}`;
  await admin.createPlayer({ operatorId: op, playerId: player, currency: 'EUR', balanceMinor: 1_000_000 });
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key: w.operators[op]!.key,
    body: { symbol: slot.symbol, external_player_id: player, currency: 'EUR', ...extra },
  });
  assert.equal(res.status, 200, res.text);
  return { url: res.json.launch_url, player };
}

/**
 * A fresh context (nothing cached), every console error, page error and 4xx/5xx answer noted. No
 * request routing in it: with routing on, Playwright aborts the browser's own favicon requests.
 */
async function open(device: BrowserContextOptions, url: string) {
  const context = await w.browser!.newContext(device);
  const page = await context.newPage();
  const problems: string[] = [];
  const requested: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  page.on('requestfailed', (r) => problems.push(`failed ${r.url()}`));
  await page.goto(url);
  await until(
    'the page is ready',
    async () => (await hook(page, 'game').getAttribute('data-state')) === 'ready',
  );
  return { context, page, problems, requested };
}

interface Cell {
  symbol: string;
  id: string;
  role: string | null;
  label: string | null;
  text: string;
  src: string | null;
  alt: string | null;
  drawn: boolean;
  win: string | null;
}
const readCells = (page: Page) =>
  hook(page, 'reel-cell').evaluateAll((cells: any[]) =>
    cells.map((c) => {
      const img = c.querySelector('img');
      return {
        symbol: (c as any).dataset.symbol ?? '',
        id: (c as any).dataset.symbolId ?? '',
        role: c.getAttribute('role'),
        label: c.getAttribute('aria-label'),
        text: c.textContent ?? '',
        src: img ? new URL(img.src).pathname : null,
        alt: img?.getAttribute('alt') ?? null,
        drawn: !!img && img.complete && img.naturalWidth > 0,
        win: (c as any).dataset.win ?? null,
      };
    }),
  );

/** Every cell shows its symbol's art (loaded), is role="img" named by the symbol, keeps data-symbol. */
async function assertCellsDrawn(page: Page, grid?: number[][]): Promise<Cell[]> {
  let cells: Cell[] = [];
  await until('every symbol drawn', async () => {
    cells = await readCells(page);
    return cells.length === 15 && cells.every((c) => c.drawn);
  });
  cells.forEach((c, i) => {
    assert.ok((SYMBOL_NAMES as readonly string[]).includes(c.symbol), `cell ${i}: data-symbol ${c.symbol}`);
    assert.equal(c.src, symbolArtPath(slot.symbol, c.symbol), `cell ${i} shows its symbol's art`);
    assert.equal(c.alt, '', 'the image is decoration');
    assert.equal(c.role, 'img');
    assert.equal(c.label, symbolLabel(slot.symbol, c.symbol), `cell ${i}: its spoken name`);
    assert.equal(c.text, c.label, 'the name is also the cell text');
    if (grid)
      assert.equal(c.symbol, SYMBOL_NAMES[grid[Math.floor(i / 3)]![i % 3]!], `cell ${i} is the answer's`);
  });
  // The accessibility tree names them: as many images named e.g. "Fox" as cells showing H1.
  const first = cells[0]!;
  const named = await page.getByRole('img', { name: first.label!, exact: true }).count();
  assert.equal(named, cells.filter((c) => c.label === first.label).length);
  return cells;
}

interface SpinAnswer {
  status: string;
  win_minor: string;
  outcome: {
    grid: number[][];
    lineWins: { line: number; symbol: number; count: number; ways: number; winMinor: string }[];
    scatterWinMinor: string;
    freeSpins: unknown[];
  };
}

async function spinAndLand(page: Page, tap: boolean): Promise<SpinAnswer> {
  await until('spin enabled', async () => !(await hook(page, 'spin-button').isDisabled()));
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
  await press(page, 'spin-button', tap);
  const res = await answer;
  assert.equal(res.status(), 200);
  const body = (await res.json()) as SpinAnswer;
  assert.equal(body.status, 'completed');
  await until('the reels landed and the button is back', async () => {
    const busy = await hook(page, 'reels').getAttribute('aria-busy');
    return busy === null && !(await hook(page, 'spin-button').isDisabled());
  });
  return body;
}

for (const [name, device] of [
  ['desktop 1280x800', DESKTOP],
  ['phone 390x844 (touch)', PHONE],
] as const) {
  const tap = device === PHONE;

  test(`${name}: drawn symbols with names, winning lines marked, no error or 404 on a fresh first visit`, async () => {
    const { url } = await launch(OP);
    const o = await open(device, url);
    try {
      const { page } = o;
      // Before any spin the reels show the title's symbols.
      await assertCellsDrawn(page);
      const box = await hook(page, 'reels').boundingBox();
      assert.ok(
        box && box.width > 200 && box.x + box.width <= device.viewport.width,
        'the reels fit the screen',
      );
      let won: SpinAnswer | null = null;
      for (let i = 0; i < 40 && !won; i++) {
        const body = await spinAndLand(page, tap);
        const cells = await assertCellsDrawn(page, body.outcome.grid);
        if (body.outcome.lineWins.length > 0) won = body;
        else if (body.win_minor === '0') {
          assert.ok(
            cells.every((c) => c.win === null),
            'no cell is marked after a losing spin',
          );
          assert.equal(await hook(page, 'line-wins').isVisible(), false);
        }
      }
      assert.ok(won, 'a line win within 40 spins');
      const wins = won.outcome.lineWins;
      const items = hook(page, 'line-win');
      const lineItems = await items.evaluateAll((els: any[]) =>
        els.map((e) => ({
          line: Number((e as any).dataset.line),
          cells: (e as any).dataset.cells ?? '',
          minor: (e as any).dataset.winMinor ?? '',
          text: e.textContent ?? '',
        })),
      );
      assert.ok(await hook(page, 'line-wins').isVisible(), 'the winning lines are listed');
      const cells = await readCells(page);
      for (const win of wins) {
        const item = lineItems.find((x) => x.line === win.line);
        assert.ok(item, `line ${win.line} is listed`);
        assert.equal(item.minor, win.winMinor, "the line's win");
        assert.match(
          item.text,
          new RegExp(
            `Line ${win.line + 1}: ${win.count} × ${symbolLabel(slot.symbol, SYMBOL_NAMES[win.symbol]!)}`,
          ),
        );
        assert.match(item.text, /EUR/);
        const rows = config.paylines[win.line]!;
        const expected = rows.slice(0, win.count).map((row, r) => r * 3 + row);
        assert.equal(item.cells, expected.join(' '), "the line's cells");
        for (const c of expected)
          assert.equal(cells[c]!.win, 'true', `cell ${c} of line ${win.line + 1} is marked`);
      }
      // The first entry is lit, its cells too, and its path is drawn over the reels.
      const first = lineItems[0]!;
      assert.equal(await items.first().getAttribute('data-active'), 'true');
      const focused = await hook(page, 'reel-cell').evaluateAll((els: any[]) =>
        els.flatMap((e, i) => ((e as any).dataset.lineFocus === 'true' ? [i] : [])),
      );
      assert.equal(focused.join(' '), first.cells);
      if (first.line >= 0) assert.equal(await page.locator('[data-testid="payline"] polyline').count(), 1);
      // The next spin clears the marks while the reels turn.
      const next = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
      await press(page, 'spin-button', tap);
      assert.equal(await hook(page, 'line-wins').isVisible(), false);
      await next;
      await until('landed', async () => (await hook(page, 'reels').getAttribute('aria-busy')) === null);
      assert.deepEqual(o.problems, [], 'no console error, failed request or 4xx/5xx answer');
      // The origin answers the icon a browser asks it for on a first visit (the browser's own
      // request is not a page event, so the page asks the same URL).
      const icon = await page.evaluate(
        "fetch('/favicon.ico').then((r) => [r.status, r.headers.get('content-type')], (e) => String(e))",
      );
      assert.deepEqual(icon, [200, 'image/x-icon']);
      assert.deepEqual(o.problems, [], 'no console error, failed request or 4xx/5xx answer');
    } finally {
      await o.context.close();
    }
  });
}

test('GB: the reels spin until at least 1.5 s after the click and land before the next spin is allowed (2.5 s)', async () => {
  const { url } = await launch(OP_GB);
  const o = await open(DESKTOP, url);
  try {
    const { page } = o;
    assert.equal(await hook(page, 'game').getAttribute('data-jurisdiction'), 'GB');
    await assertCellsDrawn(page);
    // Times on the page's clock: the click, the reels' landing, the button's return.
    await page.evaluate(`(() => {
      const t = {};
      window.__t = t;
      const reels = document.querySelector('[data-testid="reels"]');
      const button = document.querySelector('[data-testid="spin-button"]');
      button.addEventListener('click', () => { t.click = performance.now(); });
      new MutationObserver(() => {
        if (reels.getAttribute('data-reels') === 'spinning' && t.spinning === undefined) t.spinning = performance.now();
        if (t.spinning !== undefined && !reels.hasAttribute('aria-busy') && t.landed === undefined) t.landed = performance.now();
      }).observe(reels, { attributes: true });
      new MutationObserver(() => {
        if (t.landed !== undefined && !button.disabled && t.enabled === undefined) t.enabled = performance.now();
      }).observe(button, { attributes: true });
    })()`);
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
    await hook(page, 'spin-button').click();
    assert.equal(await hook(page, 'reels').getAttribute('data-reels'), 'spinning');
    const spinningImg = await hook(page, 'reel-cell')
      .first()
      .locator('img')
      .evaluate((i: any) => (globalThis as any).getComputedStyle(i).animationName);
    assert.equal(spinningImg, 'reel-roll');
    await answer;
    await until('the button is back', async () => !(await hook(page, 'spin-button').isDisabled()));
    const t = (await page.evaluate('window.__t')) as Record<string, number | undefined>;
    assert.ok(t.click !== undefined && t.landed !== undefined && t.enabled !== undefined, JSON.stringify(t));
    const landed = t.landed! - t.click!;
    const enabled = t.enabled! - t.click!;
    assert.ok(landed >= 1500, `the reels turned ${Math.round(landed)} ms (a spin does not look quicker)`);
    assert.ok(
      landed <= enabled,
      `landed at ${Math.round(landed)} ms, the next spin allowed at ${Math.round(enabled)} ms`,
    );
    assert.ok(enabled >= GB_MIN_SPIN_INTERVAL_MS, `the next spin ${Math.round(enabled)} ms after the click`);
    await assertCellsDrawn(page);
    assert.doesNotMatch((await page.locator('body').textContent()) ?? '', /turbo|quick ?spin|autoplay/i);
    assert.deepEqual(o.problems, []);
  } finally {
    await o.context.close();
  }
});

test('reduced motion: nothing rolls; the cells dim while the spin is open and the result shows at once', async () => {
  const { url } = await launch(OP);
  const o = await open({ ...PHONE, reducedMotion: 'reduce' }, url);
  try {
    const { page } = o;
    await assertCellsDrawn(page);
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    await page.route('**/api/runtime/spin', async (route) => {
      await gate;
      await route.continue();
    });
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
    await hook(page, 'spin-button').tap();
    assert.equal(await hook(page, 'reels').getAttribute('data-reels'), 'waiting');
    const animations = await hook(page, 'reel-cell')
      .locator('img')
      .evaluateAll((imgs: any[]) =>
        imgs.map((i: any) => (globalThis as any).getComputedStyle(i).animationName),
      );
    assert.deepEqual(new Set(animations), new Set(['none']));
    const before = (await readCells(page)).map((c) => c.src);
    await page.waitForTimeout(300);
    assert.deepEqual(
      (await readCells(page)).map((c) => c.src),
      before,
      'no symbol flicker while waiting',
    );
    const answered = Date.now();
    release();
    const body = (await (await answer).json()) as SpinAnswer;
    await until('landed', async () => (await hook(page, 'reels').getAttribute('aria-busy')) === null);
    assert.ok(Date.now() - answered < 1500, 'the result shows without a spin animation');
    await page.unroute('**/api/runtime/spin');
    await assertCellsDrawn(page, body.outcome.grid);
    assert.deepEqual(o.problems, []);
  } finally {
    await o.context.close();
  }
});

for (const [name, device, finish] of [
  ['phone 390x844 (touch)', PHONE, 'spent'],
  ['desktop 1280x800', DESKTOP, 'declined'],
] as const) {
  const tap = device === PHONE;
  test(`free rounds (${name}): the stake selector shows the free rounds' stake, disabled, until they are ${finish}`, async () => {
    const player = `art-fr-${finish}-${Date.now().toString(36)}`;
    await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor: 100_000 });
    const created = await call(h.base, 'POST', '/api/provider/v1/free-rounds', {
      key: w.operators[OP]!.key,
      sign: true,
      body: {
        campaign_id: player,
        symbols: [slot.symbol],
        currency: 'EUR',
        bet_minor: 100,
        rounds: 2,
        valid_from: new Date(Date.now() - 60_000).toISOString(),
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        players: [player],
      },
    });
    assert.equal(created.status, 201, created.text);
    const launched = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key: w.operators[OP]!.key,
      body: { symbol: slot.symbol, external_player_id: player, currency: 'EUR' },
    });
    assert.equal(launched.status, 200, launched.text);
    const token = new URL(launched.json.launch_url).searchParams.get('mgckey')!;
    const session = (
      await call(h.game, 'GET', '/api/runtime/session', { headers: { 'x-session-token': token } })
    ).json;
    assert.notEqual(session.stakes_minor[0], '100', 'the paid stakes start elsewhere');
    const o = await open(device, launched.json.launch_url);
    try {
      const { page } = o;
      const stake = hook(page, 'stake-select');
      const freeStakeShown = async () => {
        assert.equal(await stake.isDisabled(), true, 'the stake cannot be changed during free rounds');
        assert.equal(await stake.inputValue(), '100');
        assert.equal(await stake.getAttribute('data-free-round'), 'true');
        assert.equal((await stake.locator('option:checked').textContent())?.replace(/\s/g, ' '), 'EUR 1.00');
        assert.equal(await stake.locator('option').count(), 1);
      };
      await until('free rounds shown', async () => await hook(page, 'free-rounds').isVisible());
      await freeStakeShown();
      const body = await spinAndLand(page, tap);
      await assertCellsDrawn(page, body.outcome.grid);
      assert.equal((await hook(page, 'free-rounds-count').textContent())?.trim(), '1 of 2');
      await freeStakeShown();
      if (finish === 'spent') {
        await spinAndLand(page, tap);
      } else {
        await press(page, 'free-rounds-decline', tap);
      }
      await until('the free rounds are over', async () => !(await hook(page, 'free-rounds').isVisible()));
      await until('the stake selector is back', async () => !(await stake.isDisabled()));
      assert.equal(await stake.getAttribute('data-free-round'), null);
      assert.deepEqual(
        await stake.locator('option').evaluateAll((os: any[]) => os.map((x) => (x as any).value)),
        session.stakes_minor,
      );
      assert.equal(await stake.inputValue(), session.stakes_minor[0]);
      assert.equal((await hook(page, 'spin-button').textContent())?.trim(), 'Spin');
      assert.deepEqual(o.problems, []);
    } finally {
      await o.context.close();
    }
  });
}
