import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import { CATALOG } from '@opi/games';
import { assign, createOperator, type Harness, SERVICE_SECRET, startApi } from '@opi/testkit/harness';
import { buildCallbackBody, type RoundIntent, sendWalletCallback, transactionIdsFor } from '@opi/wallet';
import { createActivities, WORKFLOW_BUNDLE_PATH } from '@opi/workflows';
import { NativeConnection, Worker } from '@temporalio/worker';
import Koa from 'koa';
import {
  checkWalletSignature,
  createOperatorClient,
  createWalletCallbackVerifier,
  expressWalletCallback,
  koaWalletCallback,
  MemoryNonceStore,
  nodeWalletHandler,
  type VerifiedWalletCallback,
  WalletCallbackVerifier,
  walletRejection,
  walletSignature,
  walletSuccess,
} from './index.js';

// The callback verifier on the operator's side, fed real callbacks from the platform's wallet
// client (packages/wallet/src/send.ts), in the three adapters; then a whole round: the running
// API and a Temporal worker settle a spin against a wallet built on the SDK.
const SECRET = 'wsec_sdk_wallet_secret_0123456789abcd';

function intent(): RoundIntent {
  const roundId = `r_${randomUUID()}`;
  return {
    roundId,
    operatorId: 'op_sdk_w',
    sessionId: 's_test',
    playerId: 'sdk-wallet-player',
    gameSymbol: 'vs20test',
    providerId: 'prov_a',
    currency: 'EUR',
    actionType: 'spin',
    stakeMinor: '150',
    winMinor: '0',
    transactions: transactionIdsFor(roundId),
  };
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/wallet`;
}

const servers: Server[] = [];
after(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

const send = (baseUrl: string, operation: 'debit' | 'credit' | 'balance', over: { secret?: string } = {}) => {
  const i = intent();
  return sendWalletCallback({
    baseUrl,
    operation,
    secret: over.secret ?? SECRET,
    body: buildCallbackBody(
      i,
      operation === 'balance' ? 'debit' : operation,
      operation === 'debit' ? '150' : '0',
    ),
    requestId: `sdk-test-${randomUUID()}`,
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    timeoutMs: 5_000,
  });
};

describe('the callback verifier with real callbacks', () => {
  test('node:http: a genuine callback passes; a wrong secret, a replay, a stale or tampered one fail closed', async () => {
    const verified: VerifiedWalletCallback[] = [];
    const seen: { url: string; headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
    const verifier = createWalletCallbackVerifier({ secret: SECRET });
    const server = http.createServer(
      nodeWalletHandler(verifier, (cb, req) => {
        verified.push(cb);
        seen.push({ url: req.url!, headers: req.headers, body: cb.rawBody });
        return walletSuccess('12.34', { currency: 'EUR', transaction_id: cb.body.transaction_id });
      }),
    );
    servers.push(server);
    const base = await listen(server);

    assert.deepEqual(await send(base, 'debit'), { kind: 'success', balance: '12.34', httpStatus: 200 });
    assert.equal(verified[0]!.operation, 'debit');
    assert.equal(verified[0]!.body.amount_minor, 150);
    assert.match(verified[0]!.traceparent!, /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    assert.match(verified[0]!.requestId!, /^sdk-test-/);

    const wrong = await send(base, 'credit', { secret: 'wsec_not_the_secret_0123456789' });
    assert.equal(
      wrong.kind,
      'config_fault',
      'the service reads 401 invalid_signature as a configuration fault',
    );

    // The same bytes and headers again: the nonce is spent.
    const first = seen[0]!;
    const replay = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${first.url}`, {
      method: 'POST',
      headers: first.headers as Record<string, string>,
      body: first.body,
    });
    assert.equal(replay.status, 401);
    assert.deepEqual(await replay.json(), {
      success: false,
      error: 'invalid_signature',
      message: 'x-pp-nonce was already used',
    });

    const post = (headers: Record<string, string>, body: string, path = '/wallet/debit') =>
      fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const body = buildCallbackBody(intent(), 'debit', '150');
    const signed = (timestamp: string, nonce = randomUUID().replaceAll('-', '')) => ({
      'x-pp-timestamp': timestamp,
      'x-pp-nonce': nonce,
      'x-pp-signature': walletSignature(SECRET, { timestamp, nonce, body }),
    });
    const stale = await post(signed(String(Math.floor(Date.now() / 1000) - 3600)), body);
    assert.equal(stale.status, 401);
    const tampered = await post(
      signed(String(Math.floor(Date.now() / 1000))),
      body.replace('"150"', '"15"').replace(':150', ':1500'),
    );
    assert.equal(tampered.status, 401);
    const misrouted = await post(signed(String(Math.floor(Date.now() / 1000))), body, '/wallet/credit');
    assert.equal(misrouted.status, 400, 'a debit body on the credit endpoint');
    assert.equal(verified.length, 1, 'the handler saw only the genuine callback');
  });

  test('Koa and Express-style adapters', async () => {
    const verifier = createWalletCallbackVerifier({ secret: SECRET });
    const koa = new Koa();
    koa.use(koaWalletCallback(verifier) as unknown as Koa.Middleware);
    koa.use((ctx) => {
      const cb = ctx.state.walletCallback as VerifiedWalletCallback;
      ctx.body =
        cb.operation === 'debit' ? walletRejection('insufficient_funds').body : walletSuccess('5.00').body;
      ctx.status = cb.operation === 'debit' ? 400 : 200;
    });
    const koaServer = http.createServer(koa.callback());
    servers.push(koaServer);
    const koaBase = await listen(koaServer);
    assert.deepEqual(await send(koaBase, 'credit'), { kind: 'success', balance: '5.00', httpStatus: 200 });
    const refused = await send(koaBase, 'debit');
    assert.equal(refused.kind, 'rejected');
    assert.equal((refused as { error: string }).error, 'insufficient_funds');
    assert.equal(
      (await send(koaBase, 'credit', { secret: 'wsec_wrong_wrong_wrong_0123' })).kind,
      'config_fault',
    );

    // Express-style (req, res, next), mounted in a minimal router.
    const middleware = expressWalletCallback(verifier);
    const expressServer = http.createServer((req, res) => {
      middleware(req, res, (err?: unknown) => {
        if (err) {
          res.statusCode = 500;
          return res.end();
        }
        const cb = (req as typeof req & { walletCallback: VerifiedWalletCallback }).walletCallback;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(walletSuccess('7.25', { transaction_id: cb.body.transaction_id }).body));
      });
    });
    servers.push(expressServer);
    const expressBase = await listen(expressServer);
    assert.deepEqual(await send(expressBase, 'credit'), {
      kind: 'success',
      balance: '7.25',
      httpStatus: 200,
    });
    assert.equal(
      (await send(expressBase, 'credit', { secret: 'wsec_wrong_wrong_wrong_0123' })).kind,
      'config_fault',
    );
  });

  test('the published test vectors verify; rotation accepts the previous secret; the nonce store expires', async () => {
    const vectors = JSON.parse(
      readFileSync(new URL('../../signing/test-vectors.json', import.meta.url), 'utf8'),
    ) as { wallet: { secret: string; timestamp: string; nonce: string; body: string; signature: string }[] };
    for (const v of vectors.wallet) {
      const verifier = new WalletCallbackVerifier({
        secret: v.secret,
        nowSeconds: () => Number(v.timestamp),
      });
      const headers = { 'x-pp-timestamp': v.timestamp, 'x-pp-nonce': v.nonce, 'x-pp-signature': v.signature };
      assert.equal(walletSignature(v.secret, v), v.signature);
      assert.deepEqual(
        checkWalletSignature(
          v.secret,
          { timestamp: v.timestamp, nonce: v.nonce, signature: v.signature },
          v.body,
          {
            nowSeconds: Number(v.timestamp),
          },
        ),
        { ok: true },
      );
      const result = await verifier.verify({ headers, rawBody: v.body });
      // The signature passes; a vector body that is not a whole callback is then a 400, not a 401.
      assert.ok(result.ok || result.status === 400, JSON.stringify(result));
      if (JSON.parse(v.body).transaction_id) assert.equal(result.ok, true);
    }
    const rotating = new WalletCallbackVerifier({ secret: ['wsec_new_secret_0123456789abcd', SECRET] });
    const body = buildCallbackBody(intent(), 'credit', '0');
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomUUID().replaceAll('-', '');
    const result = await rotating.verify({
      headers: {
        'x-pp-timestamp': timestamp,
        'x-pp-nonce': nonce,
        'x-pp-signature': walletSignature(SECRET, { timestamp, nonce, body }),
      },
      rawBody: body,
      operation: 'credit',
    });
    assert.equal(result.ok, true);
    let now = 0;
    const store = new MemoryNonceStore(() => now);
    assert.equal(store.claim('a', 10), true);
    assert.equal(store.claim('a', 10), false);
    now = 20_000;
    assert.equal(store.claim('b', 10), true);
    assert.equal(store.size, 1, 'expired nonces are swept');
  });
});

describe('a whole round against a wallet built on the SDK', () => {
  let h: Harness;
  let worker: Worker;
  let running: Promise<void>;
  let native: NativeConnection;
  const balances = new Map<string, bigint>();
  const done = new Map<string, { status: number; body: unknown }>();
  const traces: string[] = [];
  const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
  const taskQueue = `sdk-${randomUUID()}`;
  let walletBase = '';

  before(async () => {
    // The operator's wallet: verified with the SDK, idempotent by transaction_id, in memory.
    const verifier = createWalletCallbackVerifier({ secret: SECRET });
    const server = http.createServer(
      nodeWalletHandler(verifier, (cb) => {
        traces.push(cb.traceparent ?? '');
        const previous = done.get(cb.body.transaction_id);
        if (previous) return previous;
        const key = `${cb.body.player_id}/${cb.body.currency}`;
        const balance = balances.get(key) ?? 100_000n;
        const amount = BigInt(cb.body.amount_minor);
        let answer: { status: number; body: unknown };
        if (cb.operation === 'debit' && amount > balance) answer = walletRejection('insufficient_funds');
        else {
          const next =
            cb.operation === 'debit'
              ? balance - amount
              : cb.operation === 'balance'
                ? balance
                : balance + amount;
          balances.set(key, next);
          answer = walletSuccess((Number(next) / 100).toFixed(2), { currency: cb.body.currency });
        }
        if (cb.operation !== 'balance') done.set(cb.body.transaction_id, answer);
        return answer;
      }),
    );
    servers.push(server);
    walletBase = await listen(server);
    const address = process.env.OPI_TEST_TEMPORAL_ADDRESS!;
    h = await startApi({ TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue });
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
    worker?.shutdown();
    await running;
    await native?.close();
    await h?.close();
  });

  test('launch with the SDK, spin, the SDK wallet settles; the audit shows it', async () => {
    const { key } = await createOperator(h.base, 'op_sdk_w', {
      wallet_base_url: walletBase,
      wallet_secret: SECRET,
    });
    await assign(h.base, 'op_sdk_w', [slot.symbol]);
    const sdk = createOperatorClient({ baseUrl: h.base, apiKey: key });
    const launch = await sdk.createLaunchUrl({
      symbol: slot.symbol,
      external_player_id: 'sdk-round-player',
      currency: 'EUR',
    });
    const token = new URL(launch.launch_url).searchParams.get('mgckey')!;
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const spin = await fetch(`${h.game}/api/runtime/spin`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-session-token': token,
        traceparent: `00-${traceId}-b7ad6b7169203331-01`,
      },
      body: JSON.stringify({ bet_minor: 100 }),
    });
    const played = (await spin.json()) as { status: string; round_id: string; balance: string };
    assert.equal(played.status, 'completed', JSON.stringify(played));
    assert.ok(
      traces.filter((t) => t.startsWith(`00-${traceId}-`)).length >= 2,
      `the debit and the credit carry the spin's trace: ${traces}`,
    );
    const round = await sdk.getRound(played.round_id);
    assert.deepEqual(round.data.transactions.map((t) => [t.transaction_type, t.status]).sort(), [
      ['credit', 'success'],
      ['debit', 'success'],
    ]);
    assert.equal((await sdk.getReconciliation({ currency: 'EUR' })).data.balanced, true);
  });
});
