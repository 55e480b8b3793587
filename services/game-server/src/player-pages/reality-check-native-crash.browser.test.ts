import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { call, type Harness } from '@opi/testkit/harness';
import { DESKTOP, PHONE as MOBILE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import type { Page } from 'playwright-core';

// The reality check on the native (Spark Dice, prov_c) and crash (dcrash1, prov_d) pages (issue
// 18), in Debian's chromium on the real stack, at 1280x800 and on a 390x844 touch phone: the
// session's time played and net position always on screen; when the check is due the page pauses
// (time played, net position, continue and leave) and the server refuses bets meanwhile;
// continue lets the next bet through, leave goes to return_url. The operator's interval is 60 s;
// the check is made due by moving the session's reality_check_due_at into the past.
const OP = 'op_rc_nc_page';
const LOBBY = 'https://lobby.operator.test/return?from=game';

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

before(async () => {
  w = await startPlayWorld({
    queue: 'rc-nc-browser',
    browser: true,
    operatorWalletTitles: ['cndice'],
    operators: [
      {
        id: OP,
        titles: ['cndice', 'dcrash1'],
        settings: {
          default_currency: 'EUR',
          allowed_currencies: ['EUR', 'USD'],
          reality_check_interval_seconds: 60,
        },
      },
    ],
  });
  ({ h, admin, key } = w);
});
after(() => w.close());

const TITLES = {
  native: { symbol: 'cndice', currency: 'EUR', bet: 'play-button', betPath: '/api/runtime/native/bet' },
  crash: { symbol: 'dcrash1', currency: 'USD', bet: 'bet-button', betPath: '/api/runtime/crash/bet' },
} as const;
type Family = keyof typeof TITLES;

async function launch(family: Family): Promise<{ url: string; sessionId: string }> {
  const t = TITLES[family];
  const player = `rcp-${randomUUID().slice(0, 8)}`;
  await admin.createPlayer({
    operatorId: OP,
    playerId: player,
    currency: t.currency,
    balanceMinor: 1_000_000,
  });
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol: t.symbol, currency: t.currency, external_player_id: player, return_url: LOBBY },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.rules.reality_check_interval_seconds, 60);
  return { url: res.json.launch_url, sessionId: res.json.session_id };
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

async function makeDue(sessionId: string): Promise<void> {
  await h.db.pool.query(
    `UPDATE sessions SET reality_check_due_at = now() - interval '1 second' WHERE session_id = $1`,
    [sessionId],
  );
}
/** Wins minus bets of the session's completed rounds, as the server counts them. */
async function netOf(sessionId: string): Promise<string> {
  const { rows } = await h.db.pool.query<{ net: string }>(
    `SELECT coalesce(sum(win_minor - bet_minor), 0)::text AS net FROM rounds WHERE session_id = $1 AND status = 'completed'`,
    [sessionId],
  );
  return rows[0]!.net;
}
async function settledRounds(sessionId: string): Promise<number> {
  const { rows } = await h.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM rounds WHERE session_id = $1 AND status = 'completed'`,
    [sessionId],
  );
  return rows[0]!.n;
}

/** One bet through the page; resolves with the bet's HTTP status once the round has ended. */
async function playRound(page: Page, family: Family, tap: boolean, sessionId: string): Promise<number> {
  const before = await settledRounds(sessionId);
  if (family === 'crash') await hook(page, 'auto-cashout').fill('1.01');
  const answer = page.waitForResponse((r) => r.url().endsWith(TITLES[family].betPath));
  await press(page, TITLES[family].bet, tap);
  const status = (await answer).status();
  if (status === 200)
    await until('the round is settled', async () => (await settledRounds(sessionId)) === before + 1);
  return status;
}

/**
 * Makes the check due and brings the page to its pause: the page learns it from the server's
 * refusal of the player's bet (409 reality_check_due), or from a state read it was making anyway
 * (after a round) and then pauses before the player can bet. Either way no round is written.
 */
async function pause(page: Page, family: Family, tap: boolean, sessionId: string): Promise<void> {
  const before = await h.db.pool.query(`SELECT count(*)::int AS n FROM rounds WHERE session_id = $1`, [
    sessionId,
  ]);
  await makeDue(sessionId);
  await until('the page pauses for the reality check', async () => {
    if (await hook(page, 'reality-check').isVisible()) return true;
    if (family === 'crash')
      await hook(page, 'auto-cashout')
        .fill('1.01', { timeout: 1000 })
        .catch(() => {});
    const bet = hook(page, TITLES[family].bet);
    if (!(await bet.isDisabled()))
      await (tap ? bet.tap({ timeout: 1000 }) : bet.click({ timeout: 1000 })).catch(() => {});
    return false;
  });
  const after = await h.db.pool.query(`SELECT count(*)::int AS n FROM rounds WHERE session_id = $1`, [
    sessionId,
  ]);
  assert.equal(after.rows[0].n, before.rows[0].n, 'no round while the check is due');
}

async function assertInViewport(page: Page, id: string, height: number) {
  assert.ok(await hook(page, id).isVisible(), `${id} is visible`);
  const box = await hook(page, id).boundingBox();
  assert.ok(box && box.y >= 0 && box.y + box.height <= height, `${id} is within the viewport`);
}

for (const family of ['native', 'crash'] as const) {
  for (const [name, device] of [
    ['desktop 1280x800', DESKTOP],
    ['phone 390x844 (touch)', MOBILE],
  ] as const) {
    const tap = device === MOBILE;

    test(`${family} page (${name}): time played and net position shown; the reality check pauses, continue, then leave`, async () => {
      const l = await launch(family);
      const o = await open(device, l.url);
      try {
        const { page } = o;
        for (const id of ['session-elapsed', 'session-net'])
          await assertInViewport(page, id, device.viewport.height);
        const first = Number(await hook(page, 'session-elapsed').getAttribute('data-elapsed-ms'));
        await until('the time played advances', async () => {
          return Number(await hook(page, 'session-elapsed').getAttribute('data-elapsed-ms')) >= first + 1000;
        });
        assert.match((await hook(page, 'session-elapsed').textContent()) ?? '', /^\d+:\d\d:\d\d$/);
        assert.equal(await hook(page, 'session-net').getAttribute('data-net-minor'), '0');
        assert.equal(await hook(page, 'reality-check').isVisible(), false);

        // A round moves the net position (wins minus bets).
        assert.equal(await playRound(page, family, tap, l.sessionId), 200);
        const net = await netOf(l.sessionId);
        await until(
          'the net position shows the round',
          async () => (await hook(page, 'session-net').getAttribute('data-net-minor')) === net,
        );

        // The check is due: the page pauses (the server refuses bets meanwhile).
        await pause(page, family, tap, l.sessionId);
        assert.equal(await hook(page, 'game').getAttribute('data-reality-check'), 'open');
        assert.equal(
          await hook(page, TITLES[family].bet).isDisabled(),
          true,
          'no bet while the check is open',
        );
        const text = (await hook(page, 'reality-check-text').textContent()) ?? '';
        assert.match(text, /playing for \d+:\d\d:\d\d/);
        assert.match(text, new RegExp(`net position .*${TITLES[family].currency}`));
        for (const id of ['reality-check-continue', 'reality-check-leave'])
          await assertInViewport(page, id, device.viewport.height);
        assert.equal(await hook(page, 'game-error').isVisible(), false, 'the pause is no error');

        await press(page, 'reality-check-continue', tap);
        await until('the check is answered', async () => !(await hook(page, 'reality-check').isVisible()));
        assert.equal(await hook(page, 'game').getAttribute('data-reality-check'), 'answered');
        await until(
          'the bet button is enabled',
          async () => !(await hook(page, TITLES[family].bet).isDisabled()),
        );
        assert.equal(await playRound(page, family, tap, l.sessionId), 200, 'the next bet is taken');

        // Due again: the page pauses; leave goes to return_url.
        await pause(page, family, tap, l.sessionId);
        await Promise.all([page.waitForURL(LOBBY), press(page, 'reality-check-leave', tap)]);
        const { rows } = await h.db.pool.query<{ action: string }>(
          `SELECT action FROM reality_checks WHERE session_id = $1 ORDER BY check_id`,
          [l.sessionId],
        );
        assert.deepEqual(
          rows.map((r) => r.action),
          ['continue', 'leave'],
        );
        assert.deepEqual(o.problems, []);
      } finally {
        await o.context.close();
      }
    });
  }
}
