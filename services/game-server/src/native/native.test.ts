import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { applyRatio, minesMultiplier } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { NATIVE_PAGE_CSP } from './page.js';

// The native titles end to end, real parts only: launch through the provider API, the page and
// its grant exchange, bets and actions through /api/runtime/native, rounds settled by the
// settlement workflow on the Temporal dev server against the sandbox wallet over HTTP. The abandon
// rule runs with a 3-second idle time (NATIVE_ABANDON_AFTER_SECONDS).
const OP = 'op_native';
const ABANDON_S = 3;
const TITLES = { cnmines: 'ember-mines', cnhilo: 'ash-hilo', cndice: 'spark-dice' } as const;
type Symbol = keyof typeof TITLES;
let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;
const players = new Set<string>();

before(async () => {
  w = await startPlayWorld({
    queue: 'native',
    env: { NATIVE_ABANDON_AFTER_SECONDS: String(ABANDON_S) },
    operatorWalletTitles: Object.keys(TITLES),
    operators: [{ id: OP, titles: Object.keys(TITLES) }],
  });
  ({ h, admin, key } = w);
});
after(() => w.close());

// ── helpers ───────────────────────────────────────────────────────────────────────────────────

async function newPlayer(balanceMinor = 100_000, currency = 'EUR'): Promise<string> {
  const id = `nat-${randomUUID().slice(0, 8)}`;
  await admin.createPlayer({ operatorId: OP, playerId: id, currency, balanceMinor });
  players.add(`${id}:${currency}`);
  return id;
}

async function launch(symbol: Symbol, player: string, extra: Record<string, unknown> = {}) {
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol, external_player_id: player, return_url: 'https://lobby.example/back', ...extra },
  });
  assert.equal(res.status, 200, res.text);
  const url = new URL(res.json.launch_url);
  assert.equal(url.pathname, `/native/${TITLES[symbol]}/`);
  return { url, grant: url.searchParams.get('grant')!, sessionId: res.json.session_id as string };
}

async function exchange(grant: string) {
  return call(h.game, 'POST', '/api/runtime/native/session-from-grant', { body: { grant } });
}

/** Launch + exchange: the play token and the boot answer. */
async function open(symbol: Symbol, player: string) {
  const l = await launch(symbol, player);
  const ex = await exchange(l.grant);
  assert.equal(ex.status, 200, ex.text);
  assert.match(ex.json.token, /^np_/);
  return { ...l, token: ex.json.token as string, boot: ex.json };
}

const runtime = (token: string, method: string, path: string, body?: unknown) =>
  call(h.game, method, path, { headers: { 'x-session-token': token }, ...(body ? { body } : {}) });
const bet = (token: string, body: Record<string, unknown>) =>
  runtime(token, 'POST', '/api/runtime/native/bet', body);
const act = (token: string, body: Record<string, unknown>) =>
  runtime(token, 'POST', '/api/runtime/native/action', body);
const state = (token: string) => runtime(token, 'GET', '/api/runtime/native/state');

async function mineLayout(roundId: string): Promise<number[]> {
  const { rows } = await h.db.pool.query(`SELECT outcome FROM rounds WHERE round_id = $1`, [roundId]);
  return rows[0].outcome.mines;
}
const safeCells = (mines: number[]) =>
  Array.from({ length: 25 }, (_, i) => i).filter((i) => !mines.includes(i));

async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
/** The round's final view once the workflow has settled it. */
const settled = (token: string) =>
  eventually('the round to settle', async () => {
    const s = await state(token);
    return ['completed', 'rejected', 'cancelled'].includes(s.json.round?.status) ? s.json.round : undefined;
  });

async function walletBalance(player: string, currency = 'EUR'): Promise<bigint> {
  return BigInt((await admin.balance(OP, player, currency)).balance_minor);
}

async function stagesOf(roundId: string) {
  const { rows } = await h.db.pool.query(
    `SELECT seq, action, inputs, outcome, multiplier::text AS multiplier FROM round_stages WHERE round_id = $1 ORDER BY seq`,
    [roundId],
  );
  return rows;
}

// ── the page and the grant ───────────────────────────────────────────────────────────────────

describe('the page and the grant', () => {
  test('each title: the launch URL opens its page (strict headers, hooks, no token in the HTML)', async () => {
    const player = await newPlayer();
    for (const [symbol, slug] of Object.entries(TITLES) as [Symbol, string][]) {
      const { url, grant } = await launch(symbol, player);
      const res = await call(h.game, 'GET', url.pathname + url.search);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(res.headers.get('content-security-policy'), NATIVE_PAGE_CSP);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
      assert.ok(!res.text.includes(grant), 'the grant is not written into the page');
      const hooks = [
        'game-balance',
        'stake-select',
        'play-button',
        'cashout-button',
        'last-win',
        'close-button',
        'game-error',
      ];
      const own = {
        cnmines: ['mine-cell-0', 'mine-cell-24', 'mines-select', 'next-multiplier'],
        cnhilo: ['hilo-higher', 'hilo-lower', 'hilo-same', 'hilo-card'],
        cndice: ['dice-target', 'dice-roll', 'dice-multiplier'],
      }[symbol];
      for (const id of [...hooks, ...own])
        assert.match(res.text, new RegExp(`data-testid="${id}"`), `${slug}: ${id}`);
      const script = /<script src="([^"]+)"/.exec(res.text)![1]!;
      const js = await call(h.game, 'GET', script);
      assert.equal(js.status, 200);
      assert.match(js.headers.get('content-type')!, /javascript/);
      assert.equal(
        (await call(h.game, 'GET', `/native/${slug}-x/${url.search}`)).status,
        400,
        'an edited path',
      );
    }
  });

  test('an invalid or expired grant gets the 401 error page and cannot be exchanged', async () => {
    const player = await newPlayer();
    const none = await call(h.game, 'GET', '/native/ember-mines/');
    assert.equal(none.status, 401);
    assert.match(none.text, /data-testid="game-error"/);
    assert.ok(!none.text.includes('<script'), 'no game script on the error page');
    const bogus = await call(h.game, 'GET', '/native/ember-mines/?grant=not-a-grant');
    assert.equal(bogus.status, 401);
    assert.match(bogus.text, /data-reason="invalid"/);

    for (const symbol of Object.keys(TITLES) as Symbol[]) {
      const { url, grant, sessionId } = await launch(symbol, player);
      await h.db.pool.query(
        `UPDATE sessions SET grant_expires_at = now() - interval '1 second' WHERE session_id = $1`,
        [sessionId],
      );
      const page = await call(h.game, 'GET', url.pathname + url.search);
      assert.equal(page.status, 401, `${symbol}: expired grant page`);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(page.text, /data-testid="game-error"[^>]*data-reason="expired"/);
      assert.match(page.text, /expired/);
      const ex = await exchange(grant);
      assert.equal(ex.status, 401);
      assert.equal(ex.json.reason, 'expired');
      // The grant itself is no runtime credential past its 5 minutes either.
      assert.equal((await runtime(grant, 'GET', '/api/runtime/balance')).status, 401);
    }
  });

  test('the play token lasts the play session; a relaunch ends it; a grant is exchanged again while valid', async () => {
    const player = await newPlayer(50_000);
    const a = await open('cnmines', player);
    assert.equal(a.boot.session.currency, 'EUR');
    assert.equal(a.boot.rtp, '97.00');
    assert.ok(a.boot.stakes_minor.length > 0);
    const bal = await runtime(a.token, 'GET', '/api/runtime/balance');
    assert.equal(bal.status, 200, bal.text);
    assert.equal(bal.json.balance, '500.00');
    // The grant is past its 5 minutes: the exchanged play token still works (until expires_at).
    await h.db.pool.query(
      `UPDATE sessions SET grant_expires_at = now() - interval '1 second' WHERE session_id = $1`,
      [a.sessionId],
    );
    assert.equal((await state(a.token)).status, 200);
    const again = await open('cnmines', player);
    assert.equal(again.sessionId, a.sessionId, 'the relaunch resumes the session');
    assert.equal((await state(a.token)).status, 401, 'the old play token ended with the relaunch');
    const twice = await exchange(again.grant);
    assert.equal(twice.status, 200, 'a reload exchanges the same grant again');
    assert.equal((await state(again.token)).status, 401, 'and replaces the previous play token');
    assert.equal((await state(twice.json.token)).status, 200);
    await h.db.pool.query(
      `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE session_id = $1`,
      [a.sessionId],
    );
    assert.equal((await state(twice.json.token)).status, 401, 'the play session ended');
    assert.equal((await runtime('np_nothing', 'GET', '/api/runtime/native/state')).status, 401);
  });
});

// ── Mines ─────────────────────────────────────────────────────────────────────────────────────

describe('Ember Mines', () => {
  test('a win with cash-out: every reveal a stage, the offer exact, one debit and one credit', async () => {
    const player = await newPlayer();
    const { token } = await open('cnmines', player);
    const b = await bet(token, { stake_minor: 1000, mines: 3 });
    assert.equal(b.status, 200, b.text);
    const r0 = b.json.round;
    assert.equal(r0.status, 'playing');
    assert.equal(r0.stake_minor, '1000');
    assert.equal(r0.mines.mines_at, null, 'the layout stays secret while the round is open');
    assert.equal(r0.can_cash_out, false);
    assert.deepEqual(r0.abandon_rule, { after_seconds: ABANDON_S, rule: 'cashout' });
    assert.equal(await walletBalance(player), 99_000n, 'debited at the bet');
    const cashWithoutReveal = await act(token, { round_id: r0.round_id, action: 'cashout' });
    assert.equal(cashWithoutReveal.status, 409);

    const [c1, c2] = safeCells(await mineLayout(r0.round_id));
    const r1 = (await act(token, { round_id: r0.round_id, action: 'reveal', cell: c1 })).json.round;
    assert.equal(r1.offer_minor, applyRatio(1000n, minesMultiplier(3, 1)).toString());
    const again = await act(token, { round_id: r0.round_id, action: 'reveal', cell: c1 });
    assert.equal(again.status, 409, 'a revealed cell cannot be revealed twice');
    const r2 = (await act(token, { round_id: r0.round_id, action: 'reveal', cell: c2 })).json.round;
    assert.equal(r2.offer_minor, '1259', '1000 x 97/77 = 1259.74, floored');
    assert.equal(r2.can_cash_out, true);
    const done = await act(token, { round_id: r0.round_id, action: 'cashout' });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.json.round.status, 'completed');
    assert.equal(done.json.round.win_minor, '1259');
    assert.equal(done.json.round.mines.mines_at.length, 3, 'the layout is shown once the round is over');
    assert.equal(await walletBalance(player), 99_000n + 1259n);
    assert.equal(done.json.round.balance, '1002.59', 'the page gets the balance the wallet answered');
    const stages = await stagesOf(r0.round_id);
    assert.deepEqual(
      stages.map((s) => s.action),
      ['bet', 'reveal', 'reveal', 'cashout'],
    );
    assert.equal(stages[2].multiplier, '1.25974025');
    assert.equal(stages[3].outcome.win_minor, '1259');
    const { rows } = await h.db.pool.query(
      `SELECT transaction_type, amount_minor, status FROM wallet_transactions WHERE round_id = $1 ORDER BY created_at`,
      [r0.round_id],
    );
    assert.deepEqual(
      rows.map((r) => [r.transaction_type, r.amount_minor, r.status]),
      [
        ['debit', 1000n, 'success'],
        ['credit', 1259n, 'success'],
      ],
    );
    const late = await act(token, { round_id: r0.round_id, action: 'reveal', cell: 24 });
    assert.equal(late.status, 409, 'a finished round takes no action');
  });

  test('a loss: a mine ends the round with a zero credit', async () => {
    const player = await newPlayer();
    const { token } = await open('cnmines', player);
    const r0 = (await bet(token, { stake_minor: 500, mines: 5 })).json.round;
    const mines = await mineLayout(r0.round_id);
    await act(token, { round_id: r0.round_id, action: 'reveal', cell: safeCells(mines)[0] });
    const boom = await act(token, { round_id: r0.round_id, action: 'reveal', cell: mines[0] });
    assert.equal(boom.status, 200, boom.text);
    assert.equal(boom.json.round.status, 'completed');
    assert.equal(boom.json.round.win_minor, '0');
    assert.equal(boom.json.round.mines.exploded, mines[0]);
    assert.equal(await walletBalance(player), 99_500n);
    const { rows } = await h.db.pool.query(
      `SELECT amount_minor FROM wallet_transactions WHERE round_id = $1 AND transaction_type = 'credit'`,
      [r0.round_id],
    );
    assert.deepEqual(rows, [{ amount_minor: 0n }], 'a zero credit closes the round at the wallet');
  });

  test('abandoned rounds: the current offer is cashed out; nothing revealed is a loss', async () => {
    const player = await newPlayer();
    const { token } = await open('cnmines', player);
    const r0 = (await bet(token, { stake_minor: 2000, mines: 1 })).json.round;
    const [cell] = safeCells(await mineLayout(r0.round_id));
    const r1 = (await act(token, { round_id: r0.round_id, action: 'reveal', cell })).json.round;
    assert.equal(r1.offer_minor, '2020', '2000 x 0.97 x 25/24 = 2020.83, floored');
    const end = await settled(token);
    assert.equal(end.status, 'completed');
    assert.deepEqual(end.abandoned, { win_minor: '2020' });
    assert.equal(end.win_minor, '2020');
    assert.equal(await walletBalance(player), 100_000n - 2000n + 2020n);
    const stages = await stagesOf(r0.round_id);
    assert.deepEqual(
      stages.map((s) => s.action),
      ['bet', 'reveal', 'abandon'],
    );
    assert.equal(stages[2].outcome.rule, 'cashout');

    const r2 = (await bet(token, { stake_minor: 700, mines: 2 })).json.round;
    assert.equal(r2.status, 'playing');
    const idle = await settled(token);
    assert.equal(idle.round_id, r2.round_id);
    assert.equal(idle.win_minor, '0');
    assert.equal(await walletBalance(player), 100_000n - 2000n + 2020n - 700n);
    // Past the deadline an action is refused (the workflow settles by the rule).
    const late = await act(token, { round_id: r2.round_id, action: 'reveal', cell: 0 });
    assert.equal(late.status, 409);
  });

  test('resume after a relaunch: the unfinished round comes back with its wager and currency', async () => {
    const player = await newPlayer();
    const first = await open('cnmines', player);
    const r0 = (await bet(first.token, { stake_minor: 1500, mines: 3 })).json.round;
    const [c1, c2] = safeCells(await mineLayout(r0.round_id));
    await act(first.token, { round_id: r0.round_id, action: 'reveal', cell: c1 });
    const usd = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key,
      body: { symbol: 'cnmines', external_player_id: player, currency: 'USD' },
    });
    assert.equal(usd.status, 409, 'the unfinished round keeps its currency');
    const second = await open('cnmines', player);
    assert.equal(second.boot.round.round_id, r0.round_id, 'the exchange answers the unfinished round');
    assert.equal(second.boot.round.status, 'playing');
    assert.equal(second.boot.round.stake_minor, '1500');
    assert.equal(second.boot.round.currency, 'EUR');
    assert.deepEqual(second.boot.round.mines.revealed, [c1]);
    const refused = await bet(second.token, { stake_minor: 100 });
    assert.equal(refused.status, 409, 'one unfinished round at a time');
    assert.equal(refused.json.round_id, r0.round_id);
    await act(second.token, { round_id: r0.round_id, action: 'reveal', cell: c2 });
    const done = await act(second.token, { round_id: r0.round_id, action: 'cashout' });
    assert.equal(done.json.round.win_minor, applyRatio(1500n, minesMultiplier(3, 2)).toString());
  });

  test('two actions on the same round at once: only one applies', async () => {
    const player = await newPlayer();
    const { token } = await open('cnmines', player);
    const r0 = (await bet(token, { stake_minor: 1000, mines: 3 })).json.round;
    const [c1, c2] = safeCells(await mineLayout(r0.round_id));
    const same = await Promise.all([
      act(token, { round_id: r0.round_id, action: 'reveal', cell: c1 }),
      act(token, { round_id: r0.round_id, action: 'reveal', cell: c1 }),
    ]);
    assert.deepEqual(same.map((r) => r.status).sort(), [200, 409]);
    await act(token, { round_id: r0.round_id, action: 'reveal', cell: c2 });
    const cashouts = await Promise.all([
      act(token, { round_id: r0.round_id, action: 'cashout' }),
      act(token, { round_id: r0.round_id, action: 'cashout' }),
    ]);
    assert.deepEqual(cashouts.map((r) => r.status).sort(), [200, 409]);
    await settled(token);
    const stages = await stagesOf(r0.round_id);
    assert.deepEqual(
      stages.map((s) => s.action),
      ['bet', 'reveal', 'reveal', 'cashout'],
    );
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM wallet.transactions WHERE round_id = $1 AND transaction_type = 'credit'`,
      [r0.round_id],
    );
    assert.equal(rows[0].n, 1, 'credited once');
  });

  test('insufficient funds: the debit is refused and the round is rejected', async () => {
    const player = await newPlayer(300);
    const { token } = await open('cnmines', player);
    const b = await bet(token, { stake_minor: 500, mines: 3 });
    assert.equal(b.status, 200, b.text);
    assert.equal(b.json.round.status, 'rejected');
    assert.equal(b.json.round.error, 'insufficient_funds');
    assert.equal(b.json.round.mines.mines_at.length, 3);
    assert.equal(await walletBalance(player), 300n);
    const reveal = await act(token, { round_id: b.json.round.round_id, action: 'reveal', cell: 0 });
    assert.equal(reveal.status, 409);
    const stages = await stagesOf(b.json.round.round_id);
    assert.deepEqual(
      stages.map((s) => s.action),
      ['bet', 'rejected'],
    );
    assert.equal(
      (await bet(token, { stake_minor: 200, mines: 3 })).json.round.status,
      'playing',
      'the next bet plays',
    );
  });

  test('bad bets are 422', async () => {
    const player = await newPlayer();
    const { token } = await open('cnmines', player);
    assert.equal((await bet(token, { stake_minor: 1, mines: 3 })).status, 422, 'below the operator minimum');
    assert.equal((await bet(token, { stake_minor: 100, mines: 25 })).status, 422);
    assert.equal((await bet(token, { stake_minor: 100, mines: 0 })).status, 422);
    assert.equal((await bet(token, { stake_minor: 'x' })).status, 422);
  });
});

// ── Hi-Lo ─────────────────────────────────────────────────────────────────────────────────────

describe('Ash Hi-Lo', () => {
  /** Plays the likelier side until one guess is right; a wrong guess starts another round. */
  async function roundWithRightGuess(token: string, stake: number) {
    for (let attempt = 0; attempt < 30; attempt++) {
      const r0 = (await bet(token, { stake_minor: stake })).json.round;
      assert.equal(r0.status, 'playing');
      const options = r0.hilo.options as { guess: string; probability: string; offer_minor: string }[];
      const likelier = options
        .filter((o) => o.guess !== 'same')
        .sort((a, b) => Number(b.probability) - Number(a.probability))[0]!;
      const g = await act(token, { round_id: r0.round_id, action: 'guess', guess: likelier.guess });
      assert.equal(g.status, 200, g.text);
      if (g.json.round.status === 'playing') {
        assert.equal(
          g.json.round.offer_minor,
          likelier.offer_minor,
          'the offer is the one shown before the guess',
        );
        return g.json.round;
      }
      assert.equal(g.json.round.win_minor, '0');
    }
    throw new Error('no right guess in 30 rounds');
  }

  test('a win with cash-out', async () => {
    const player = await newPlayer();
    const { token } = await open('cnhilo', player);
    const before = await walletBalance(player);
    const r = await roundWithRightGuess(token, 1000);
    assert.equal(r.can_cash_out, true);
    const done = await act(token, { round_id: r.round_id, action: 'cashout' });
    assert.equal(done.json.round.status, 'completed');
    assert.equal(done.json.round.win_minor, r.offer_minor);
    assert.ok(BigInt(r.offer_minor) > 1000n);
    const stages = await stagesOf(r.round_id);
    assert.deepEqual(
      stages.map((s) => s.action),
      ['bet', 'guess', 'cashout'],
    );
    assert.equal(stages[1].outcome.correct, true);
    const { rows } = await h.db.pool.query(
      `SELECT coalesce(sum(win_minor - bet_minor), 0)::bigint AS net FROM rounds r JOIN players p USING (player_id)
       WHERE p.external_player_id = $1 AND r.status = 'completed'`,
      [player],
    );
    assert.equal(await walletBalance(player), before + rows[0].net);
  });

  test('a loss: a wrong guess ends the round with a zero credit', async () => {
    const player = await newPlayer();
    const { token } = await open('cnhilo', player);
    for (let attempt = 0; attempt < 30; attempt++) {
      const r0 = (await bet(token, { stake_minor: 300 })).json.round;
      const g = await act(token, { round_id: r0.round_id, action: 'guess', guess: 'same' });
      if (g.json.round.status === 'playing') {
        await act(token, { round_id: r0.round_id, action: 'cashout' });
        continue;
      }
      assert.equal(g.json.round.status, 'completed');
      assert.equal(g.json.round.win_minor, '0');
      const last = g.json.round.stages.at(-1);
      assert.deepEqual([last.action, last.outcome.correct, last.outcome.final], ['guess', false, true]);
      return;
    }
    throw new Error('no wrong guess in 30 rounds');
  });

  test('abandoned: cashed out at the current offer; no guess is a loss', async () => {
    const player = await newPlayer();
    const { token } = await open('cnhilo', player);
    const r = await roundWithRightGuess(token, 800);
    const end = await settled(token);
    assert.equal(end.round_id, r.round_id);
    assert.deepEqual(end.abandoned, { win_minor: r.offer_minor });
    assert.equal(end.win_minor, r.offer_minor);
    const r2 = (await bet(token, { stake_minor: 800 })).json.round;
    const idle = await settled(token);
    assert.equal(idle.round_id, r2.round_id);
    assert.deepEqual(idle.abandoned, { win_minor: '0' });
  });

  test('resume after a relaunch, and an unoffered guess is refused', async () => {
    const player = await newPlayer();
    const first = await open('cnhilo', player);
    const r = await roundWithRightGuess(first.token, 1200);
    const usd = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key,
      body: { symbol: 'cnhilo', external_player_id: player, currency: 'USD' },
    });
    assert.equal(usd.status, 409, 'the unfinished round keeps its currency');
    assert.match(usd.json.detail, /unfinished round of this game is in EUR/);
    const second = await open('cnhilo', player);
    assert.equal(second.boot.round.round_id, r.round_id);
    assert.equal(second.boot.round.status, 'playing');
    assert.equal(second.boot.round.stake_minor, '1200');
    assert.equal(second.boot.round.currency, 'EUR');
    assert.equal(second.boot.round.hilo.card, r.hilo.card);
    assert.equal(second.boot.round.offer_minor, r.offer_minor);
    assert.equal((await state(first.token)).status, 401);
    const rank = r.hilo.rank as number;
    if (rank === 1 || rank === 13) {
      const impossible = await act(second.token, {
        round_id: r.round_id,
        action: 'guess',
        guess: rank === 1 ? 'lower' : 'higher',
      });
      assert.equal(impossible.status, 409);
    }
    const done = await act(second.token, { round_id: r.round_id, action: 'cashout' });
    assert.equal(done.json.round.win_minor, r.offer_minor);
  });
});

// ── Dice ──────────────────────────────────────────────────────────────────────────────────────

describe('Spark Dice', () => {
  test('a win and a loss, each one stage settled at the roll', async () => {
    const player = await newPlayer();
    const { token } = await open('cndice', player);
    let won = false;
    let lost = false;
    for (let i = 0; i < 40 && !(won && lost); i++) {
      const target: number = won ? 100 : 9800;
      const r: any = (await bet(token, { stake_minor: 1000, target })).json.round;
      assert.equal(r.status, 'completed');
      assert.equal(r.dice.target, target);
      const win = r.dice.roll < target;
      assert.equal(r.dice.win, win);
      assert.equal(r.win_minor, win ? String((1000n * 9800n) / BigInt(target)) : '0');
      if (win) won = true;
      else lost = true;
      const stages = await stagesOf(r.round_id);
      assert.deepEqual(
        stages.map((s) => s.action),
        ['roll'],
      );
    }
    assert.ok(won && lost);
    assert.equal((await bet(token, { stake_minor: 1000, target: 99 })).status, 422);
    assert.equal((await bet(token, { stake_minor: 1000, target: 9801 })).status, 422);
    assert.equal((await act(token, { round_id: 'r_x', action: 'cashout' })).status, 404);
  });

  test('insufficient funds and a relaunch (the last round shows)', async () => {
    const player = await newPlayer(100);
    const first = await open('cndice', player);
    const r = (await bet(first.token, { stake_minor: 200, target: 5000 })).json.round;
    assert.equal(r.status, 'rejected');
    assert.equal(r.error, 'insufficient_funds');
    assert.equal(r.dice.roll, null, 'a refused wager shows no roll');
    const second = await open('cndice', player);
    assert.equal(second.boot.round.round_id, r.round_id);
    assert.equal(second.boot.round.status, 'rejected');
    assert.equal(await walletBalance(player), 100n);
  });
});

describe('Spark Dice: a roll still settling', () => {
  /** A bet sent while the wallet answers slowly, and the moment its round is written. */
  async function slowRoll(
    token: string,
    player: string,
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ) {
    const pending = fetch(`${h.game}/api/runtime/native/bet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-token': token },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    }).then(
      async (res) => ({ status: res.status, json: (await res.json()) as any }),
      () => null,
    );
    const roundId = await eventually('the roll to be recorded', async () => {
      const { rows } = await h.db.pool.query(
        `SELECT r.round_id FROM rounds r JOIN players p USING (player_id)
         WHERE p.external_player_id = $1 AND r.symbol = 'cndice' AND r.status = 'open'`,
        [player],
      );
      return rows[0]?.round_id as string | undefined;
    });
    return { pending, roundId };
  }

  async function journal(roundId: string) {
    const { rows } = await h.db.pool.query(
      `SELECT transaction_type, amount_minor, status FROM wallet_transactions WHERE round_id = $1 ORDER BY created_at`,
      [roundId],
    );
    return rows.map((r) => `${r.transaction_type}:${r.amount_minor}:${r.status}`);
  }

  async function completed(roundId: string) {
    return eventually('the roll to settle', async () => {
      const { rows } = await h.db.pool.query(
        `SELECT status, bet_minor, win_minor, trim(currency) AS currency FROM rounds WHERE round_id = $1`,
        [roundId],
      );
      return rows[0]?.status === 'open' ? undefined : rows[0];
    });
  }

  test('abandoned mid-roll (the page gone before the answer): the workflow settles it at its roll', async () => {
    // Dice has no decision after the wager: its win is fixed at the roll and written into the
    // intent, so an abandoned round needs no timer: it settles at that win.
    const player = await newPlayer();
    const { token } = await open('cndice', player);
    await admin.setFaults({ latencyMs: [1_500, 1_500], latencyRate: 1 });
    try {
      const ctrl = new AbortController();
      const { pending, roundId } = await slowRoll(
        token,
        player,
        { stake_minor: 1000, target: 5000 },
        ctrl.signal,
      );
      ctrl.abort();
      assert.equal(await pending, null, 'nobody read the answer');
      const r = await completed(roundId);
      const { rows } = await h.db.pool.query(`SELECT outcome FROM rounds WHERE round_id = $1`, [roundId]);
      const roll = rows[0].outcome.roll as number;
      const win = roll < 5000 ? (1000n * 9800n) / 5000n : 0n;
      assert.deepEqual([r.status, r.bet_minor, r.win_minor], ['completed', 1000n, win]);
      assert.deepEqual(await journal(roundId), ['debit:1000:success', `credit:${win}:success`]);
      assert.equal(await walletBalance(player), 100_000n - 1000n + win);
      const stages = await stagesOf(roundId);
      assert.deepEqual(
        stages.map((s) => [s.action, s.outcome.roll, s.outcome.win_minor]),
        [['roll', roll, win.toString()]],
      );
    } finally {
      await admin.setFaults({});
    }
    // The next page load shows that round as the latest.
    const again = await open('cndice', player);
    assert.equal(again.boot.round.status, 'completed');
  });

  test('an expired grant and a relaunch while the roll settles: resumed with its wager and currency, charged once', async () => {
    const player = await newPlayer();
    const first = await open('cndice', player);
    await admin.setFaults({ latencyMs: [1_500, 1_500], latencyRate: 1 });
    let roundId = '';
    try {
      const roll = await slowRoll(first.token, player, { stake_minor: 700, target: 2500 });
      roundId = roll.roundId;
      // The grant of the first launch runs out: the page is refused, the payment goes on.
      await h.db.pool.query(
        `UPDATE sessions SET grant_expires_at = now() - interval '1 second' WHERE session_id = $1`,
        [first.sessionId],
      );
      const expired = await call(h.game, 'GET', first.url.pathname + first.url.search);
      assert.equal(expired.status, 401);
      assert.match(expired.text, /data-reason="expired"/);
      assert.equal((await exchange(first.grant)).status, 401);
      const usd = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
        key,
        body: { symbol: 'cndice', external_player_id: player, currency: 'USD' },
      });
      assert.equal(usd.status, 409, 'the unfinished roll keeps its currency');
      const second = await open('cndice', player);
      assert.equal(second.sessionId, first.sessionId, 'the relaunch resumes the session');
      const resumed = second.boot.round;
      assert.equal(resumed.round_id, roundId, 'the exchange answers the unfinished roll');
      assert.ok(['placing', 'settling'].includes(resumed.status), resumed.status);
      assert.deepEqual([resumed.stake_minor, resumed.currency], ['700', 'EUR']);
      const busy = await bet(second.token, { stake_minor: 100, target: 5000 });
      assert.equal(busy.status, 409, 'one unfinished round at a time');
      assert.equal(busy.json.round_id, roundId);
      const answered = await roll.pending;
      assert.ok(answered);
      assert.equal(answered.status, 200);
      assert.equal(answered.json.round.status, 'completed');
    } finally {
      await admin.setFaults({});
    }
    const r = await completed(roundId);
    assert.deepEqual([r.status, r.bet_minor, r.currency], ['completed', 700n, 'EUR']);
    assert.deepEqual(await journal(roundId), ['debit:700:success', `credit:${r.win_minor}:success`]);
    assert.equal(await walletBalance(player), 100_000n - 700n + r.win_minor, 'one debit, one credit');
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM rounds r JOIN players p USING (player_id) WHERE p.external_player_id = $1`,
      [player],
    );
    assert.equal(rows[0].n, 1, 'the refused second bet wrote no round');
  });
});

// ── the ledger ───────────────────────────────────────────────────────────────────────────────

describe('the wallet ledger', () => {
  test('matches the rounds, player by player', async () => {
    // Every round of this file is settled by now or shortly (abandoned rounds included).
    await eventually('every round to settle', async () => {
      const { rows } = await h.db.pool.query(`SELECT count(*)::int AS n FROM rounds WHERE status = 'open'`);
      return rows[0].n === 0 ? true : undefined;
    });
    const { rows: pending } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM wallet_transactions WHERE status = 'pending'`,
    );
    assert.equal(pending[0].n, 0);
    for (const entry of players) {
      const [player, currency] = entry.split(':') as [string, string];
      const { rows: game } = await h.db.pool.query(
        `SELECT coalesce(sum(r.bet_minor), 0)::bigint AS bets, coalesce(sum(r.win_minor), 0)::bigint AS wins,
                count(*)::int AS rounds
         FROM rounds r JOIN players p USING (player_id)
         WHERE p.external_player_id = $1 AND r.currency = $2 AND r.status = 'completed'`,
        [player, currency],
      );
      const { rows: wal } = await h.db.pool.query(
        `SELECT coalesce(sum(amount_minor) FILTER (WHERE transaction_type = 'debit'), 0)::bigint AS debits,
                coalesce(sum(amount_minor) FILTER (WHERE transaction_type = 'credit'), 0)::bigint AS credits,
                count(*) FILTER (WHERE transaction_type = 'credit')::int AS credit_count
         FROM wallet.transactions WHERE operator_id = $1 AND player_id = $2 AND currency = $3 AND status = 'success'`,
        [OP, player, currency],
      );
      assert.equal(wal[0].debits, game[0].bets, `${player}: debits = stakes of completed rounds`);
      assert.equal(wal[0].credits, game[0].wins, `${player}: credits = wins`);
      assert.equal(wal[0].credit_count, game[0].rounds, `${player}: one credit per completed round`);
      const { rows: opening } = await h.db.pool.query(
        `SELECT opening_minor, balance_minor FROM wallet.accounts WHERE operator_id = $1 AND player_id = $2 AND currency = $3`,
        [OP, player, currency],
      );
      assert.equal(
        opening[0].balance_minor,
        opening[0].opening_minor - game[0].bets + game[0].wins,
        `${player}: balance = opening - stakes + wins`,
      );
    }
    const check = await admin.ledgerCheck();
    assert.equal(check.ok, true, JSON.stringify(check));
    assert.equal(check.unbalanced_transactions, 0);
  });
});
