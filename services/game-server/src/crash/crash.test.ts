import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import {
  chainSeed,
  crashPointCents,
  type FairnessRecord,
  msToReach,
  payoutMinor,
  verifyFairness,
} from '@opi/games';
import { ADMIN_KEY, call, type Harness, SERVICE_SECRET, startApi } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { recordHistory } from '@opi/workflows/histories';
import { crashRuntime, DEFAULT_CRASH_OPTIONS } from './runtime.js';

// The crash titles end to end, real parts only: launch through the provider API, the page's grant
// exchange, bets, cash-outs and crashes through the API, the settlement workflow on the Temporal
// dev server, signed callbacks to the sandbox wallet over HTTP. Crash points are chosen the way a
// player could: the test reads the chain's sealed root (it knows SERVICE_SECRET), derives the next
// server seed and picks a client seed that gives the crash point it needs. No test hook in the API.
const OP = 'op_crash';
const box = createSecretBox(SERVICE_SECRET);

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;
/** Opening balances, by `${external_player_id}:${currency}` (prov_d isolates ids by currency). */
const players = new Map<string, bigint>();

before(async () => {
  w = await startPlayWorld({
    queue: 'crash',
    operators: [
      {
        id: OP,
        titles: ['dcrash1', 'dcrash2', 'dcrash3'],
        settings: { default_currency: 'USD', allowed_currencies: ['USD', 'EUR', 'GBP'] },
      },
    ],
  });
  ({ h, admin, key } = w);
});

after(() => w.close());

// ── helpers ─────────────────────────────────────────────────────────────────────────────────────

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function newPlayer(balanceMinor = 100_000, currency = 'USD'): Promise<string> {
  const id = `crash-${randomUUID().slice(0, 8)}`;
  await admin.createPlayer({ operatorId: OP, playerId: id, currency, balanceMinor });
  players.set(`${id}:${currency}`, BigInt(balanceMinor));
  return id;
}

async function launch(player: string, symbol = 'dcrash1', extra: Record<string, unknown> = {}) {
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol, external_player_id: player, currency: 'USD', ...extra },
  });
  assert.equal(res.status, 200, res.text);
  const url = new URL(res.json.launch_url);
  return { url, login: url.searchParams.get('login')!, sessionId: res.json.session_id as string };
}

async function authorize(login: string): Promise<string> {
  const res = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
    headers: { 'x-login-grant': login },
  });
  assert.equal(res.status, 200, res.text);
  return res.json.session_token;
}

async function open(player: string, symbol = 'dcrash1', currency = 'USD') {
  const l = await launch(player, symbol, { currency });
  return { ...l, token: await authorize(l.login) };
}

const rt = (token: string, method: string, path: string, body?: unknown) =>
  call(h.game, method, `/api/runtime/crash${path}`, {
    headers: { 'x-session-token': token },
    ...(body === undefined ? {} : { body }),
  });

/** A client seed giving the next round of this player a crash point (hundredths) that `want` accepts. */
async function seedFor(
  owner: { player?: string; currency?: string; demoId?: string },
  symbol: string,
  want: (cents: number) => boolean,
): Promise<{ clientSeed: string; crash: number }> {
  const { rows } = await h.db.pool.query<{ root_seed_enc: string; length: number; next_position: number }>(
    owner.player
      ? `SELECT c.root_seed_enc, c.length, c.next_position FROM crash_seed_chains c JOIN players p ON p.player_id = c.player_id
         WHERE p.external_player_id = $1 AND p.operator_id = '${OP}' AND c.symbol = $2 AND c.exhausted_at IS NULL
           AND trim(p.currency) = $3`
      : `SELECT root_seed_enc, length, next_position FROM crash_seed_chains
         WHERE demo_id = $1 AND symbol = $2 AND exhausted_at IS NULL`,
    owner.player ? [owner.player, symbol, owner.currency ?? 'USD'] : [owner.demoId, symbol],
  );
  const chain = rows[0]!;
  const seed = chainSeed(box.decrypt(chain.root_seed_enc), chain.length, chain.next_position);
  const rtp = symbol === 'dcrash3' ? '96.00' : '97.00';
  for (let i = 0; i < 100_000; i++) {
    const clientSeed = `pick-${i}`;
    const crash = crashPointCents(seed, clientSeed, chain.next_position, rtp);
    if (want(crash)) return { clientSeed, crash };
  }
  throw new Error('no client seed found');
}

async function bet(
  token: string,
  player: string,
  want: (cents: number) => boolean,
  stake = 100,
  extra: Record<string, unknown> = {},
) {
  const state = await rt(token, 'GET', '/state');
  assert.equal(state.status, 200, state.text);
  const { clientSeed, crash } = await seedFor(
    { player, currency: state.json.currency },
    state.json.symbol,
    want,
  );
  const res = await rt(token, 'POST', '/bet', {
    stake_minor: stake,
    client_seed: clientSeed,
    commitment: state.json.next.commitment,
    ...extra,
  });
  assert.equal(res.status, 200, res.text);
  return { res, crash, commitment: state.json.next.commitment as string, clientSeed };
}

async function stages(roundId: string): Promise<string[]> {
  const { rows } = await h.db.pool.query<{ action: string }>(
    `SELECT action FROM round_stages WHERE round_id = $1 ORDER BY seq`,
    [roundId],
  );
  return rows.map((r) => r.action);
}

async function settled(roundId: string): Promise<{ status: string; win_minor: bigint; bet_minor: bigint }> {
  return until(`round ${roundId} settled`, async () => {
    const { rows } = await h.db.pool.query(
      `SELECT status, win_minor, bet_minor FROM rounds WHERE round_id = $1`,
      [roundId],
    );
    return rows[0] && rows[0].status !== 'open' ? rows[0] : undefined;
  });
}

async function walletTx(roundId: string) {
  const { rows } = await h.db.pool.query<{ transaction_type: string; amount_minor: bigint; status: string }>(
    `SELECT transaction_type, amount_minor, status FROM wallet_transactions WHERE round_id = $1 ORDER BY created_at`,
    [roundId],
  );
  return rows.map((r) => `${r.transaction_type}:${r.amount_minor}:${r.status}`);
}

const balanceOf = async (player: string, currency = 'USD') =>
  BigInt((await admin.balance(OP, player, currency)).balance_minor);

// ── tests ───────────────────────────────────────────────────────────────────────────────────────

describe('rounds', () => {
  test('a cash-out before the crash credits stake x multiplier once; the round verifies', async () => {
    const player = await newPlayer();
    const { token } = await open(player);
    const placed = await bet(token, player, (c) => c >= 500);
    const round = placed.res.json.round;
    assert.equal(round.state, 'running');
    assert.equal(round.crash_point, null, 'the crash point stays hidden while the round runs');
    assert.equal(round.fairness.server_seed, null);
    assert.equal(round.fairness.commitment, placed.commitment);
    assert.equal(placed.res.json.balance_minor, '99900', 'the page shows the debited balance');
    const during = await rt(token, 'GET', '/state');
    assert.equal(during.json.next, null, "the next commitment (this round's seed) stays hidden");
    assert.equal(during.json.round.round_id, round.round_id);
    await sleep(msToReach(110) + 50);
    const out = await rt(token, 'POST', '/cashout', { round_id: round.round_id });
    assert.equal(out.status, 200, out.text);
    const done = out.json.round;
    assert.equal(done.state, 'cashed_out');
    const cents = Number(done.cashout_multiplier.replace('.', ''));
    assert.ok(cents >= 110 && cents < 500, done.cashout_multiplier);
    assert.equal(done.win_minor, payoutMinor(100n, cents).toString());
    assert.equal(done.crash_point, (placed.crash / 100).toFixed(2));
    assert.equal(out.json.balance_minor, (100_000n - 100n + BigInt(done.win_minor)).toString());
    assert.equal(await balanceOf(player), 100_000n - 100n + BigInt(done.win_minor));
    const r = await settled(round.round_id);
    assert.deepEqual([r.status, r.win_minor], ['completed', BigInt(done.win_minor)]);
    recordHistory({ workflow: 'settleRound', path: 'crash', workflowId: round.round_id, address: w.address });
    assert.deepEqual(await stages(round.round_id), ['bet', 'start', 'cashout']);
    assert.deepEqual(await walletTx(round.round_id), [
      'debit:100:success',
      `credit:${done.win_minor}:success`,
    ]);
    // The public fairness record verifies: the seed hashes to the commitment and down the chain.
    const fair = await call(h.game, 'GET', `/games/fairness/${round.round_id}`);
    assert.equal(fair.status, 200, fair.text);
    const v = verifyFairness(fair.json.data as FairnessRecord);
    assert.equal(v.ok, true, JSON.stringify(v.checks));
    assert.equal(v.crashCents, placed.crash);
    const afterwards = await rt(token, 'GET', '/state');
    assert.equal(
      afterwards.json.next.commitment,
      fair.json.data.server_seed,
      'the revealed seed is the next commitment',
    );
    assert.equal(afterwards.json.next.nonce, round.fairness.nonce + 1);
  });

  test('a crash ends the round with a zero credit; a late cash-out changes nothing', async () => {
    const player = await newPlayer();
    const { token } = await open(player);
    const placed = await bet(token, player, (c) => c >= 101 && c <= 110);
    const id = placed.res.json.round.round_id;
    const read = await rt(token, 'GET', `/rounds/${id}?wait=1`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.state, 'crashed');
    assert.equal(read.json.crash_point, (placed.crash / 100).toFixed(2));
    assert.equal(read.json.win_minor, '0');
    assert.match(read.json.fairness.server_seed, /^[0-9a-f]{64}$/);
    const late = await rt(token, 'POST', '/cashout', { round_id: id });
    assert.equal(late.status, 200);
    assert.deepEqual([late.json.round.state, late.json.already_ended], ['crashed', true]);
    const r = await settled(id);
    assert.deepEqual([r.status, r.win_minor], ['completed', 0n]);
    assert.deepEqual(await stages(id), ['bet', 'start', 'crash']);
    assert.deepEqual(await walletTx(id), ['debit:100:success', 'credit:0:success']);
    assert.equal(await balanceOf(player), 99_900n);
  });

  test('a 1.00x crash ends the round at once: no cash-out can win it', async () => {
    const player = await newPlayer();
    const { token } = await open(player);
    const placed = await bet(token, player, (c) => c === 100);
    const id = placed.res.json.round.round_id;
    const out = await rt(token, 'POST', '/cashout', { round_id: id });
    assert.equal(out.status, 200, out.text);
    assert.equal(out.json.round.state, 'crashed');
    assert.equal(out.json.round.crash_point, '1.00');
    assert.equal((await settled(id)).win_minor, 0n);
  });

  test('an auto cash-out pays its target without the player', async () => {
    const player = await newPlayer();
    const { token } = await open(player);
    const placed = await bet(token, player, (c) => c >= 200, 250, { auto_cashout: '1.10' });
    const id = placed.res.json.round.round_id;
    const r = await settled(id);
    assert.deepEqual([r.status, r.win_minor], ['completed', 275n]);
    assert.deepEqual(await stages(id), ['bet', 'start', 'cashout']);
    const read = await rt(token, 'GET', `/rounds/${id}`);
    assert.deepEqual([read.json.state, read.json.cashout_multiplier], ['cashed_out', '1.10']);
  });

  test('an abandoned round (nobody reads or cashes out) is settled at its crash time by the server', async () => {
    const player = await newPlayer();
    const { token } = await open(player);
    const placed = await bet(token, player, (c) => c >= 105 && c <= 130);
    const id = placed.res.json.round.round_id;
    // No further request from the page: the runtime's timer ends and settles the round.
    const r = await settled(id);
    assert.deepEqual([r.status, r.win_minor], ['completed', 0n]);
    assert.deepEqual(await stages(id), ['bet', 'start', 'crash']);
  });

  test('a round whose API process is gone is settled by another process at its crash time', async () => {
    const player = await newPlayer();
    const b = await startApi(h.env, { db: h.db });
    const l = await launch(player);
    const login = await call(b.game, 'POST', '/api/runtime/crash/authorize', {
      headers: { 'x-login-grant': l.login },
    });
    const token = login.json.session_token as string;
    const state = await call(b.game, 'GET', '/api/runtime/crash/state', {
      headers: { 'x-session-token': token },
    });
    const { clientSeed, crash } = await seedFor({ player }, 'dcrash1', (c) => c >= 105 && c <= 130);
    const res = await call(b.game, 'POST', '/api/runtime/crash/bet', {
      headers: { 'x-session-token': token },
      body: { stake_minor: 100, client_seed: clientSeed, commitment: state.json.next.commitment },
    });
    assert.equal(res.json.round.state, 'running', res.text);
    await b.close(); // its timer goes with it
    const id = res.json.round.round_id;
    const r = await settled(id);
    assert.deepEqual([r.status, r.win_minor], ['completed', 0n]);
    const { rows } = await h.db.pool.query(
      `SELECT state, crash_cents FROM crash_rounds WHERE round_id = $1`,
      [id],
    );
    assert.deepEqual(rows[0], { state: 'crashed', crash_cents: crash });
  });

  test('two concurrent cash-outs credit once', async () => {
    const player = await newPlayer();
    const { token } = await open(player);
    const placed = await bet(token, player, (c) => c >= 1000, 300);
    const id = placed.res.json.round.round_id;
    await sleep(msToReach(105));
    const [a, b] = await Promise.all([
      rt(token, 'POST', '/cashout', { round_id: id }),
      rt(token, 'POST', '/cashout', { round_id: id }),
    ]);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.deepEqual([a.json.already_ended, b.json.already_ended].sort(), [false, true]);
    assert.equal(a.json.round.win_minor, b.json.round.win_minor);
    const win = BigInt(a.json.round.win_minor);
    const r = await settled(id);
    assert.equal(r.win_minor, win);
    assert.deepEqual(await walletTx(id), ['debit:300:success', `credit:${win}:success`]);
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM wallet.transactions WHERE round_id = $1 AND transaction_type = 'credit'`,
      [id],
    );
    assert.equal(rows[0].n, 1, 'the wallet saw one credit');
    assert.deepEqual(await stages(id), ['bet', 'start', 'cashout']);
    assert.equal(await balanceOf(player), 100_000n - 300n + win);
  });

  test('an insufficient balance: the debit is refused, the round never starts, its seed is revealed', async () => {
    const player = await newPlayer(50);
    const { token } = await open(player);
    const placed = await bet(token, player, () => true, 100);
    assert.equal(placed.res.json.round.state, 'rejected');
    assert.equal(placed.res.json.error, 'insufficient_funds');
    assert.match(placed.res.json.round.fairness.server_seed, /^[0-9a-f]{64}$/);
    assert.deepEqual(await stages(placed.res.json.round.round_id), ['bet', 'reject']);
    assert.equal(await balanceOf(player), 50n);
  });
});

describe('aborted rounds', () => {
  test('a debit not confirmed within the start window: the round is cancelled through the workflow', async () => {
    const player = await newPlayer();
    const { token } = await open(player);
    const runtime = crashRuntime(h.gameDeps);
    runtime.options.startWindowMs = 700;
    await admin.setFaults({ latencyMs: [2_000, 2_000], latencyRate: 1 });
    try {
      const placed = await bet(token, player, () => true, 400);
      const round = placed.res.json.round;
      assert.ok(['cancelling', 'cancelled'].includes(round.state), round.state);
      assert.equal(round.started_at, null, 'the multiplier never started');
      const r = await settled(round.round_id);
      assert.equal(r.status, 'cancelled');
      assert.deepEqual(await walletTx(round.round_id), ['debit:400:success', 'cancel:400:success']);
      assert.deepEqual(await stages(round.round_id), ['bet', 'cancel']);
      await until('crash round cancelled', async () => {
        const { rows } = await h.db.pool.query(
          `SELECT state, settled FROM crash_rounds WHERE round_id = $1`,
          [round.round_id],
        );
        return rows[0].state === 'cancelled' && rows[0].settled;
      });
      assert.equal(await balanceOf(player), 100_000n, 'debit and cancel net to zero');
    } finally {
      await admin.setFaults({});
      runtime.options.startWindowMs = DEFAULT_CRASH_OPTIONS.startWindowMs;
    }
  });

  test('a bet whose process stopped before the start is aborted (cancelled) by another process', async () => {
    const player = await newPlayer();
    const b = await startApi(h.env, { db: h.db });
    const l = await launch(player);
    const login = await call(b.game, 'POST', '/api/runtime/crash/authorize', {
      headers: { 'x-login-grant': l.login },
    });
    const token = login.json.session_token as string;
    const state = await call(b.game, 'GET', '/api/runtime/crash/state', {
      headers: { 'x-session-token': token },
    });
    const runtime = crashRuntime(h.gameDeps);
    await admin.setFaults({ latencyMs: [1_500, 1_500], latencyRate: 1 });
    try {
      const pending = call(b.game, 'POST', '/api/runtime/crash/bet', {
        headers: { 'x-session-token': token },
        body: { stake_minor: 200, client_seed: 'restart', commitment: state.json.next.commitment },
      }).catch(() => null);
      const id = await until('the bet recorded', async () => {
        const { rows } = await h.db.pool.query(
          `SELECT cr.round_id FROM crash_rounds cr JOIN players p ON p.player_id = cr.player_id
           WHERE p.external_player_id = $1`,
          [player],
        );
        return rows[0]?.round_id as string | undefined;
      });
      await b.close(); // the process that took the bet is gone before the debit answers
      await pending;
      runtime.options.startWindowMs = 300;
      runtime.options.abortMarginMs = 0;
      await sleep(400);
      await runtime.sweep();
      const r = await settled(id);
      assert.equal(r.status, 'cancelled');
      assert.deepEqual(await walletTx(id), ['debit:200:success', 'cancel:200:success']);
      assert.deepEqual(await stages(id), ['bet', 'cancel']);
      assert.equal(await balanceOf(player), 100_000n);
    } finally {
      await admin.setFaults({});
      runtime.options.startWindowMs = DEFAULT_CRASH_OPTIONS.startWindowMs;
      runtime.options.abortMarginMs = DEFAULT_CRASH_OPTIONS.abortMarginMs;
    }
  });
});

describe('sessions', () => {
  test('the page exchanges the login grant once for a one-hour authorization', async () => {
    const player = await newPlayer();
    const l = await launch(player, 'dcrash1', { return_url: 'https://lobby.example/crash' });
    assert.equal(l.url.pathname, '/games/rocket-rise/');
    const page = await call(h.game, 'GET', `${l.url.pathname}${l.url.search}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /text\/html/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.match(page.headers.get('content-security-policy')!, /script-src 'self'/);
    assert.ok(!page.text.includes(l.login), 'the token is not written into the page');
    // The grant is not a runtime token, on the crash routes or the shared ones.
    assert.equal((await rt(l.login, 'GET', '/state')).status, 401);
    const generic = (t: string, path: string) =>
      call(h.game, 'GET', `/api/runtime/${path}`, { headers: { 'x-session-token': t } });
    assert.equal((await generic(l.login, 'session')).status, 401);
    const token = await authorize(l.login);
    assert.equal((await generic(token, 'session')).json.session_id, l.sessionId);
    assert.equal((await generic(token, 'balance')).json.balance, '1000.00');
    const again = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
      headers: { 'x-login-grant': l.login },
    });
    assert.equal(again.status, 401, 'a grant is used once');
    const state = await rt(token, 'GET', '/state');
    assert.equal(state.status, 200, state.text);
    assert.equal(state.json.currency, 'USD');
    assert.equal(state.json.balance_minor, '100000');
    assert.equal(state.json.return_url, 'https://lobby.example/crash');
    const until = Date.parse(state.json.authorized_until);
    assert.ok(Math.abs(until - (Date.now() + 3_600_000)) < 60_000, 'authorized for one hour');
    const { rows } = await h.db.pool.query(
      `SELECT expires_at, token_hash FROM sessions WHERE session_id = $1`,
      [l.sessionId],
    );
    assert.equal(rows[0].token_hash, null);
    assert.equal(rows[0].expires_at.getTime(), until);
    // Opening the used link again shows the error page.
    const used = await call(h.game, 'GET', `${l.url.pathname}${l.url.search}`);
    assert.equal(used.status, 401);
    assert.match(used.text, /data-testid="game-error"/);
  });

  test('an expired or invalid login grant: 401 error page, no authorization', async () => {
    const player = await newPlayer();
    const l = await launch(player);
    await h.db.pool.query(
      `UPDATE sessions SET grant_expires_at = now() - interval '1 second', expires_at = now() - interval '1 second'
       WHERE session_id = $1`,
      [l.sessionId],
    );
    const page = await call(h.game, 'GET', `${l.url.pathname}${l.url.search}`);
    assert.equal(page.status, 401);
    assert.match(page.headers.get('content-type')!, /text\/html/);
    assert.match(page.text, /data-testid="game-error"[^>]*>This game link has expired/);
    assert.ok(!page.text.includes('bet-button'), 'no game controls');
    const res = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
      headers: { 'x-login-grant': l.login },
    });
    assert.equal(res.status, 401);
    const bogus = await call(h.game, 'GET', `/games/rocket-rise/?login=${'x'.repeat(43)}`);
    assert.equal(bogus.status, 401);
    assert.match(bogus.text, /data-testid="game-error"[^>]*>This game link is not valid/);
    // Another title's page with this title's grant is not valid either.
    const fresh = await launch(player);
    const other = await call(h.game, 'GET', `/games/comet-climb/?login=${fresh.login}`);
    assert.equal(other.status, 401);
    // A fresh launch resumes.
    await authorize(fresh.login);
  });

  test('revocation ends the authorization at once; the running round still settles; a relaunch resumes', async () => {
    const player = await newPlayer();
    const { token, sessionId } = await open(player);
    const placed = await bet(token, player, (c) => c >= 120 && c <= 150);
    const id = placed.res.json.round.round_id;
    const revoke = await call(h.base, 'POST', `/api/admin/v1/sessions/${sessionId}/revoke`, {
      key: ADMIN_KEY,
      sign: true,
      body: { reason: 'responsible gaming' },
    });
    assert.equal(revoke.status, 200, revoke.text);
    assert.deepEqual(revoke.json.data, {
      session_id: sessionId,
      status: 'revoked',
      revoked_authorizations: 1,
    });
    assert.equal((await rt(token, 'GET', '/state')).status, 401);
    assert.equal((await rt(token, 'POST', '/cashout', { round_id: id })).status, 401);
    const r = await settled(id);
    assert.deepEqual([r.status, r.win_minor], ['completed', 0n], 'revocation never cancels a payment');
    const unknown = await call(h.base, 'POST', `/api/admin/v1/sessions/s_${randomUUID()}/revoke`, {
      key: ADMIN_KEY,
      sign: true,
      body: {},
    });
    assert.equal(unknown.status, 404);
    const operatorKey = await call(h.base, 'POST', `/api/admin/v1/sessions/${sessionId}/revoke`, {
      key,
      body: {},
    });
    assert.equal(operatorKey.status, 403);
    // A new launch opens a new session.
    const relaunch = await open(player);
    assert.notEqual(relaunch.sessionId, sessionId);
    assert.equal((await rt(relaunch.token, 'GET', '/state')).status, 200);
  });

  test('a fresh launch resumes the unfinished round with its wager and currency; the old page is superseded', async () => {
    const player = await newPlayer();
    const first = await open(player, 'dcrash1');
    const placed = await bet(first.token, player, (c) => c >= 1000, 500);
    const id = placed.res.json.round.round_id;
    const second = await open(player, 'dcrash1');
    assert.equal(second.sessionId, first.sessionId, 'the session is resumed');
    assert.equal((await rt(first.token, 'GET', '/state')).status, 401, 'the earlier page is superseded');
    const state = await rt(second.token, 'GET', '/state');
    assert.equal(state.status, 200, state.text);
    assert.equal(state.json.round.round_id, id);
    assert.equal(state.json.round.stake_minor, '500');
    assert.equal(state.json.round.currency, 'USD');
    assert.equal(state.json.round.state, 'running');
    assert.equal(state.json.next, null, "the next commitment is the running round's seed: hidden");
    const busy = await rt(second.token, 'POST', '/bet', {
      stake_minor: 100,
      client_seed: 'x',
      commitment: state.json.round.fairness.commitment,
    });
    assert.equal(busy.status, 409, 'one round at a time');
    await sleep(msToReach(102));
    const out = await rt(second.token, 'POST', '/cashout', { round_id: id });
    assert.equal(out.json.round.state, 'cashed_out', out.text);
    const r = await settled(id);
    assert.equal(r.win_minor, BigInt(out.json.round.win_minor));
    assert.deepEqual(await walletTx(id), ['debit:500:success', `credit:${out.json.round.win_minor}:success`]);
  });
});

describe('Comet Climb (dcrash2): USD, EUR or GBP', () => {
  async function roundRow(roundId: string) {
    const { rows } = await h.db.pool.query(
      `SELECT r.symbol, trim(r.currency) AS currency, trim(cr.currency) AS crash_currency
       FROM rounds r JOIN crash_rounds cr USING (round_id) WHERE r.round_id = $1`,
      [roundId],
    );
    return rows[0];
  }
  async function walletCurrencies(roundId: string): Promise<string[]> {
    const { rows } = await h.db.pool.query(
      `SELECT DISTINCT trim(currency) AS currency FROM wallet.transactions WHERE operator_id = $1 AND round_id = $2`,
      [OP, roundId],
    );
    return rows.map((r) => r.currency);
  }

  test('a cash-out in EUR credits stake x multiplier once, in EUR; the round verifies', async () => {
    const player = await newPlayer(50_000, 'EUR');
    const { token, url } = await open(player, 'dcrash2', 'EUR');
    assert.equal(url.pathname, '/games/comet-climb/');
    const state = await rt(token, 'GET', '/state');
    assert.deepEqual(
      [state.json.symbol, state.json.currency, state.json.balance_minor],
      ['dcrash2', 'EUR', '50000'],
    );
    const placed = await bet(token, player, (c) => c >= 500, 250);
    const round = placed.res.json.round;
    assert.equal(round.state, 'running');
    assert.equal(round.currency, 'EUR');
    assert.equal(placed.res.json.balance_minor, '49750');
    await sleep(msToReach(115) + 50);
    const out = await rt(token, 'POST', '/cashout', { round_id: round.round_id });
    assert.equal(out.status, 200, out.text);
    assert.equal(out.json.round.state, 'cashed_out');
    const cents = Number(out.json.round.cashout_multiplier.replace('.', ''));
    assert.ok(cents >= 115 && cents < 500, out.json.round.cashout_multiplier);
    const win = payoutMinor(250n, cents);
    assert.equal(out.json.round.win_minor, win.toString());
    const r = await settled(round.round_id);
    assert.deepEqual([r.status, r.win_minor], ['completed', win]);
    assert.deepEqual(await walletTx(round.round_id), ['debit:250:success', `credit:${win}:success`]);
    assert.deepEqual(await roundRow(round.round_id), {
      symbol: 'dcrash2',
      currency: 'EUR',
      crash_currency: 'EUR',
    });
    assert.deepEqual(await walletCurrencies(round.round_id), ['EUR'], 'the wallet moved euros');
    assert.equal(await balanceOf(player, 'EUR'), 50_000n - 250n + win);
    const fair = await call(h.game, 'GET', `/games/fairness/${round.round_id}`);
    const v = verifyFairness(fair.json.data as FairnessRecord);
    assert.equal(v.ok, true, JSON.stringify(v.checks));
    assert.equal(v.crashCents, placed.crash);
  });

  test('a crash in GBP ends the round with a zero credit, in GBP', async () => {
    const player = await newPlayer(20_000, 'GBP');
    const { token } = await open(player, 'dcrash2', 'GBP');
    const placed = await bet(token, player, (c) => c >= 101 && c <= 110, 300);
    const id = placed.res.json.round.round_id;
    const read = await rt(token, 'GET', `/rounds/${id}?wait=1`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual([read.json.state, read.json.win_minor], ['crashed', '0']);
    assert.equal(read.json.crash_point, (placed.crash / 100).toFixed(2));
    const late = await rt(token, 'POST', '/cashout', { round_id: id });
    assert.deepEqual([late.json.round.state, late.json.already_ended], ['crashed', true]);
    const r = await settled(id);
    assert.deepEqual([r.status, r.win_minor], ['completed', 0n]);
    assert.deepEqual(await stages(id), ['bet', 'start', 'crash']);
    assert.deepEqual(await walletTx(id), ['debit:300:success', 'credit:0:success']);
    assert.equal((await roundRow(id)).currency, 'GBP');
    assert.deepEqual(await walletCurrencies(id), ['GBP']);
    assert.equal(await balanceOf(player, 'GBP'), 19_700n);
  });

  test('an abandoned round (nobody reads or cashes out) is settled at its crash time', async () => {
    const player = await newPlayer(100_000, 'EUR');
    const { token } = await open(player, 'dcrash2', 'EUR');
    const placed = await bet(token, player, (c) => c >= 105 && c <= 130, 400);
    const id = placed.res.json.round.round_id;
    const r = await settled(id);
    assert.deepEqual([r.status, r.win_minor], ['completed', 0n]);
    assert.deepEqual(await stages(id), ['bet', 'start', 'crash']);
    assert.deepEqual(await walletTx(id), ['debit:400:success', 'credit:0:success']);
    assert.equal(await balanceOf(player, 'EUR'), 99_600n);
  });

  test('an expired login grant: the error page, no authorization; a fresh launch plays', async () => {
    const player = await newPlayer(100_000, 'GBP');
    const l = await launch(player, 'dcrash2', { currency: 'GBP' });
    await h.db.pool.query(
      `UPDATE sessions SET grant_expires_at = now() - interval '1 second', expires_at = now() - interval '1 second'
       WHERE session_id = $1`,
      [l.sessionId],
    );
    const page = await call(h.game, 'GET', `${l.url.pathname}${l.url.search}`);
    assert.equal(page.status, 401);
    assert.match(page.text, /data-testid="game-error"[^>]*>This game link has expired/);
    const refused = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
      headers: { 'x-login-grant': l.login },
    });
    assert.equal(refused.status, 401);
    const fresh = await launch(player, 'dcrash2', { currency: 'GBP' });
    const token = await authorize(fresh.login);
    const state = await rt(token, 'GET', '/state');
    assert.deepEqual([state.json.currency, state.json.balance_minor], ['GBP', '100000']);
  });

  test('a relaunch resumes the unfinished EUR round with its wager and currency; USD is another identity', async () => {
    const player = await newPlayer(100_000, 'EUR');
    const first = await open(player, 'dcrash2', 'EUR');
    const placed = await bet(first.token, player, (c) => c >= 1000, 600);
    const id = placed.res.json.round.round_id;
    const second = await open(player, 'dcrash2', 'EUR');
    assert.equal(second.sessionId, first.sessionId, 'the session is resumed');
    assert.equal((await rt(first.token, 'GET', '/state')).status, 401, 'the earlier page is superseded');
    const state = await rt(second.token, 'GET', '/state');
    assert.equal(state.status, 200, state.text);
    assert.deepEqual(
      [
        state.json.round.round_id,
        state.json.round.stake_minor,
        state.json.round.currency,
        state.json.round.state,
      ],
      [id, '600', 'EUR', 'running'],
    );
    // prov_d isolates a player id by currency: a USD launch is another player, without this round.
    const usd = await open(player, 'dcrash2', 'USD');
    assert.notEqual(usd.sessionId, first.sessionId);
    const usdState = await rt(usd.token, 'GET', '/state');
    assert.equal(usdState.status, 200, usdState.text);
    assert.deepEqual([usdState.json.currency, usdState.json.round], ['USD', null]);
    await sleep(msToReach(103));
    const out = await rt(second.token, 'POST', '/cashout', { round_id: id });
    assert.equal(out.json.round.state, 'cashed_out', out.text);
    const win = BigInt(out.json.round.win_minor);
    const r = await settled(id);
    assert.equal(r.win_minor, win);
    assert.deepEqual(await walletTx(id), ['debit:600:success', `credit:${win}:success`]);
    assert.deepEqual(await walletCurrencies(id), ['EUR']);
    assert.equal(await balanceOf(player, 'EUR'), 100_000n - 600n + win);
  });
});

describe('validation', () => {
  test('stale commitments, bad stakes, bad seeds and other players rounds are refused', async () => {
    const player = await newPlayer();
    const { token } = await open(player);
    const state = await rt(token, 'GET', '/state');
    const base = { stake_minor: 100, client_seed: 'ok', commitment: state.json.next.commitment };
    const stale = await rt(token, 'POST', '/bet', { ...base, commitment: 'a'.repeat(64) });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.next.commitment, state.json.next.commitment);
    assert.equal((await rt(token, 'POST', '/bet', { ...base, stake_minor: 1 })).status, 422);
    assert.equal((await rt(token, 'POST', '/bet', { ...base, stake_minor: 10_000_000 })).status, 422);
    assert.equal((await rt(token, 'POST', '/bet', { ...base, client_seed: 'has space' })).status, 422);
    assert.equal((await rt(token, 'POST', '/bet', { ...base, auto_cashout: '1.00' })).status, 422);
    const otherPlayer = await newPlayer();
    const other = await open(otherPlayer);
    const theirs = await bet(other.token, otherPlayer, (c) => c >= 101 && c <= 103);
    const id = theirs.res.json.round.round_id;
    assert.equal((await rt(token, 'POST', '/cashout', { round_id: id })).status, 404);
    assert.equal((await rt(token, 'GET', `/rounds/${id}`)).status, 404);
    await settled(id);
    // The demo-only title takes no operator launch.
    const demo = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key,
      body: { symbol: 'dcrash3', external_player_id: player },
    });
    assert.equal(demo.status, 409);
  });
});

describe('demo', () => {
  test('the demo page plays with play money: no operator, no wallet, no settlement', async () => {
    const page = await call(h.game, 'GET', '/games/paper-kite/demo');
    assert.equal(page.status, 200);
    assert.match(page.text, /data-mode="demo"/);
    assert.equal((await call(h.game, 'GET', '/games/no-such-game/demo')).status, 404);
    const created = await call(h.game, 'POST', '/api/runtime/crash/demo', { body: { slug: 'paper-kite' } });
    assert.equal(created.status, 201, created.text);
    const token = created.json.session_token as string;
    const state = await rt(token, 'GET', '/state');
    assert.equal(state.status, 200, state.text);
    assert.deepEqual(
      [state.json.mode, state.json.currency, state.json.balance_minor],
      ['demo', 'FUN', '100000'],
    );
    const { rows } = await h.db.pool.query<{ demo_id: string }>(
      `SELECT demo_id FROM crash_demo_sessions WHERE symbol = 'dcrash3'`,
    );
    const demoId = rows.at(-1)!.demo_id;
    const { clientSeed } = await seedFor({ demoId }, 'dcrash3', (c) => c >= 300);
    const placed = await rt(token, 'POST', '/bet', {
      stake_minor: 1000,
      client_seed: clientSeed,
      commitment: state.json.next.commitment,
    });
    assert.equal(placed.json.round.state, 'running', placed.text);
    await sleep(msToReach(120));
    const out = await rt(token, 'POST', '/cashout', { round_id: placed.json.round.round_id });
    assert.equal(out.json.round.state, 'cashed_out', out.text);
    const after = await rt(token, 'GET', '/state');
    assert.equal(BigInt(after.json.balance_minor), 100_000n - 1000n + BigInt(out.json.round.win_minor));
    const money = await h.db.pool.query(`SELECT count(*)::int AS n FROM rounds WHERE round_id = $1`, [
      placed.json.round.round_id,
    ]);
    assert.equal(money.rows[0].n, 0, 'no settlement round');
    // The demo token opens nothing else.
    assert.equal(
      (await call(h.game, 'GET', '/api/runtime/balance', { headers: { 'x-session-token': token } })).status,
      401,
    );
  });
});

describe('ledger', () => {
  test('the wallet ledger matches the rounds; nothing is left pending', async () => {
    await until('every crash round settled', async () => {
      const { rows } = await h.db.pool.query(
        `SELECT count(*)::int AS n FROM crash_rounds WHERE mode = 'operator-wallet' AND NOT settled`,
      );
      return rows[0].n === 0;
    });
    // Per player, the wallet's movements are the sum of (win - stake) of the completed crash rounds;
    // cancelled and rejected rounds net to zero.
    const { rows } = await h.db.pool.query<{
      external_player_id: string;
      currency: string;
      net: bigint;
      rounds: number;
    }>(
      `SELECT p.external_player_id, trim(r.currency) AS currency, count(*)::int AS rounds,
              coalesce(sum(CASE r.status WHEN 'completed' THEN r.win_minor - r.bet_minor ELSE 0 END), 0)::bigint AS net
       FROM crash_rounds cr JOIN rounds r ON r.round_id = cr.round_id JOIN players p ON p.player_id = cr.player_id
       WHERE cr.mode = 'operator-wallet' GROUP BY p.external_player_id, trim(r.currency)`,
    );
    assert.ok(rows.length >= 10, `${rows.length} players played`);
    assert.deepEqual(
      [...new Set(rows.map((r) => r.currency))].sort(),
      ['EUR', 'GBP', 'USD'],
      'rounds settled in each currency',
    );
    for (const row of rows) {
      const opening = players.get(`${row.external_player_id}:${row.currency}`);
      assert.ok(opening !== undefined, `${row.external_player_id} ${row.currency}`);
      const held = BigInt((await admin.balance(OP, row.external_player_id, row.currency)).balance_minor);
      assert.equal(
        held,
        opening + row.net,
        `${row.currency} wallet of ${row.external_player_id} matches its ${row.rounds} round(s)`,
      );
    }
    // Round by round: the sandbox's own journal nets to win - stake (completed) or zero.
    const { rows: byRound } = await h.db.pool.query<{
      round_id: string;
      status: string;
      expected: bigint;
      wallet: bigint;
    }>(
      `SELECT r.round_id, r.status,
              CASE r.status WHEN 'completed' THEN r.win_minor - r.bet_minor ELSE 0 END::bigint AS expected,
              coalesce((SELECT sum(t.player_delta_minor) FROM wallet.transactions t
                        WHERE t.operator_id = r.operator_id AND t.round_id = r.round_id), 0)::bigint AS wallet
       FROM rounds r WHERE r.operator_id = $1`,
      [OP],
    );
    for (const r of byRound) assert.equal(r.wallet, r.expected, `${r.round_id} (${r.status})`);
    const check = await admin.ledgerCheck();
    assert.equal(check.ok, true, 'the sandbox ledger is consistent');
    const { rows: pending } = await h.db.pool.query(
      `SELECT transaction_id FROM wallet_transactions WHERE status = 'pending' AND operator_id = $1`,
      [OP],
    );
    assert.deepEqual(pending, [], 'no transaction left pending');
    const { rows: open } = await h.db.pool.query(
      `SELECT round_id FROM rounds WHERE status = 'open' AND operator_id = $1`,
      [OP],
    );
    assert.deepEqual(open, [], 'no round left open');
  });
});
