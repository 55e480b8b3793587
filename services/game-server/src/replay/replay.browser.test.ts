import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import { CATALOG, chainSeed, crashPointCents, formatMultiplier, SYMBOL_NAMES, slotConfig } from '@opi/games';
import { replayLinkKey, roundDetailsUrl } from '@opi/signing';
import { call, GAME_BASE_URL, type Harness, SERVICE_SECRET } from '@opi/testkit/harness';
import { DESKTOP, PHONE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { BrowserContext, Page } from 'playwright-core';

// The replay page in a real browser (Debian's chromium driven by playwright-core) on the real
// stack: a round of every family is played through the runtime routes (slot spin, native bet and
// actions, crash bet with an automatic cash-out), settled by the Temporal worker against the
// sandbox wallet over HTTP, and its details link (roundDetailsUrl on GAME_BASE_URL, mapped to the
// game server by Chromium's host resolver) is opened. What the page shows is compared, through
// its data-* attributes, with the stored round (rounds, round_stages, crash_rounds).
const OP = 'op_replay_browser';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const NATIVE = ['cnmines', 'cnhilo', 'cndice'];
const key = replayLinkKey(SERVICE_SECRET);
const box = createSecretBox(SERVICE_SECRET);

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;

before(async () => {
  w = await startPlayWorld({
    queue: 'replay-browser',
    browser: true,
    operatorWalletTitles: NATIVE,
    operators: [
      {
        id: OP,
        titles: [slot.symbol, ...NATIVE, 'dcrash1'],
        settings: { default_currency: 'EUR', allowed_currencies: ['EUR', 'USD'] },
      },
    ],
  });
  ({ h, admin } = w);
});
after(() => w.close());

// ── helpers ───────────────────────────────────────────────────────────────────────────────────

async function newPlayer(currency = 'EUR'): Promise<string> {
  const id = `rpb-${randomUUID().slice(0, 8)}`;
  await admin.createPlayer({ operatorId: OP, playerId: id, currency, balanceMinor: 1_000_000 });
  return id;
}
const launch = (symbol: string, player: string, currency = 'EUR') =>
  w.launch(w.key, { symbol, external_player_id: player, currency });

const replayUrl = (roundId: string) => roundDetailsUrl(GAME_BASE_URL, key, roundId);

async function settled(roundId: string) {
  return until(`round ${roundId} settled`, async () => {
    const { rows } = await h.db.pool.query(
      `SELECT status, bet_minor::text, win_minor::text, outcome FROM rounds WHERE round_id = $1`,
      [roundId],
    );
    return rows[0] && rows[0].status === 'completed' ? rows[0] : undefined;
  });
}

async function stagesOf(roundId: string) {
  const { rows } = await h.db.pool.query(
    `SELECT seq, action, inputs, outcome, multiplier::text AS multiplier FROM round_stages WHERE round_id = $1 ORDER BY seq`,
    [roundId],
  );
  return rows;
}

interface Opened {
  context: BrowserContext;
  page: Page;
  problems: string[];
  referers: string[];
}

async function openReplay(roundId: string, device: typeof DESKTOP | typeof PHONE): Promise<Opened> {
  const context = await w.lobbyContext(device);
  const page = await context.newPage();
  const problems: string[] = [];
  const referers: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('request', (r) => {
    const ref = r.headers().referer;
    if (ref) referers.push(`${r.url()} <- ${ref}`);
  });
  const res = await page.goto(replayUrl(roundId));
  assert.equal(res?.status(), 200);
  assert.equal(await hook(page, 'replay').getAttribute('data-round-id'), roundId);
  return { context, page, problems, referers };
}

async function closeReplay(o: Opened) {
  assert.deepEqual(o.problems, [], 'no page error and no CSP violation');
  assert.deepEqual(o.referers, [], 'no request carries a Referer');
  await o.context.close();
}

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const attrsOf = (page: Page, id: string, name: string) =>
  hook(page, id).evaluateAll((els, n) => els.map((e) => e.getAttribute(n as string)), name);

/** Nothing is wider than the phone: no sideways scrolling, and the element fits the width. */
async function fitsPhone(page: Page, id: string) {
  const vp = page.viewportSize()!;
  const box = await hook(page, id).first().boundingBox();
  assert.ok(box, `${id} is rendered`);
  assert.ok(box.x >= 0 && box.x + box.width <= vp.width + 1, `${id} fits the width: ${JSON.stringify(box)}`);
  const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(scrollWidth <= vp.width + 1, `no sideways scroll (${scrollWidth} > ${vp.width})`);
}

// ── slots ─────────────────────────────────────────────────────────────────────────────────────

describe('replay page in chromium', () => {
  test('slot: the reels as they landed, the winning lines, stake, win and balances (desktop and phone)', async () => {
    const player = await newPlayer();
    const { token } = await launch(slot.symbol, player);
    // Spins until one pays a line, so the page has a line to draw.
    let roundId = '';
    for (let i = 0; i < 60 && !roundId; i++) {
      const res = await w.spin(token!, { bet_minor: 100 });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.status, 'completed', res.text);
      if (res.json.outcome.lineWins.length > 0 && res.json.outcome.grid.length > 0)
        roundId = res.json.round_id;
    }
    assert.ok(roundId, 'a spin with a line win in 60 spins');
    const row = await settled(roundId);
    const grid: number[][] = row.outcome.grid;
    const lineWins = row.outcome.lineWins as {
      line: number;
      symbol: number;
      count: number;
      winMinor: string;
    }[];
    const expectedCells = [0, 1, 2].flatMap((r) => grid.map((reel) => SYMBOL_NAMES[reel[r]!]!));
    const config = slotConfig(slot.symbol);
    for (const device of [DESKTOP, PHONE]) {
      const o = await openReplay(roundId, device);
      const { page } = o;
      assert.equal(await hook(page, 'replay').getAttribute('data-family'), 'slot');
      assert.equal(await hook(page, 'replay').getAttribute('data-status'), 'completed');
      assert.equal(await hook(page, 'replay-status').count(), 0, 'no banner on a completed round');
      assert.deepEqual(await attrsOf(page, 'replay-cell', 'data-symbol'), expectedCells);
      // Each cell names its symbol as accessible text (the art's alt).
      assert.deepEqual(
        await hook(page, 'replay-cell').evaluateAll((els) =>
          els.map((e) => e.querySelector('img')?.getAttribute('alt')),
        ),
        expectedCells,
      );
      // The drawn art loaded for every cell (H2's /gs2c/art route).
      await until('the art loaded', async () => (await page.locator('.cell.has-art').count()) === 15);
      assert.deepEqual(
        await attrsOf(page, 'replay-line-win', 'data-win-minor'),
        lineWins.map((l) => l.winMinor),
      );
      assert.deepEqual(
        await attrsOf(page, 'replay-line-win', 'data-symbol'),
        lineWins.map((l) => SYMBOL_NAMES[l.symbol]),
      );
      if (!config.ways) {
        // One polyline per winning line, through that line's cells; its winning cells marked.
        assert.deepEqual(
          await page
            .locator('[data-testid="replay-lines"] polyline')
            .evaluateAll((els) => els.map((e) => e.getAttribute('data-line'))),
          lineWins.map((l) => String(l.line)),
        );
        const marked = new Set(
          (await page
            .locator('[data-testid="replay-cell"][data-win="true"]')
            .evaluateAll((els) =>
              els.map((e) => `${e.getAttribute('data-reel')}:${e.getAttribute('data-row')}`),
            )) as string[],
        );
        const expected = new Set(
          lineWins.flatMap((l) =>
            Array.from({ length: l.count }, (_, reel) => `${reel}:${config.paylines[l.line]![reel]}`),
          ),
        );
        assert.deepEqual(marked, expected);
      }
      assert.equal(await hook(page, 'replay-stake').getAttribute('data-minor'), row.bet_minor);
      assert.equal(await hook(page, 'replay-win').getAttribute('data-minor'), row.win_minor);
      const before = await hook(page, 'replay-balance-before').getAttribute('data-minor');
      const afterMinor = await hook(page, 'replay-balance-after').getAttribute('data-minor');
      assert.equal(BigInt(afterMinor!) - BigInt(before!), BigInt(row.win_minor) - BigInt(row.bet_minor));
      if (device === PHONE) {
        await fitsPhone(page, 'replay-reels');
        await fitsPhone(page, 'replay-line-wins');
      }
      await closeReplay(o);
    }
  });

  // ── native ──────────────────────────────────────────────────────────────────────────────────

  async function nativeToken(symbol: string, player: string) {
    const l = await launch(symbol, player);
    const ex = await call(h.game, 'POST', '/api/runtime/native/session-from-grant', {
      body: { grant: l.grant },
    });
    assert.equal(ex.status, 200, ex.text);
    return ex.json.token as string;
  }
  const native = (token: string, path: string, body: Record<string, unknown>) =>
    call(h.game, 'POST', `/api/runtime/native/${path}`, { headers: { 'x-session-token': token }, body });

  test('mines: the board as it was revealed, the mines at the end, every stage in order (desktop and phone)', async () => {
    const token = await nativeToken('cnmines', await newPlayer());
    const b = await native(token, 'bet', { stake_minor: 1000, mines: 3 });
    assert.equal(b.status, 200, b.text);
    const roundId = b.json.round.round_id as string;
    const { rows } = await h.db.pool.query(`SELECT outcome FROM rounds WHERE round_id = $1`, [roundId]);
    const mines: number[] = rows[0].outcome.mines;
    const safe = Array.from({ length: 25 }, (_, i) => i).filter((i) => !mines.includes(i));
    const picks = [safe[3]!, safe[0]!];
    for (const cell of picks) {
      const r = await native(token, 'action', { round_id: roundId, action: 'reveal', cell });
      assert.equal(r.status, 200, r.text);
    }
    assert.equal((await native(token, 'action', { round_id: roundId, action: 'cashout' })).status, 200);
    await settled(roundId);
    const stages = await stagesOf(roundId);
    for (const device of [DESKTOP, PHONE]) {
      const o = await openReplay(roundId, device);
      const { page } = o;
      assert.equal(await hook(page, 'replay').getAttribute('data-family'), 'mines');
      assert.equal(await hook(page, 'replay-mines').getAttribute('data-mine-count'), '3');
      const states = await attrsOf(page, 'replay-mine-cell', 'data-state');
      const expected = Array.from({ length: 25 }, (_, c) =>
        picks.includes(c) ? 'safe' : mines.includes(c) ? 'mine' : 'hidden',
      );
      assert.deepEqual(states, expected);
      const order = await attrsOf(page, 'replay-mine-cell', 'data-pick');
      assert.equal(order[picks[0]!], '1');
      assert.equal(order[picks[1]!], '2');
      assert.deepEqual(
        await attrsOf(page, 'replay-stage', 'data-action'),
        stages.map((s) => s.action),
      );
      assert.deepEqual(
        await attrsOf(page, 'replay-stage', 'data-multiplier'),
        stages.map((s) => s.multiplier),
      );
      if (device === PHONE) await fitsPhone(page, 'replay-mines');
      await closeReplay(o);
    }
  });

  test('hi-lo: every card and guess in order', async () => {
    const token = await nativeToken('cnhilo', await newPlayer());
    const b = await native(token, 'bet', { stake_minor: 1000 });
    assert.equal(b.status, 200, b.text);
    const roundId = b.json.round.round_id as string;
    const options = b.json.round.hilo.options as { guess: string; probability: string }[];
    const likelier = options
      .filter((x) => x.guess !== 'same')
      .sort((a, c) => Number(c.probability) - Number(a.probability))[0]!;
    const g = await native(token, 'action', { round_id: roundId, action: 'guess', guess: likelier.guess });
    assert.equal(g.status, 200, g.text);
    if (g.json.round.status === 'playing') {
      assert.equal((await native(token, 'action', { round_id: roundId, action: 'cashout' })).status, 200);
    }
    await settled(roundId);
    const stages = await stagesOf(roundId);
    const cards = stages.filter((s) => s.action === 'bet' || s.action === 'guess');
    const o = await openReplay(roundId, DESKTOP);
    const { page } = o;
    assert.equal(await hook(page, 'replay').getAttribute('data-family'), 'hilo');
    assert.deepEqual(
      await attrsOf(page, 'replay-card', 'data-name'),
      cards.map((s) => s.outcome.name),
    );
    assert.deepEqual(
      await attrsOf(page, 'replay-card', 'data-guess'),
      cards.map((s) => s.inputs.guess ?? null),
    );
    assert.deepEqual(
      await attrsOf(page, 'replay-card', 'data-correct'),
      cards.map((s) => (s.outcome.correct === undefined ? null : String(s.outcome.correct))),
    );
    assert.deepEqual(
      await attrsOf(page, 'replay-stage', 'data-action'),
      stages.map((s) => s.action),
    );
    await closeReplay(o);
  });

  test('dice: the roll and its target', async () => {
    const token = await nativeToken('cndice', await newPlayer());
    const b = await native(token, 'bet', { stake_minor: 1000, target: 4200 });
    assert.equal(b.status, 200, b.text);
    const roundId = b.json.round.round_id as string;
    const row = await settled(roundId);
    const [roll] = await stagesOf(roundId);
    const o = await openReplay(roundId, PHONE);
    const { page } = o;
    assert.equal(await hook(page, 'replay').getAttribute('data-family'), 'dice');
    assert.deepEqual(await attrsOf(page, 'replay-roll', 'data-target'), [String(roll.inputs.target)]);
    assert.deepEqual(await attrsOf(page, 'replay-roll', 'data-roll'), [String(roll.outcome.roll)]);
    assert.deepEqual(await attrsOf(page, 'replay-roll', 'data-win'), [String(roll.outcome.win === true)]);
    assert.equal(await hook(page, 'replay-win').getAttribute('data-minor'), row.win_minor);
    await fitsPhone(page, 'replay-dice');
    await closeReplay(o);
  });

  // ── crash ───────────────────────────────────────────────────────────────────────────────────

  test('crash: the curve to the crash point, the cash-out, and the fairness proof verified in the page', async () => {
    // The crash titles play in USD.
    const player = await newPlayer('USD');
    const l = await launch('dcrash1', player, 'USD');
    const auth = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
      headers: { 'x-login-grant': l.login! },
    });
    assert.equal(auth.status, 200, auth.text);
    const crashToken = auth.json.session_token as string;
    const rt = (method: string, path: string, body?: unknown) =>
      call(h.game, method, `/api/runtime/crash${path}`, {
        headers: { 'x-session-token': crashToken },
        ...(body === undefined ? {} : { body }),
      });
    const state = await rt('GET', '/state');
    assert.equal(state.status, 200, state.text);
    const { rows: chains } = await h.db.pool.query(
      `SELECT c.root_seed_enc, c.length, c.next_position FROM crash_seed_chains c JOIN players p ON p.player_id = c.player_id
       WHERE p.external_player_id = $1 AND p.operator_id = $2 AND c.symbol = 'dcrash1' AND c.exhausted_at IS NULL`,
      [player, OP],
    );
    const chain = chains[0]!;
    const seed = chainSeed(box.decrypt(chain.root_seed_enc), chain.length, chain.next_position);
    let clientSeed = '';
    let crash = 0;
    for (let i = 0; !clientSeed; i++) {
      const c = crashPointCents(seed, `replay-${i}`, chain.next_position, '97.00');
      if (c >= 200) [clientSeed, crash] = [`replay-${i}`, c];
    }
    const placed = await rt('POST', '/bet', {
      stake_minor: 250,
      client_seed: clientSeed,
      commitment: state.json.next.commitment,
      auto_cashout: '1.10',
    });
    assert.equal(placed.status, 200, placed.text);
    const roundId = placed.json.round.round_id as string;
    await settled(roundId);
    const { rows } = await h.db.pool.query(
      `SELECT server_seed, commitment, client_seed, nonce, crash_cents, cashout_cents FROM crash_rounds WHERE round_id = $1`,
      [roundId],
    );
    const cr = rows[0];
    assert.equal(cr.crash_cents, crash);
    const stages = await stagesOf(roundId);

    const o = await openReplay(roundId, DESKTOP);
    const { page } = o;
    assert.equal(await hook(page, 'replay').getAttribute('data-family'), 'crash');
    assert.equal(await hook(page, 'replay-curve').getAttribute('data-crash-point'), formatMultiplier(crash));
    assert.equal(await hook(page, 'replay-curve').getAttribute('data-cashout'), '1.10');
    assert.equal(await hook(page, 'replay-cashout-point').getAttribute('data-cashout'), '1.10');
    assert.equal(await page.locator('[data-testid="replay-curve"] path.line').count(), 1);
    assert.deepEqual(
      await attrsOf(page, 'replay-stage', 'data-action'),
      stages.map((s) => s.action),
    );
    const text = async (id: string) => ((await hook(page, id).textContent()) ?? '').trim();
    assert.equal(await text('fairness-server-seed'), cr.server_seed);
    assert.equal(await text('fairness-commitment'), cr.commitment);
    assert.equal(await text('fairness-client-seed'), cr.client_seed);
    assert.equal(await text('fairness-nonce'), String(cr.nonce));
    await until(
      'the check ran',
      async () => (await hook(page, 'fairness-result').getAttribute('data-result')) !== 'checking',
    );
    assert.equal(await hook(page, 'fairness-result').getAttribute('data-result'), 'verified');
    assert.match(await text('fairness-result'), /Verified/);
    await closeReplay(o);

    // A record that does not follow from its seeds is caught by the page's own check.
    await h.db.pool.query(`UPDATE crash_rounds SET crash_cents = crash_cents + 1 WHERE round_id = $1`, [
      roundId,
    ]);
    const bad = await openReplay(roundId, PHONE);
    await until(
      'the check ran',
      async () => (await hook(bad.page, 'fairness-result').getAttribute('data-result')) !== 'checking',
    );
    assert.equal(await hook(bad.page, 'fairness-result').getAttribute('data-result'), 'mismatch');
    await fitsPhone(bad.page, 'replay-curve');
    await closeReplay(bad);
  });
});
