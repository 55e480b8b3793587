import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import { CATALOG } from '@opi/games';
import { createWalletApp } from '@opi/wallet-sandbox';
import { createWalletAdminClient, type WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { createActivities, WORKFLOW_BUNDLE_PATH } from '@opi/workflows';
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  assign,
  call,
  createOperator,
  type Harness,
  SERVICE_SECRET,
  startApi,
} from '../test-support/harness.js';

// The whole spin path, real parts only: API -> engine (CSPRNG) -> round + intent in PostgreSQL ->
// settlement workflow on the Temporal dev server -> signed debit and credit to the sandbox wallet.
const SECRET = 'wsec_spin_test_secret_0123456789abcd';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const taskQueue = `spin-${randomUUID()}`;
let h: Harness;
let wallet: Server;
let admin: WalletAdminClient;
let key: string;
let worker: Worker;
let running: Promise<void>;
let native: NativeConnection;

before(async () => {
  const address = process.env.OPI_TEST_TEMPORAL_ADDRESS!;
  h = await startApi({ TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue });
  wallet = createWalletApp({ pool: h.db.pool, adminToken: 'spin-test-admin-token-00' }).listen(
    0,
    '127.0.0.1',
  );
  await new Promise((r) => wallet.once('listening', r));
  const base = `http://127.0.0.1:${(wallet.address() as AddressInfo).port}`;
  admin = createWalletAdminClient({ baseUrl: base, token: 'spin-test-admin-token-00' });
  await admin.setSecret('op_spin', SECRET);
  key = (
    await createOperator(h.base, 'op_spin', { wallet_base_url: `${base}/wallet`, wallet_secret: SECRET })
  ).key;
  await assign(h.base, 'op_spin', [slot.symbol]);
  native = await NativeConnection.connect({ address });
  worker = await Worker.create({
    connection: native,
    taskQueue,
    workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
    activities: createActivities({ pool: h.db.pool, box: createSecretBox(SERVICE_SECRET) }),
  });
  running = worker.run();
});
after(async () => {
  worker.shutdown();
  await running;
  await native.close();
  wallet.closeAllConnections();
  await new Promise<void>((r) => wallet.close(() => r()));
  await h.close();
});

async function launch(player: string): Promise<string> {
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol: slot.symbol, external_player_id: player },
  });
  assert.equal(res.status, 200, res.text);
  return new URL(res.json.launch_url).searchParams.get('mgckey')!;
}
const spinCall = (token: string, body: unknown) =>
  call(h.base, 'POST', '/api/runtime/spin', { headers: { 'x-session-token': token }, body });

test('a spin settles through Temporal and the page gets the balance the wallet recorded', async () => {
  await admin.createPlayer({
    operatorId: 'op_spin',
    playerId: 'spin-p1',
    currency: 'EUR',
    balanceMinor: 100_000,
  });
  const token = await launch('spin-p1');
  let expected = 100_000n;
  for (let i = 0; i < 5; i++) {
    const res = await spinCall(token, { bet_minor: 100 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'completed');
    expected += BigInt(res.json.win_minor) - BigInt(res.json.bet_minor);
    const wallet = await admin.balance('op_spin', 'spin-p1', 'EUR');
    assert.equal(BigInt(wallet.balance_minor), expected);
    assert.equal(res.json.balance, wallet.balance, 'the page shows the settled balance');
    const { rows } = await h.db.pool.query(
      `SELECT status, bet_minor, win_minor, outcome IS NOT NULL AS has_outcome FROM rounds WHERE round_id = $1`,
      [res.json.round_id],
    );
    assert.deepEqual(rows[0], {
      status: 'completed',
      bet_minor: BigInt(res.json.bet_minor),
      win_minor: BigInt(res.json.win_minor),
      has_outcome: true,
    });
  }
});

test('bets outside the operator limits are 422; insufficient funds is a rejected round', async () => {
  await admin.createPlayer({ operatorId: 'op_spin', playerId: 'spin-p2', currency: 'EUR', balanceMinor: 50 });
  const token = await launch('spin-p2');
  assert.equal((await spinCall(token, { bet_minor: 1 })).status, 422);
  assert.equal((await spinCall(token, { bet_minor: 10_000_000 })).status, 422);
  assert.equal((await spinCall(token, { bet_minor: 'x' })).status, 422);
  const res = await spinCall(token, { bet_minor: 100 });
  assert.equal(res.status, 200);
  assert.deepEqual([res.json.status, res.json.error], ['rejected', 'insufficient_funds']);
  assert.equal((await admin.balance('op_spin', 'spin-p2', 'EUR')).balance_minor, '50');
});

test('runtime routes refuse a missing or stale token', async () => {
  assert.equal((await spinCall('nope', { bet_minor: 100 })).status, 401);
});

test('what is debited stays within the operator limits: a special bet above the maximum is 422', async () => {
  await admin.createPlayer({
    operatorId: 'op_spin',
    playerId: 'spin-p3',
    currency: 'EUR',
    balanceMinor: 10_000_000,
  });
  const token = await launch('spin-p3');
  // The default maximum is 100000 minor units: the bet itself is allowed, bet x level 2 is not.
  const res = await spinCall(token, { bet_minor: 100_000, mode: 'special', bet_level: 2 });
  assert.equal(res.status, 422, res.text);
  assert.match(res.text, /above the operator's maximum/);
  assert.equal((await admin.balance('op_spin', 'spin-p3', 'EUR')).balance_minor, '10000000');
  const { rows } = await h.db.pool.query(
    `SELECT count(*)::int AS n FROM rounds WHERE session_id = (SELECT session_id FROM sessions s
       JOIN players p ON p.player_id = s.player_id WHERE p.external_player_id = 'spin-p3' LIMIT 1)`,
  );
  assert.equal(rows[0].n, 0, 'no round is written for a refused play');
});
