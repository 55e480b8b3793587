import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';

const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

before(async () => {
  w = await startPlayWorld({ temporal: false, operators: [{ id: 'op_rt', titles: [slot.symbol] }] });
  ({ h, admin, key } = w);
});
after(() => w.close());

async function launchToken(player: string): Promise<{ token: string; sessionId: string }> {
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol: slot.symbol, external_player_id: player, return_url: 'https://casino.example/lobby' },
  });
  assert.equal(res.status, 200, res.text);
  return { token: new URL(res.json.launch_url).searchParams.get('mgckey')!, sessionId: res.json.session_id };
}
const runtime = (path: string, token?: string) =>
  call(h.game, 'GET', `/api/runtime${path}`, token ? { headers: { 'x-session-token': token } } : {});

test('the page reads its session and the balance the operator wallet holds', async () => {
  await admin.createPlayer({
    operatorId: 'op_rt',
    playerId: 'rt-player-1',
    currency: 'EUR',
    balanceMinor: 12_345,
  });
  const { token, sessionId } = await launchToken('rt-player-1');
  const session = await runtime('/session', token);
  assert.equal(session.status, 200);
  assert.equal(session.json.session_id, sessionId);
  assert.equal(session.json.return_url, 'https://casino.example/lobby');
  const balance = await runtime('/balance', token);
  assert.equal(balance.status, 200, balance.text);
  assert.deepEqual(balance.json, { balance: '123.45', currency: 'EUR' });
  await admin.deposit({
    operatorId: 'op_rt',
    playerId: 'rt-player-1',
    currency: 'EUR',
    amountMinor: 55,
    reference: 'dep-1',
  });
  assert.equal((await runtime('/balance', token)).json.balance, '124.00');
});

test('only the session token opens runtime routes; a relaunch retires the old token', async () => {
  assert.equal((await runtime('/balance')).status, 401);
  assert.equal((await runtime('/balance', 'guessed-token-0000000000000000000000000000000')).status, 401);
  assert.equal(
    (await call(h.game, 'GET', '/api/runtime/balance', { key })).status,
    401,
    'an API key is not a session token',
  );
  const first = await launchToken('rt-player-2');
  const second = await launchToken('rt-player-2');
  assert.equal(second.sessionId, first.sessionId);
  assert.equal((await runtime('/session', first.token)).status, 401);
  assert.equal((await runtime('/session', second.token)).status, 200);
});

test('an expired or revoked session is 401; activity extends a slot session', async () => {
  const { token, sessionId } = await launchToken('rt-player-3');
  await h.db.pool.query(
    `UPDATE sessions SET expires_at = now() + interval '1 minute' WHERE session_id = $1`,
    [sessionId],
  );
  const fresh = await runtime('/session', token);
  const minutes = (Date.parse(fresh.json.expires_at) - Date.now()) / 60_000;
  assert.ok(minutes > 29, `activity extends the inactivity deadline (${minutes} min)`);
  await h.db.pool.query(
    `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE session_id = $1`,
    [sessionId],
  );
  const expired = await runtime('/session', token);
  assert.equal(expired.status, 401);
  assert.match(expired.json.detail, /expired/);
  const other = await launchToken('rt-player-4');
  await h.db.pool.query(`UPDATE sessions SET status = 'revoked' WHERE session_id = $1`, [other.sessionId]);
  assert.equal((await runtime('/session', other.token)).status, 401);
});

test('an unknown player at the wallet fails closed', async () => {
  const { token } = await launchToken('rt-player-unknown');
  const res = await runtime('/balance', token);
  assert.equal(res.status, 409);
  assert.match(res.json.detail, /unknown_player/);
});
