import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { walletRefusalMessage } from '@opi/contract';
import { CATALOG } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';

// Player protection from the operator's wallet, end to end with real parts only: the API, the
// settlement workflow on the Temporal dev server, PostgreSQL, and the sandbox wallet over HTTP
// refusing the player's debits with a protection code (PUT /admin/protection).
const OP = 'op_protect';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

before(async () => {
  w = await startPlayWorld({
    queue: 'protect',
    operatorWalletTitles: ['cndice'],
    operators: [
      {
        id: OP,
        titles: [slot.symbol, 'cndice', 'dcrash1'],
        settings: { allowed_currencies: ['EUR', 'USD'] },
      },
    ],
  });
  ({ h, admin, key } = w);
});
after(() => w.close());

const newPlayer = (currency = 'EUR', balanceMinor = 100_000) =>
  w.newPlayer(OP, { prefix: 'pp', currency, balanceMinor });
const refuse = (player: string, code: string | null, times?: number) =>
  admin.setProtection({
    operatorId: OP,
    playerId: player,
    refuseDebitsWith: code,
    ...(times ? { times } : {}),
  });

const launch = (symbol: string, player: string, currency = 'EUR') =>
  w.launch(key, { symbol, external_player_id: player, currency });
const runtime: PlayWorld['runtime'] = (...args) => w.runtime(...args);

async function slotToken(player: string) {
  const l = await launch(slot.symbol, player);
  return { token: l.url.searchParams.get('mgckey')!, sessionId: l.sessionId };
}
const spin = (token: string) => w.spin(token);

async function walletRequests(player: string) {
  const { rows } = await h.db.pool.query<{ round_id: string; operation: string; error_code: string | null }>(
    `SELECT round_id, transaction_type AS operation, error_code FROM wallet.requests
     WHERE player_id = $1 AND transaction_type <> 'balance' ORDER BY request_seq`,
    [player],
  );
  return rows;
}
const get = (path: string) => call(h.base, 'GET', path, { key, sign: true });

describe('slot spin (/api/runtime/spin)', () => {
  for (const code of ['self_excluded', 'session_time_limit', 'player_blocked', 'rg_cool_off']) {
    test(`${code}: the round is rejected with the code and its message; further spins 409 until relaunch`, async () => {
      const player = await newPlayer();
      await refuse(player, code);
      const { token, sessionId } = await slotToken(player);
      const first = await spin(token);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.status, 'rejected');
      assert.equal(first.json.error, code);
      assert.equal(first.json.error_message, walletRefusalMessage(code));
      assert.equal(first.json.bets_blocked.code, code);
      assert.equal(first.json.bets_blocked.round_id, first.json.round_id);
      assert.equal(first.json.bets_blocked.message, walletRefusalMessage(code));

      // Bets stop: 409 with the code, and the wallet is not asked again.
      const second = await spin(token);
      assert.equal(second.status, 409, second.text);
      assert.deepEqual(Object.keys(second.json).sort(), ['bets_blocked', 'detail', 'error']);
      assert.equal(second.json.error, code);
      assert.equal(second.json.detail, walletRefusalMessage(code));
      assert.deepEqual(second.json.bets_blocked, first.json.bets_blocked);
      const session = await runtime(token, 'GET', '/api/runtime/session');
      assert.deepEqual(session.json.bets_blocked, first.json.bets_blocked);
      assert.deepEqual(await walletRequests(player), [
        { round_id: first.json.round_id, operation: 'debit', error_code: code },
      ]);

      // The operator's audit API shows the round rejected with the code, the session blocked.
      const round = await get(`/api/operator/v1/rounds/${first.json.round_id}`);
      assert.equal(round.status, 200, round.text);
      assert.equal(round.json.data.status, 'rejected');
      assert.equal(round.json.data.rejection_code, code);
      assert.deepEqual(
        round.json.data.transactions.map((t: Record<string, unknown>) => [
          t.transaction_type,
          t.status,
          t.error_code,
        ]),
        // The credit's row, written with the round (credit ahead), closed as never sent.
        [
          ['debit', 'failed', code],
          ['credit', 'failed', 'not_sent_debit_rejected'],
        ],
      );
      const found = await get(`/api/operator/v1/rounds?session_id=${sessionId}&status=rejected`);
      assert.deepEqual(
        found.json.data.items.map((r: Record<string, unknown>) => [r.round_id, r.rejection_code]),
        [[first.json.round_id, code]],
      );
      const audited = await get(`/api/operator/v1/sessions/${sessionId}`);
      assert.deepEqual(audited.json.data.bets_blocked, first.json.bets_blocked);

      // The operator lifts it and launches again: the same session resumes, bets are taken.
      await refuse(player, null);
      const again = await slotToken(player);
      assert.equal(again.sessionId, sessionId);
      assert.equal((await spin(token)).status, 401, 'the old launch token is gone');
      const resumed = await runtime(again.token, 'GET', '/api/runtime/session');
      assert.equal(resumed.json.bets_blocked, null);
      const played = await spin(again.token);
      assert.equal(played.status, 200, played.text);
      assert.equal(played.json.status, 'completed');
      assert.equal(played.json.bets_blocked, null);
      assert.equal((await get(`/api/operator/v1/sessions/${sessionId}`)).json.data.bets_blocked, null);
    });
  }

  test('limit_reached rejects that round only: the next spin is debited', async () => {
    const player = await newPlayer();
    await refuse(player, 'limit_reached', 1);
    const { token } = await slotToken(player);
    const first = await spin(token);
    assert.equal(first.json.status, 'rejected');
    assert.equal(first.json.error, 'limit_reached');
    assert.match(first.json.error_message, /^You have reached a limit set with your operator\./);
    assert.equal(first.json.bets_blocked, null);
    const second = await spin(token);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.status, 'completed');
    assert.deepEqual(
      (await walletRequests(player)).map((r) => [r.operation, r.error_code]),
      [
        ['debit', 'limit_reached'],
        ['debit', null],
        ['credit', null],
      ],
    );
  });

  test('insufficient_funds is not protection: the next spin is taken', async () => {
    const player = await newPlayer('EUR', 50);
    const { token } = await slotToken(player);
    const first = await spin(token);
    assert.equal(first.json.error, 'insufficient_funds');
    assert.equal(first.json.bets_blocked, null);
    const second = await spin(token);
    assert.equal(second.status, 200);
    assert.equal(second.json.error, 'insufficient_funds');
  });

  test('the block is per session: another game of the same player is refused by the wallet, then blocked', async () => {
    const player = await newPlayer();
    await refuse(player, 'self_excluded');
    const { token } = await slotToken(player);
    assert.equal((await spin(token)).json.bets_blocked.code, 'self_excluded');
    const dice = await nativeToken(player);
    const refused = await runtime(dice.token, 'POST', '/api/runtime/native/bet', { stake_minor: 100 });
    assert.equal(refused.status, 200, refused.text);
    assert.equal(refused.json.round.status, 'rejected');
    assert.equal(refused.json.bets_blocked.code, 'self_excluded');
  });
});

async function nativeToken(player: string) {
  const l = await launch('cndice', player);
  const ex = await call(h.game, 'POST', '/api/runtime/native/session-from-grant', {
    body: { grant: l.url.searchParams.get('grant') },
  });
  assert.equal(ex.status, 200, ex.text);
  return { token: ex.json.token as string, sessionId: l.sessionId, boot: ex.json };
}

describe('native bet (/api/runtime/native/bet)', () => {
  test('player_blocked: the round is rejected with the code and its message; the next bet is 409', async () => {
    const player = await newPlayer();
    await refuse(player, 'player_blocked');
    const { token } = await nativeToken(player);
    const bet = await runtime(token, 'POST', '/api/runtime/native/bet', { stake_minor: 100 });
    assert.equal(bet.status, 200, bet.text);
    assert.equal(bet.json.round.status, 'rejected');
    assert.equal(bet.json.round.error, 'player_blocked');
    assert.equal(bet.json.round.error_message, walletRefusalMessage('player_blocked'));
    assert.equal(bet.json.bets_blocked.code, 'player_blocked');
    const next = await runtime(token, 'POST', '/api/runtime/native/bet', { stake_minor: 100 });
    assert.equal(next.status, 409, next.text);
    assert.equal(next.json.error, 'player_blocked');
    const state = await runtime(token, 'GET', '/api/runtime/native/state');
    assert.equal(state.json.bets_blocked.code, 'player_blocked');
    assert.equal((await walletRequests(player)).length, 1);
    // A relaunch clears it (the boot answer says so too).
    await refuse(player, null);
    const again = await nativeToken(player);
    assert.equal(again.boot.bets_blocked, null);
    const ok = await runtime(again.token, 'POST', '/api/runtime/native/bet', { stake_minor: 100 });
    assert.equal(ok.json.round.status, 'completed', ok.text);
  });

  test('limit_reached: rejected, not blocked', async () => {
    const player = await newPlayer();
    await refuse(player, 'limit_reached', 1);
    const { token } = await nativeToken(player);
    const bet = await runtime(token, 'POST', '/api/runtime/native/bet', { stake_minor: 100 });
    assert.equal(bet.json.round.error, 'limit_reached');
    assert.equal(bet.json.bets_blocked, null);
    const next = await runtime(token, 'POST', '/api/runtime/native/bet', { stake_minor: 100 });
    assert.equal(next.json.round.status, 'completed', next.text);
  });
});

describe('crash bet (/api/runtime/crash/bet)', () => {
  async function crashToken(player: string) {
    const l = await launch('dcrash1', player, 'USD');
    const res = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
      headers: { 'x-login-grant': l.url.searchParams.get('login')! },
    });
    assert.equal(res.status, 200, res.text);
    return res.json.session_token as string;
  }
  async function crashBet(token: string) {
    const state = await runtime(token, 'GET', '/api/runtime/crash/state');
    assert.equal(state.status, 200, state.text);
    return runtime(token, 'POST', '/api/runtime/crash/bet', {
      stake_minor: 100,
      client_seed: 'protection',
      commitment: state.json.next.commitment,
    });
  }

  test('session_time_limit: the round is rejected with the code; the next bet is 409; state says so', async () => {
    const player = await newPlayer('USD');
    await refuse(player, 'session_time_limit');
    const token = await crashToken(player);
    const bet = await crashBet(token);
    assert.equal(bet.status, 200, bet.text);
    assert.equal(bet.json.round.state, 'rejected');
    assert.equal(bet.json.error, 'session_time_limit');
    assert.equal(bet.json.error_message, walletRefusalMessage('session_time_limit'));
    assert.equal(bet.json.bets_blocked.code, 'session_time_limit');
    const next = await crashBet(token);
    assert.equal(next.status, 409, next.text);
    assert.equal(next.json.error, 'session_time_limit');
    const state = await runtime(token, 'GET', '/api/runtime/crash/state');
    assert.equal(state.json.bets_blocked.code, 'session_time_limit');
    assert.equal((await walletRequests(player)).length, 1);
  });

  test('limit_reached: rejected, the next bet starts', async () => {
    const player = await newPlayer('USD');
    await refuse(player, 'limit_reached', 1);
    const token = await crashToken(player);
    const bet = await crashBet(token);
    assert.equal(bet.json.error, 'limit_reached');
    assert.equal(bet.json.bets_blocked, null);
    const next = await crashBet(token);
    assert.equal(next.status, 200, next.text);
    assert.equal(next.json.error, null);
    assert.equal(next.json.round.state, 'running');
  });
});

test('refused rounds keep the reconciliation balanced', async () => {
  // EUR: the slot and native rounds (the last crash round, in USD, may still be running).
  const rec = await get('/api/operator/v1/reconciliation?currency=EUR');
  assert.equal(rec.status, 200, rec.text);
  assert.equal(rec.json.data.balanced, true, JSON.stringify(rec.json.data));
});
