import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createSecretBox } from '@opi/db';
import { CATALOG } from '@opi/games';
import {
  assign,
  call,
  createOperator,
  freePort,
  type Harness,
  SERVICE_SECRET,
  startApi,
  waitForHealth,
} from '@opi/testkit/harness';
import { until } from '@opi/testkit/until';
import { createWalletApp } from '@opi/wallet-sandbox';
import { createWalletAdminClient, type WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { createActivities, WORKFLOW_BUNDLE_PATH } from '@opi/workflows';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';

// The game server's hosted settlement worker (GAME_SETTLEMENT_WORKER=on): the rounds it starts run
// in it, eagerly; a graceful stop drains it; a SIGKILLed game server's eager round is finished by a
// standalone worker with no second debit. Real PostgreSQL, Temporal dev server, sandbox wallet.
const SECRET = 'wsec_hosted_test_secret_0123456789ab';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const address = process.env.OPI_TEST_TEMPORAL_ADDRESS!;
const OP = 'op_hosted';
let walletServer: Server;
let walletBase: string;
let admin: WalletAdminClient;
let setup: Harness;
let client: Client;
let clientConnection: Connection;

before(async () => {
  // The harness API with no worker of its own: the operator's setup and its database.
  setup = await startApi({ TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: `hosted-setup-${randomUUID()}` });
  walletServer = createWalletApp({ pool: setup.db.pool, adminToken: 'hosted-test-admin-token' }).listen(
    0,
    '127.0.0.1',
  );
  await new Promise((r) => walletServer.once('listening', r));
  walletBase = `http://127.0.0.1:${(walletServer.address() as AddressInfo).port}`;
  admin = createWalletAdminClient({ baseUrl: walletBase, token: 'hosted-test-admin-token' });
  await admin.setSecret(OP, SECRET);
  await createOperator(setup.base, OP, { wallet_base_url: `${walletBase}/wallet`, wallet_secret: SECRET });
  await assign(setup.base, OP, [slot.symbol]);
  clientConnection = await Connection.connect({ address });
  client = new Client({ connection: clientConnection });
});

after(async () => {
  await clientConnection?.close();
  walletServer?.closeAllConnections();
  await new Promise<void>((r) => walletServer.close(() => r()));
  await setup?.close();
});

async function operatorKey(base: string): Promise<string> {
  const res = await call(base, 'POST', `/api/admin/v1/operators/${OP}/api-keys`, {
    key: 'padm_test_admin_key_0123456789abcdefghijkl',
    body: {},
    sign: true,
  });
  assert.equal(res.status, 201, res.text);
  return res.json.data.api_key;
}

async function launch(base: string, player: string): Promise<string> {
  await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor: 100_000 });
  const res = await call(base, 'POST', '/api/provider/v1/launch-url', {
    key: await operatorKey(base),
    body: { symbol: slot.symbol, external_player_id: player },
  });
  assert.equal(res.status, 200, res.text);
  return new URL(res.json.launch_url).searchParams.get('mgckey')!;
}

const spin = (base: string, token: string) =>
  call(base, 'POST', '/api/runtime/spin', {
    headers: { 'x-session-token': token },
    body: { bet_minor: 100 },
  });

/** The identities of the workers that ran the round's workflow tasks, in order. */
async function taskIdentities(roundId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(roundId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.workflowTaskStartedEventAttributes)
    .map((e) => e.workflowTaskStartedEventAttributes!.identity ?? '');
}

async function walletRequests(roundId: string) {
  const { rows } = await setup.db.pool.query<{ transaction_type: string; outcome: string }>(
    `SELECT transaction_type, outcome FROM wallet.requests WHERE round_id = $1 ORDER BY request_seq`,
    [roundId],
  );
  return rows;
}

async function appliedDebits(roundId: string): Promise<number> {
  const { rows } = await setup.db.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM wallet.transactions
     WHERE round_id = $1 AND transaction_type = 'debit' AND status = 'success'`,
    [roundId],
  );
  return Number(rows[0]!.n);
}

test('with no other worker, the API hosts the settlement: its rounds run in it, started eagerly', async () => {
  const taskQueue = `hosted-${randomUUID()}`;
  const h = await startApi(
    { TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue, GAME_SETTLEMENT_WORKER: 'on' },
    { db: setup.db },
  );
  try {
    await until('the hosted worker polls', async () => h.gameDeps.temporal?.eagerClient != null, 60_000);
    assert.equal(h.gameDeps.hostedWorker?.running, true);
    const token = await launch(h.base, `hosted-p1-${randomUUID().slice(0, 8)}`);
    for (let i = 0; i < 3; i++) {
      const res = await spin(h.game, token);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.status, 'completed');
      // An eager start's first workflow task is recorded under the starting client's identity
      // (an ordinary start's under the polling worker's); the later ones ran in the hosted worker.
      const [first, ...rest] = await taskIdentities(res.json.round_id);
      assert.equal(first, `game-${process.pid}-start@${taskQueue}`);
      for (const id of rest) assert.equal(id, `game-${process.pid}@${taskQueue}`);
      assert.deepEqual(
        (await walletRequests(res.json.round_id)).map((r) => `${r.transaction_type}:${r.outcome}`),
        ['debit:applied', 'credit:applied'],
      );
    }
  } finally {
    await h.close();
  }
});

test('GAME_SETTLEMENT_WORKER=off: no hosted worker, ordinary starts', async () => {
  const h = await startApi(
    {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TASK_QUEUE: `hosted-off-${randomUUID()}`,
      GAME_SETTLEMENT_WORKER: 'off',
    },
    { db: setup.db },
  );
  try {
    assert.equal(h.gameDeps.hostedWorker, undefined);
    assert.equal(h.gameDeps.temporal?.eagerClient ?? null, null);
  } finally {
    await h.close();
  }
});

test('a graceful stop drains the hosted worker: the wallet step in hand is recorded, not left pending', async () => {
  const taskQueue = `hosted-drain-${randomUUID()}`;
  const h = await startApi(
    { TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue, GAME_SETTLEMENT_WORKER: 'on' },
    { db: setup.db },
  );
  let closed = false;
  let standalone: { worker: Worker; run: Promise<void>; connection: NativeConnection } | undefined;
  try {
    await until('the hosted worker polls', async () => h.gameDeps.temporal?.eagerClient != null, 60_000);
    const token = await launch(h.base, `hosted-drain-${randomUUID().slice(0, 8)}`);
    await admin.setFaults({ latencyMs: [1_500, 1_500], latencyRate: 1 });
    const delayed = (await admin.getFaults()).counters.latency;
    const answer = spin(h.game, token).catch(() => null);
    const debit = await until(
      'the debit journalled and sent',
      async () => {
        const { rows } = await setup.db.pool.query<{ transaction_id: string; round_id: string }>(
          `SELECT transaction_id, round_id FROM wallet_transactions
           WHERE session_id = (SELECT session_id FROM rounds WHERE status = 'open' AND session_id IN
             (SELECT session_id FROM sessions WHERE operator_id = $1) ORDER BY created_at DESC LIMIT 1)
             AND transaction_type = 'debit' AND status = 'pending'`,
          [OP],
        );
        return rows[0];
      },
      20_000,
    );
    // Stop the hosted worker while its wallet call waits in the sandbox's delay (the debit's row is
    // journalled with the round, before the send: wait for the wallet to hold the call).
    await until(
      'the wallet holds the debit',
      async () => (await admin.getFaults()).counters.latency > delayed,
    );
    await h.gameDeps.hostedWorker!.stop();
    const { rows } = await setup.db.pool.query<{ status: string }>(
      `SELECT status FROM wallet_transactions WHERE transaction_id = $1`,
      [debit.transaction_id],
    );
    assert.equal(
      rows[0]!.status,
      'success',
      'the debit in hand finished and was recorded before the stop returned',
    );
    await admin.setFaults({});
    // Whatever it had not started is left to the worker processes: one finishes the round.
    const connection = await NativeConnection.connect({ address });
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
      activities: createActivities({ pool: setup.db.pool, box: createSecretBox(SERVICE_SECRET) }),
      identity: 'standalone-drain',
    });
    standalone = { worker, run: worker.run(), connection };
    await until(
      'the round completed',
      async () => {
        const r = await setup.db.pool.query<{ status: string }>(
          `SELECT status FROM rounds WHERE round_id = $1`,
          [debit.round_id],
        );
        return r.rows[0]?.status === 'completed';
      },
      30_000,
    );
    assert.equal(await appliedDebits(debit.round_id), 1);
    await answer;
    await h.close();
    closed = true;
  } finally {
    await admin.setFaults({});
    if (!closed) await h.close();
    if (standalone) {
      standalone.worker.shutdown();
      await standalone.run;
      await standalone.connection.close();
    }
  }
});

const GAME_MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'main.ts');

test('a game server SIGKILLed while its hosted worker holds an eager round: a standalone worker finishes it, one debit', async () => {
  const taskQueue = `hosted-kill-${randomUUID()}`;
  // The standalone worker polls all along; the eager round still runs in the API process.
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
    activities: createActivities({ pool: setup.db.pool, box: createSecretBox(SERVICE_SECRET) }),
    identity: 'standalone-kill',
  });
  const running = worker.run();
  const port = await freePort();
  let api: ChildProcess | undefined;
  let output = '';
  try {
    api = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', GAME_MAIN], {
      env: {
        ...process.env,
        ...setup.env,
        GAME_SERVER_PORT: String(port),
        GAME_METRICS_PORT: '0',
        TEMPORAL_ADDRESS: address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        GAME_SETTLEMENT_WORKER: 'on',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    api.stdout!.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    api.stderr!.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    const base = `http://127.0.0.1:${port}`;
    await waitForHealth(port, 60_000);
    await until(
      'the hosted worker polls',
      async () => output.includes('hosted settlement worker polling'),
      60_000,
    );
    const token = await launch(setup.base, `hosted-kill-${randomUUID().slice(0, 8)}`);
    // The wallet holds the debit 1.5 s before applying it: the kill lands while it is in flight.
    await admin.setFaults({ latencyMs: [1_500, 1_500], latencyRate: 1 });
    const delayed = (await admin.getFaults()).counters.latency;
    const answer = spin(base, token).catch((err: unknown) => err);
    const pending = await until(
      'the debit journalled and sent by the API',
      async () => {
        const { rows } = await setup.db.pool.query<{ round_id: string }>(
          `SELECT t.round_id FROM wallet_transactions t JOIN rounds r USING (round_id)
           WHERE r.status = 'open' AND t.transaction_type = 'debit' AND t.status = 'pending'
             AND r.intent->>'playerId' LIKE 'hosted-kill-%'`,
        );
        return rows[0];
      },
      20_000,
    );
    const roundId = pending.round_id;
    await until(
      'the wallet holds the debit',
      async () => (await admin.getFaults()).counters.latency > delayed,
    );
    api.kill('SIGKILL');
    await answer;
    await admin.setFaults({});
    const before = await taskIdentities(roundId);
    assert.match(
      before[0]!,
      /^game-\d+-start@/,
      `the round's first workflow task was eager, in the API: ${before.join(', ')}`,
    );
    await until(
      'the round completed by the standalone worker',
      async () => {
        const r = await setup.db.pool.query<{ status: string }>(
          `SELECT status FROM rounds WHERE round_id = $1`,
          [roundId],
        );
        return r.rows[0]?.status === 'completed';
      },
      90_000,
    );
    // The workflow tasks after the kill were completed by the standalone worker (the round's row
    // is completed inside the credit step, a moment before the workflow task that ran it).
    const outcome = await client.workflow.getHandle(roundId).result();
    assert.equal(outcome.status, 'completed');
    const history = await client.workflow.getHandle(roundId).fetchHistory();
    const completedBy = (history.events ?? [])
      .filter((e) => e.workflowTaskCompletedEventAttributes)
      .map((e) => e.workflowTaskCompletedEventAttributes!.identity ?? '');
    assert.equal(
      completedBy.at(-1),
      'standalone-kill',
      `workflow tasks completed by: ${completedBy.join(', ')}`,
    );
    assert.equal(await appliedDebits(roundId), 1, 'one debit applied by the wallet');
    const requests = await walletRequests(roundId);
    assert.equal(requests.filter((r) => r.transaction_type === 'debit' && r.outcome === 'applied').length, 1);
    assert.ok(!requests.some((r) => r.transaction_type === 'rollback' || r.transaction_type === 'cancel'));
    assert.ok(requests.some((r) => r.transaction_type === 'credit' && r.outcome === 'applied'));
    const { rows } = await setup.db.pool.query<{ transaction_type: string; status: string }>(
      `SELECT transaction_type, status FROM wallet_transactions WHERE round_id = $1 ORDER BY created_at`,
      [roundId],
    );
    assert.deepEqual(
      rows.map((r) => `${r.transaction_type}:${r.status}`),
      ['debit:success', 'credit:success'],
    );
  } finally {
    await admin.setFaults({});
    if (api && api.exitCode === null && api.signalCode === null) api.kill('SIGKILL');
    worker.shutdown();
    await running;
    await connection.close();
  }
});
