import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type Router from '@koa/router';
import { createSecretBox } from '@opi/db';
import { CATALOG } from '@opi/games';
import {
  ADMIN_KEY,
  assign,
  call,
  createOperator,
  type Harness,
  SERVICE_SECRET,
  startApi,
} from '@opi/testkit/harness';
import { type DocumentValidator, documentValidator } from '@opi/testkit/openapi';
import { until } from '@opi/testkit/until';
import { buildCallbackBody, type RoundIntent, sendWalletCallback, transactionIdsFor } from '@opi/wallet';
import { createWalletApp } from '@opi/wallet-sandbox';
import { createWalletAdminClient, type WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import {
  cancelUpdate,
  createActivities,
  finishUpdate,
  recordRound,
  startSettlement,
  stateQuery,
  WORKFLOW_BUNDLE_PATH,
} from '@opi/workflows';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createApp } from '../app.js';
import { buildOpenApiDocument } from './document.js';
import { FIELD_DOCS_FILE, fieldDocsJson } from './extract-field-docs.js';

/*
 * Conformance: real answers of every documented route (through the real API, a real worker on
 * Temporal and the sandbox wallet behind a recording proxy) are validated against the OpenAPI
 * document (strict: closed objects, so an undocumented field fails too); the routes the API mounts
 * and the operations the document lists must be the same; the document validates as OpenAPI 3.1.
 */

const SECRET = 'wsec_conformance_secret_0123456789ab';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const mines = CATALOG.find((e) => e.provider_id === 'prov_c' && e.integration_mode === 'operator-wallet')!;
const taskQueue = `conformance-${randomUUID()}`;
const doc = buildOpenApiDocument({ strict: true });
let v: DocumentValidator;

let h: Harness;
let wallet: Server;
let proxy: Server;
let proxyBase = '';
let admin: WalletAdminClient;
let keyA = '';
let keyIdA = '';
let keyB = '';
let master = '';
let worker: Worker;
let running: Promise<void>;
let native: NativeConnection;
let conn: Connection;
let client: Client;

/** `METHOD template status` of every validated answer. */
const seen = new Set<string>();
/** Wallet callbacks as they crossed the wire: path, headers, raw body, answer. */
const callbacks: {
  op: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
  answer: string;
}[] = [];

before(async () => {
  v = documentValidator(doc);
  const address = process.env.OPI_TEST_TEMPORAL_ADDRESS!;
  h = await startApi({ TEMPORAL_ADDRESS: address, TEMPORAL_TASK_QUEUE: taskQueue });
  wallet = createWalletApp({ pool: h.db.pool, adminToken: 'conformance-admin-token' }).listen(0, '127.0.0.1');
  await new Promise((r) => wallet.once('listening', r));
  const walletBase = `http://127.0.0.1:${(wallet.address() as AddressInfo).port}`;
  admin = createWalletAdminClient({ baseUrl: walletBase, token: 'conformance-admin-token' });
  // A recording proxy in front of the sandbox wallet: every callback as sent, and its answer.
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, val] of Object.entries(req.headers)) if (typeof val === 'string') headers[k] = val;
      const upstream = await fetch(walletBase + req.url, { method: req.method ?? 'POST', headers, body });
      const answer = await upstream.text();
      callbacks.push({
        op: req.url!.split('/').pop()!,
        headers: req.headers,
        body,
        status: upstream.status,
        answer,
      });
      res.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      res.end(answer);
    });
  });
  proxy.listen(0, '127.0.0.1');
  await new Promise((r) => proxy.once('listening', r));
  proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/wallet`;
  for (const op of ['op_cf_a', 'op_cf_b']) await admin.setSecret(op, SECRET);
  const a = await createOperator(h.base, 'op_cf_a', { wallet_base_url: proxyBase, wallet_secret: SECRET });
  keyA = a.key;
  keyIdA = a.keyId;
  keyB = (await createOperator(h.base, 'op_cf_b', { wallet_base_url: proxyBase, wallet_secret: SECRET })).key;
  await call(h.base, 'PUT', `/api/admin/v1/games/${mines.symbol}/operator-wallet`, {
    key: ADMIN_KEY,
    sign: true,
    body: { enabled: true },
  });
  for (const op of ['op_cf_a', 'op_cf_b']) await assign(h.base, op, [slot.symbol, mines.symbol]);
  native = await NativeConnection.connect({ address });
  worker = await Worker.create({
    connection: native,
    taskQueue,
    workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
    activities: createActivities({
      pool: h.db.pool,
      box: createSecretBox(SERVICE_SECRET),
    }),
  });
  running = worker.run();
  conn = await Connection.connect({ address });
  client = new Client({ connection: conn });
});

after(async () => {
  worker?.shutdown();
  await running;
  await native?.close();
  await conn?.close();
  for (const s of [wallet, proxy]) {
    s?.closeAllConnections();
    await new Promise<void>((r) => (s ? s.close(() => r()) : r()));
  }
  await h?.close();
});

interface Hit {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  sign?: boolean;
  expect: number;
}

/** One real call; its answer is validated against the document and recorded. */
async function hit(method: string, url: string, o: Hit) {
  const res = await call(h.base, method, url, {
    sign: o.key !== undefined && o.sign !== false,
    ...(o.key ? { key: o.key } : {}),
    ...(o.body !== undefined ? { body: o.body } : {}),
    ...(o.headers ? { headers: o.headers } : {}),
  });
  assert.equal(res.status, o.expect, `${method} ${url}: ${res.status} ${res.text.slice(0, 300)}`);
  seen.add(
    v.check({
      method,
      url,
      status: res.status,
      contentType: res.headers.get('content-type'),
      json: res.json,
      text: res.text,
      ...(o.body !== undefined && typeof o.body === 'object' ? { requestJson: o.body } : {}),
    }),
  );
  return res;
}

describe('the OpenAPI document', () => {
  test('validates as OpenAPI 3.1 (served and strict forms), and is served as generated', async () => {
    const validator = new Validator();
    for (const d of [buildOpenApiDocument(), doc]) {
      const result = await validator.validate(structuredClone(d) as Parameters<Validator['validate']>[0]);
      assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
    }
    const served = await hit('GET', '/api/provider/v1/openapi.json', { expect: 200 });
    assert.deepEqual(served.json, buildOpenApiDocument());
    assert.equal(served.json.openapi, '3.1.0');
    const page = await hit('GET', '/docs', { expect: 200 });
    assert.match(page.text, /<h2[^>]*>Provider API<\/h2>/);
    assert.match(page.text, /launch-url/);
    assert.doesNotMatch(
      page.text,
      /<script|https?:\/\/(?!json-schema)/i,
      'self-contained: no script, no external URL',
    );
  });

  test('field descriptions are current with the contract (field-docs.generated.json)', () => {
    assert.equal(
      readFileSync(FIELD_DOCS_FILE, 'utf8'),
      fieldDocsJson(),
      'run: node --conditions=source --import tsx services/api/src/openapi/extract-field-docs.ts',
    );
  });

  test('documents exactly the routes the API mounts under its public prefixes', () => {
    const app = createApp(h.deps);
    const mounted = new Set<string>();
    for (const mw of app.middleware as Array<{ router?: Router }>) {
      for (const layer of mw.router?.stack ?? []) {
        const path = layer.path as string;
        const public_ =
          /^\/api\/(provider|operator|admin)\/v1\//.test(path) ||
          ['/health', '/ready', '/docs'].includes(path);
        if (!public_) continue;
        for (const m of layer.methods) {
          if (m === 'HEAD') continue;
          mounted.add(`${m} ${path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
        }
      }
    }
    const documented = new Set<string>();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const m of Object.keys(methods)) documented.add(`${m.toUpperCase()} ${path}`);
    }
    assert.deepEqual([...mounted].filter((r) => !documented.has(r)).sort(), [], 'mounted but not documented');
    assert.deepEqual([...documented].filter((r) => !mounted.has(r)).sort(), [], 'documented but not mounted');
  });
});

describe('real answers agree with the document', () => {
  let slotSession = '';
  let slotToken = '';
  let minesSession = '';
  let otherSession = '';
  let roundId = '';
  let nativeRoundId = '';
  let transactionId = '';

  test('operations: health, readiness (a worker polls; without Temporal 503)', async () => {
    await hit('GET', '/health', { expect: 200 });
    await until('the worker polls', async () => (await call(h.base, 'GET', '/ready')).status === 200);
    const ready = await hit('GET', '/ready', { expect: 200 });
    assert.equal(ready.json.checks.worker.pollers >= 1, true);
    const second = await startApi({}, { db: h.db });
    try {
      const res = await call(second.base, 'GET', '/ready');
      assert.equal(res.status, 503);
      seen.add(
        v.check({
          method: 'GET',
          url: '/ready',
          status: 503,
          contentType: res.headers.get('content-type'),
          json: res.json,
          text: res.text,
        }),
      );
    } finally {
      await second.close();
    }
  });

  test('provider API: catalog, artwork, launch, balance refresh', async () => {
    const list = await hit('GET', '/api/provider/v1/games', { key: keyA, expect: 200 });
    assert.ok(list.json.data.items.length >= 2);
    await hit('GET', '/api/provider/v1/games?provider_id=prov_c', { key: keyA, expect: 200 });
    await hit('GET', '/api/provider/v1/games', { expect: 401 });
    await hit('GET', '/api/provider/v1/games', { key: 'opk_not_a_key_0123456789', expect: 401 });
    await hit('GET', `/api/provider/v1/games/${slot.symbol}`, { key: keyA, expect: 200 });
    await hit('GET', '/api/provider/v1/games/nope_nope', { key: keyA, expect: 404 });
    await hit('GET', `/api/provider/v1/games/${slot.symbol}?operator_id=op_cf_b`, { key: keyA, expect: 403 });
    await hit('GET', '/api/provider/v1/games', { key: ADMIN_KEY, expect: 403 });

    const art = await hit('GET', `/api/provider/v1/game-art/${slot.symbol}`, { expect: 200 });
    await hit('GET', `/api/provider/v1/game-art/${slot.symbol}`, {
      headers: { 'if-none-match': art.headers.get('etag')! },
      expect: 304,
    });
    await hit('GET', '/api/provider/v1/game-art/unknown_game', { expect: 404 });
    await hit('GET', `/api/provider/v1/game-art/${slot.symbol}?thumbnail_format=square`, { expect: 422 });

    await admin.createPlayer({
      operatorId: 'op_cf_a',
      playerId: 'cf-player',
      currency: 'EUR',
      balanceMinor: 100_000,
    });
    const launch = await hit('POST', '/api/provider/v1/launch-url', {
      key: keyA,
      body: { symbol: slot.symbol, external_player_id: 'cf-player', currency: 'EUR', device: 'mobile' },
      expect: 200,
    });
    slotSession = launch.json.session_id;
    slotToken = new URL(launch.json.launch_url).searchParams.get('mgckey')!;
    const nativeLaunch = await hit('POST', '/api/provider/v1/launch-url', {
      key: keyA,
      body: { symbol: mines.symbol, external_player_id: 'cf-player' },
      expect: 200,
    });
    minesSession = nativeLaunch.json.session_id;
    otherSession = (
      await hit('POST', '/api/provider/v1/launch-url', {
        key: keyB,
        body: { symbol: mines.symbol, external_player_id: 'cf-other' },
        expect: 200,
      })
    ).json.session_id;
    await hit('POST', '/api/provider/v1/launch-url', {
      key: keyA,
      body: { symbol: slot.symbol },
      expect: 400,
    });
    await hit('POST', '/api/provider/v1/launch-url', {
      key: keyA,
      body: { symbol: slot.symbol, external_player_id: 'cf-player', currency: 'eur' },
      expect: 422,
    });
    await hit('POST', '/api/provider/v1/launch-url', {
      key: keyA,
      body: { symbol: 'no_such_game', external_player_id: 'cf-player' },
      expect: 404,
    });
    await hit('POST', '/api/provider/v1/launch-url', {
      key: keyB,
      body: { symbol: slot.symbol, external_player_id: 'cf-player' },
      expect: 409,
    });
    await hit('POST', '/api/provider/v1/launch-url', {
      key: keyA,
      body: 'external_player_id=x',
      headers: { 'content-type': 'text/plain' },
      expect: 415,
    });

    await hit('POST', '/api/provider/v1/player-balance-refresh', {
      key: keyA,
      body: { external_player_id: 'cf-player', reason: 'deposit', request_id: 'dep-1' },
      expect: 200,
    });
    await hit('POST', '/api/provider/v1/player-balance-refresh', { key: keyA, body: {}, expect: 400 });
    await hit('POST', '/api/provider/v1/player-balance-refresh', {
      key: keyA,
      body: { external_player_id: 'cf-player', currency: 'euro' },
      expect: 422,
    });
    await hit('POST', '/api/provider/v1/player-balance-refresh', {
      key: keyA,
      body: { external_player_id: 'cf-player', game_symbol: mines.symbol },
      expect: 409,
    });
  });

  test('rounds settle through the wallet callbacks (spins, a balance read, a native round, a cancel)', async () => {
    const spin = (bet: number) =>
      call(h.game, 'POST', '/api/runtime/spin', {
        headers: { 'x-session-token': slotToken },
        body: { bet_minor: bet },
      });
    for (const bet of [100, 200]) {
      const r = await spin(bet);
      assert.equal(r.json.status, 'completed', r.text);
      roundId = r.json.round_id;
    }
    const balance = await call(h.game, 'GET', '/api/runtime/balance', {
      headers: { 'x-session-token': slotToken },
    });
    assert.equal(balance.status, 200, balance.text);
    // A native round with stages, finished (debit, stage, finish credit).
    const { rows } = await h.db.pool.query('SELECT player_id FROM sessions WHERE session_id = $1', [
      minesSession,
    ]);
    nativeRoundId = `r_${randomUUID()}`;
    const intent: RoundIntent = {
      roundId: nativeRoundId,
      operatorId: 'op_cf_a',
      sessionId: minesSession,
      playerId: 'cf-player',
      gameSymbol: mines.symbol,
      providerId: 'prov_c',
      currency: 'EUR',
      actionType: 'bet',
      stakeMinor: '100',
      winMinor: null,
      transactions: transactionIdsFor(nativeRoundId),
      multiStep: { abandonAfterSeconds: 600, rule: 'cashout' },
    };
    await recordRound(h.db.pool, { intent, playerPk: rows[0].player_id });
    await h.db.pool.query(
      `INSERT INTO round_stages (round_id, seq, action, inputs, outcome, multiplier) VALUES ($1, 0, 'bet', '{}', '{}', null)`,
      [nativeRoundId],
    );
    const handle = await startSettlement(client, taskQueue, intent);
    await until('the native debit', async () => (await handle.query(stateQuery)).phase === 'open');
    await handle.executeUpdate(finishUpdate, { args: [{ winMinor: '150' }] });
    // A cancelled multi-step round: the cancel callback.
    const cancelId = `r_${randomUUID()}`;
    const cancelIntent: RoundIntent = {
      ...intent,
      roundId: cancelId,
      transactions: transactionIdsFor(cancelId),
    };
    await recordRound(h.db.pool, { intent: cancelIntent, playerPk: rows[0].player_id });
    const c = await startSettlement(client, taskQueue, cancelIntent);
    await until('the debit to cancel', async () => (await c.query(stateQuery)).phase === 'open');
    assert.equal(
      (await c.executeUpdate(cancelUpdate, { args: [{ reason: 'conformance' }] })).status,
      'cancelled',
    );
    // A rollback and a refused signature, sent by the wallet client itself.
    const rb = await sendWalletCallback({
      baseUrl: proxyBase,
      operation: 'rollback',
      secret: SECRET,
      body: buildCallbackBody(cancelIntent, 'rollback', cancelIntent.stakeMinor),
      requestId: 'conformance-rollback',
      timeoutMs: 5_000,
    });
    assert.notEqual(rb.kind, 'uncertain', JSON.stringify(rb));
    const bad = await sendWalletCallback({
      baseUrl: proxyBase,
      operation: 'debit',
      secret: 'not-the-secret-0123456789',
      body: buildCallbackBody(cancelIntent, 'debit', '1'),
      requestId: 'conformance-bad-signature',
      timeoutMs: 5_000,
    });
    assert.equal(bad.kind, 'config_fault');
    // Insufficient funds: a 400 from the wallet.
    await admin.createPlayer({
      operatorId: 'op_cf_a',
      playerId: 'cf-poor',
      currency: 'EUR',
      balanceMinor: 10,
    });
    const poor = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key: keyA,
      body: { symbol: slot.symbol, external_player_id: 'cf-poor', currency: 'EUR' },
    });
    const refused = await call(h.game, 'POST', '/api/runtime/spin', {
      headers: { 'x-session-token': new URL(poor.json.launch_url).searchParams.get('mgckey')! },
      body: { bet_minor: 100 },
    });
    assert.equal(refused.json.status, 'rejected', refused.text);
  });

  test('every wallet callback as sent and answered agrees with the webhooks', () => {
    const statuses = new Set<string>();
    for (const cb of callbacks) {
      for (const h of ['x-pp-request-id', 'x-pp-timestamp', 'x-pp-nonce', 'x-pp-signature', 'traceparent']) {
        assert.ok(cb.headers[h], `${cb.op}: header ${h}`);
      }
      assert.match(String(cb.headers['x-pp-nonce']), /^[0-9a-f]{32}$/);
      assert.match(String(cb.headers['content-type']), /^application\/json/);
      statuses.add(`${cb.op} ${cb.status}`);
      v.checkWebhook(`wallet-${cb.op}`, JSON.parse(cb.body), cb.status, JSON.parse(cb.answer));
    }
    for (const op of ['balance', 'debit', 'credit', 'cancel', 'rollback']) {
      assert.ok(
        [...statuses].some((s) => s.startsWith(`${op} `)),
        `a real ${op} callback (${[...statuses]})`,
      );
    }
    assert.ok(statuses.has('debit 400') && statuses.has('debit 401'), [...statuses].join(', '));
    assert.ok(
      callbacks.some((cb) => cb.op === 'credit' && JSON.parse(cb.body).round_details_url),
      "a round's credit carries its round_details_url (issue 26), validated above",
    );
  });

  test('native history', async () => {
    const q = `?session_id=${encodeURIComponent(minesSession)}`;
    await hit('GET', `/api/provider/v1/native/history${q}`, { key: keyA, expect: 200 });
    await hit('GET', '/api/provider/v1/native/history', { key: keyA, expect: 400 });
    // Another operator's session is an unknown one (issue 34); a key naming another operator is 403.
    await hit('GET', `/api/provider/v1/native/history?session_id=${otherSession}`, {
      key: keyA,
      expect: 404,
    });
    await hit('GET', `/api/provider/v1/native/history?session_id=${otherSession}&operator_id=op_cf_b`, {
      key: keyA,
      expect: 403,
    });
    await hit('GET', '/api/provider/v1/native/history?session_id=s_unknown', { key: keyA, expect: 404 });
    await hit('GET', `/api/provider/v1/native/history/${nativeRoundId}${q}`, { key: keyA, expect: 200 });
    await hit('GET', `/api/provider/v1/native/history/r_unknown${q}`, { key: keyA, expect: 404 });
  });

  test('operator audit API (signed)', async () => {
    await hit('GET', '/api/operator/v1/contract', { key: keyA, expect: 200 });
    await hit('GET', '/api/operator/v1/contract', { key: keyA, sign: false, expect: 401 });
    await hit('GET', `/api/operator/v1/sessions/${slotSession}`, { key: keyA, expect: 200 });
    await hit('GET', `/api/operator/v1/sessions/${otherSession}`, { key: keyA, expect: 404 });
    await hit('GET', '/api/operator/v1/sessions/s_missing', { key: keyA, expect: 404 });
    const txs = await hit('GET', `/api/operator/v1/transactions?round_id=${roundId}`, {
      key: keyA,
      expect: 200,
    });
    transactionId = txs.json.data.items[0].transaction_id;
    await hit('GET', '/api/operator/v1/transactions?limit=2&status=success', { key: keyA, expect: 200 });
    await hit('GET', '/api/operator/v1/transactions?colour=blue', { key: keyA, expect: 422 });
    await hit('GET', `/api/operator/v1/transactions/${encodeURIComponent(transactionId)}`, {
      key: keyA,
      expect: 200,
    });
    await hit('GET', '/api/operator/v1/transactions/t_missing', { key: keyA, expect: 404 });
    await hit('GET', '/api/operator/v1/rounds?limit=5', { key: keyA, expect: 200 });
    await hit('GET', `/api/operator/v1/rounds/${roundId}`, { key: keyA, expect: 200 });
    await hit('GET', `/api/operator/v1/rounds/${nativeRoundId}`, { key: keyA, expect: 200 });
    await hit('GET', '/api/operator/v1/rounds/r_missing', { key: keyA, expect: 404 });
    // Issue 26: a player's short-lived replay link.
    await hit('POST', `/api/operator/v1/rounds/${roundId}/replay-url`, { key: keyA, expect: 201 });
    await hit('POST', `/api/operator/v1/rounds/${roundId}/replay-url`, { key: keyA, body: {}, expect: 201 });
    await hit('POST', `/api/operator/v1/rounds/${roundId}/replay-url`, { key: keyB, expect: 404 });
    await hit('POST', '/api/operator/v1/rounds/r%20missing/replay-url', { key: keyA, expect: 422 });
    await hit('GET', '/api/operator/v1/reconciliation', { key: keyA, expect: 200 });
    await hit('GET', '/api/operator/v1/reconciliation?currency=EUR', { key: keyA, expect: 200 });
    const csv = await hit('GET', '/api/operator/v1/reconciliation.csv', { key: keyA, expect: 200 });
    assert.match(csv.text, /^currency,rounds,/);
  });

  test('provider admin API', async () => {
    await hit('GET', '/api/admin/v1/games', { key: ADMIN_KEY, expect: 200 });
    await hit('GET', '/api/admin/v1/games', { key: keyA, expect: 403 });
    await hit('POST', '/api/admin/v1/operators', {
      key: ADMIN_KEY,
      body: { operator_id: 'op_cf_c', name: 'Conformance C', wallet_base_url: 'https://wallet.example/pp' },
      expect: 201,
    });
    await hit('POST', '/api/admin/v1/operators', {
      key: ADMIN_KEY,
      body: { operator_id: 'op_cf_c', name: 'Again' },
      expect: 409,
    });
    await hit('POST', '/api/admin/v1/operators', { key: ADMIN_KEY, body: { operator_id: 'X' }, expect: 422 });
    await hit('GET', '/api/admin/v1/operators/op_cf_c', { key: ADMIN_KEY, expect: 200 });
    await hit('GET', '/api/admin/v1/operators/op_missing', { key: ADMIN_KEY, expect: 404 });
    await hit('PATCH', '/api/admin/v1/operators/op_cf_c', {
      key: ADMIN_KEY,
      body: { rotate_wallet_secret: true, allowed_currencies: ['EUR', 'GBP'] },
      expect: 200,
    });
    const created = await hit('POST', '/api/admin/v1/operators/op_cf_c/api-keys', {
      key: ADMIN_KEY,
      body: { label: 'conformance' },
      expect: 201,
    });
    master = (await hit('POST', '/api/admin/v1/master-keys', { key: ADMIN_KEY, body: {}, expect: 201 })).json
      .data.api_key;
    await hit('DELETE', `/api/admin/v1/api-keys/${created.json.data.key_id}`, {
      key: ADMIN_KEY,
      expect: 200,
    });
    await hit('DELETE', `/api/admin/v1/api-keys/${created.json.data.key_id}`, {
      key: ADMIN_KEY,
      expect: 404,
    });
    await hit('DELETE', '/api/admin/v1/api-keys/adm_bootstrap', { key: ADMIN_KEY, expect: 409 });
    await hit('PUT', `/api/admin/v1/operators/op_cf_c/games/${slot.symbol}`, {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 200,
    });
    await hit('GET', '/api/admin/v1/operators/op_cf_c/games', { key: ADMIN_KEY, expect: 200 });
    await hit('DELETE', `/api/admin/v1/operators/op_cf_c/games/${slot.symbol}`, {
      key: ADMIN_KEY,
      expect: 200,
    });
    await hit('DELETE', `/api/admin/v1/operators/op_cf_c/games/${slot.symbol}`, {
      key: ADMIN_KEY,
      expect: 404,
    });
    await hit('PUT', `/api/admin/v1/release-registry/${slot.symbol}`, {
      key: ADMIN_KEY,
      body: { status: 'blocked', registry_version: '0.0.0-conformance', detail: 'not installed' },
      expect: 200,
    });
    await hit('PUT', '/api/admin/v1/providers/prov_b/switch', {
      key: ADMIN_KEY,
      body: { enabled: false },
      expect: 200,
    });
    await hit('PUT', '/api/admin/v1/providers/prov_z/switch', {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 404,
    });
    await hit('PUT', `/api/admin/v1/games/${mines.symbol}/operator-wallet`, {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 200,
    });
    await hit('PUT', `/api/admin/v1/games/${slot.symbol}/operator-wallet`, {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 409,
    });
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(32),
    ]);
    const upload = async (bytes: Buffer, expect: number) => {
      const path = `/api/admin/v1/games/${slot.symbol}/artwork?format=horizontal`;
      const res = await fetch(h.base + path, {
        method: 'PUT',
        headers: { 'x-provider-api-key': ADMIN_KEY, 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      const text = await res.text();
      assert.equal(res.status, expect, text);
      seen.add(
        v.check({
          method: 'PUT',
          url: path,
          status: res.status,
          contentType: res.headers.get('content-type'),
          json: JSON.parse(text),
          text,
        }),
      );
    };
    await upload(png, 200);
    await upload(Buffer.from('not an image'), 422);
    await hit('POST', `/api/admin/v1/sessions/${otherSession}/revoke`, {
      key: ADMIN_KEY,
      body: { reason: 'conformance' },
      expect: 200,
    });
    await hit('POST', '/api/admin/v1/sessions/s_missing/revoke', { key: ADMIN_KEY, body: {}, expect: 404 });
    // Replay-link revocations (issue 34).
    await hit('POST', `/api/admin/v1/rounds/${roundId}/replay-links/revoke`, {
      key: ADMIN_KEY,
      body: { reason: 'conformance' },
      expect: 200,
    });
    await hit('POST', '/api/admin/v1/rounds/r_missing/replay-links/revoke', { key: ADMIN_KEY, expect: 404 });
    await hit('POST', `/api/admin/v1/rounds/${roundId}/replay-links/revoke`, {
      key: ADMIN_KEY,
      body: { reason: '' },
      expect: 422,
    });
    await hit('POST', '/api/admin/v1/operators/op_cf_b/replay-links/revoke', { key: ADMIN_KEY, expect: 200 });
    await hit('POST', '/api/admin/v1/operators/op_missing/replay-links/revoke', {
      key: ADMIN_KEY,
      expect: 404,
    });
    // A master key must name the operator; an unknown one is 404.
    await hit('GET', '/api/provider/v1/games', { key: master, expect: 400 });
    await hit('GET', '/api/provider/v1/games?operator_id=op_nobody', { key: master, expect: 404 });
    await hit('GET', '/api/operator/v1/contract?operator_id=op_cf_a', { key: master, expect: 200 });
  });

  test('provider admin API: staff accounts', async () => {
    const staff = '/api/admin/v1/staff';
    await hit('GET', staff, { key: ADMIN_KEY, expect: 200 });
    await hit('GET', staff, { expect: 401 });
    await hit('GET', staff, { key: keyA, expect: 403 });
    const ana = await hit('POST', staff, {
      key: ADMIN_KEY,
      body: { username: 'cf-ana', display_name: 'Ana', roles: [{ operator_id: 'op_cf_a', role: 'viewer' }] },
      expect: 201,
    });
    assert.equal(typeof ana.json.data.password, 'string', 'a generated password is returned once');
    await hit('POST', staff, {
      key: ADMIN_KEY,
      body: { username: 'cf-prov', password: 'conformance-passphrase', provider_role: 'admin' },
      expect: 201,
    });
    await hit('POST', staff, { key: ADMIN_KEY, body: { username: 'cf-ana' }, expect: 409 });
    await hit('POST', staff, {
      key: ADMIN_KEY,
      body: { username: 'cf-bea', roles: [{ operator_id: 'op_missing', role: 'viewer' }] },
      expect: 404,
    });
    await hit('POST', staff, { key: ADMIN_KEY, body: { username: 'X' }, expect: 422 });
    await hit('POST', staff, {
      key: ADMIN_KEY,
      body: {
        username: 'cf-bea',
        provider_role: 'viewer',
        roles: [{ operator_id: 'op_cf_a', role: 'viewer' }],
      },
      expect: 422,
    });
    await hit('GET', `${staff}/cf-ana`, { key: ADMIN_KEY, expect: 200 });
    await hit('GET', `${staff}/cf-nobody`, { key: ADMIN_KEY, expect: 404 });
    const reset = await hit('PATCH', `${staff}/cf-ana`, {
      key: ADMIN_KEY,
      body: { display_name: 'Ana B', reset_password: true },
      expect: 200,
    });
    assert.equal(typeof reset.json.data.password, 'string');
    await hit('PATCH', `${staff}/cf-ana`, { key: ADMIN_KEY, body: { disabled: false }, expect: 200 });
    await hit('PATCH', `${staff}/cf-ana`, { key: ADMIN_KEY, body: { provider_role: 'viewer' }, expect: 409 });
    await hit('PATCH', `${staff}/cf-ana`, { key: ADMIN_KEY, body: {}, expect: 422 });
    await hit('PATCH', `${staff}/cf-nobody`, { key: ADMIN_KEY, body: { disabled: true }, expect: 404 });
    const granted = await hit('PUT', `${staff}/cf-ana/roles/op_cf_b`, {
      key: ADMIN_KEY,
      body: { role: 'admin' },
      expect: 200,
    });
    assert.deepEqual(
      granted.json.data.roles.map((r: { operator_id: string }) => r.operator_id),
      ['op_cf_a', 'op_cf_b'],
    );
    await hit('PUT', `${staff}/cf-prov/roles/op_cf_a`, {
      key: ADMIN_KEY,
      body: { role: 'viewer' },
      expect: 409,
    });
    await hit('PUT', `${staff}/cf-ana/roles/op_missing`, {
      key: ADMIN_KEY,
      body: { role: 'viewer' },
      expect: 404,
    });
    await hit('PUT', `${staff}/cf-ana/roles/op_cf_b`, {
      key: ADMIN_KEY,
      body: { role: 'owner' },
      expect: 422,
    });
    await hit('DELETE', `${staff}/cf-ana/roles/op_cf_b`, { key: ADMIN_KEY, expect: 200 });
    await hit('DELETE', `${staff}/cf-ana/roles/op_cf_b`, { key: ADMIN_KEY, expect: 404 });
    const list = await hit('GET', staff, { key: ADMIN_KEY, expect: 200 });
    const names = list.json.data.items.map((a: { username: string }) => a.username);
    assert.ok(names.includes('cf-ana') && names.includes('cf-prov'), names.join(', '));
    assert.equal(list.json.data.total, list.json.data.items.length);
  });

  test('free-round campaigns', async () => {
    const hour = 3600_000;
    const body = {
      campaign_id: 'cf-campaign',
      symbols: [slot.symbol],
      currency: 'EUR',
      bet_minor: 100,
      rounds: 2,
      valid_from: new Date(Date.now() - hour).toISOString(),
      expires_at: new Date(Date.now() + hour).toISOString(),
      players: ['cf-free-1'],
    };
    const base = '/api/provider/v1/free-rounds';
    await hit('POST', base, { key: keyA, body, expect: 201 });
    await hit('POST', base, { key: keyA, body, expect: 200 });
    await hit('POST', base, { key: keyA, body: { ...body, rounds: 3 }, expect: 409 });
    await hit('POST', base, {
      key: keyA,
      body: { ...body, campaign_id: 'cf-bad', bet_minor: 30 },
      expect: 422,
    });
    await hit('POST', base, { key: keyA, body: {}, expect: 400 });
    await hit('GET', `${base}?limit=1`, { key: keyA, expect: 200 });
    await hit('GET', `${base}?limit=0`, { key: keyA, expect: 422 });
    await hit('GET', `${base}/cf-campaign`, { key: keyA, expect: 200 });
    await hit('GET', `${base}/nope`, { key: keyA, expect: 404 });
    await hit('POST', `${base}/cf-campaign/players`, {
      key: keyA,
      body: { players: ['cf-free-2'] },
      expect: 200,
    });
    await hit('POST', `${base}/nope/players`, { key: keyA, body: { players: ['cf-free-2'] }, expect: 404 });
    await hit('DELETE', `${base}/cf-campaign`, { key: keyA, expect: 200 });
    await hit('DELETE', `${base}/nope`, { key: keyA, expect: 404 });
    await hit('POST', `${base}/cf-campaign/players`, {
      key: keyA,
      body: { players: ['cf-free-3'] },
      expect: 409,
    });
  });

  test('jackpots', async () => {
    const jp = '/api/admin/v1/jackpots';
    const body = {
      name: 'Conformance jackpot',
      scope: 'network',
      titles: [slot.symbol],
      levels: [
        {
          level: 'mini',
          contribution_rate_ppm: 5000,
          currencies: { EUR: { seed_minor: 1000, cap_minor: 50_000, hit_every_minor: 200_000 } },
        },
      ],
    };
    await hit('PUT', `${jp}/cf-jackpot`, { key: ADMIN_KEY, body, expect: 201 });
    await hit('PUT', `${jp}/cf-jackpot`, { key: ADMIN_KEY, body, expect: 200 });
    await hit('PUT', `${jp}/cf-jackpot`, { key: ADMIN_KEY, body: { ...body, name: 'other' }, expect: 409 });
    await hit('PUT', `${jp}/cf-bad`, { key: ADMIN_KEY, body: { ...body, levels: [] }, expect: 422 });
    await hit('GET', `${jp}/cf-jackpot`, { key: ADMIN_KEY, expect: 200 });
    await hit('GET', `${jp}/cf-none`, { key: ADMIN_KEY, expect: 404 });
    await hit('GET', jp, { key: ADMIN_KEY, expect: 200 });
    await hit('PUT', `${jp}/cf-jackpot/operators/op_cf_a`, {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 200,
    });
    await hit('PUT', `${jp}/cf-none/operators/op_cf_a`, {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 404,
    });
    const mine = await hit('GET', '/api/provider/v1/jackpots', { key: keyA, expect: 200 });
    assert.deepEqual(
      mine.json.data.items.map((j: { jackpot_id: string }) => j.jackpot_id),
      ['cf-jackpot'],
    );
  });

  test('prize drops', async () => {
    const pd = '/api/admin/v1/prize-drops';
    const soon = (s: number) => new Date(Date.now() + s * 1000).toISOString();
    const body = {
      name: 'Conformance drop',
      starts_at: soon(-60),
      ends_at: soon(3600),
      titles: [slot.symbol],
      currencies: { EUR: { prize_minor: 500, prizes: 3, min_stake_minor: 10, award_every_spins: 50 } },
    };
    await hit('PUT', `${pd}/cf-drop`, { key: ADMIN_KEY, body, expect: 201 });
    await hit('PUT', `${pd}/cf-drop`, { key: ADMIN_KEY, body, expect: 200 });
    await hit('PUT', `${pd}/cf-drop`, { key: ADMIN_KEY, body: { ...body, name: 'other' }, expect: 409 });
    await hit('PUT', `${pd}/cf-bad`, { key: ADMIN_KEY, body: { ...body, currencies: {} }, expect: 422 });
    await hit('GET', `${pd}/cf-drop`, { key: ADMIN_KEY, expect: 200 });
    await hit('GET', `${pd}/cf-none`, { key: ADMIN_KEY, expect: 404 });
    await hit('GET', pd, { key: ADMIN_KEY, expect: 200 });
    await hit('PUT', `${pd}/cf-drop/operators/op_cf_a`, {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 200,
    });
    await hit('PUT', `${pd}/cf-none/operators/op_cf_a`, {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 404,
    });
    const listed = await hit('GET', '/api/provider/v1/prize-drops', { key: keyA, expect: 200 });
    assert.deepEqual(
      listed.json.data.items.map((d: { drop_id: string }) => d.drop_id),
      ['cf-drop'],
    );
    await hit('POST', `${pd}/cf-drop/cancel`, { key: ADMIN_KEY, expect: 200 });
    await hit('POST', `${pd}/cf-none/cancel`, { key: ADMIN_KEY, expect: 404 });
  });

  test('tournaments', async () => {
    const tn = '/api/admin/v1/tournaments';
    const soon = (s: number) => new Date(Date.now() + s * 1000).toISOString();
    const body = {
      name: 'Conformance tournament',
      scoring: 'max_multiplier',
      starts_at: soon(-60),
      ends_at: soon(3600),
      titles: [slot.symbol],
      currencies: { EUR: { min_stake_minor: 100, prizes: [1000, 500] } },
    };
    await hit('PUT', `${tn}/cf-tournament`, { key: ADMIN_KEY, body, expect: 201 });
    await hit('PUT', `${tn}/cf-tournament`, { key: ADMIN_KEY, body, expect: 200 });
    await hit('PUT', `${tn}/cf-tournament`, {
      key: ADMIN_KEY,
      body: { ...body, name: 'other' },
      expect: 409,
    });
    await hit('PUT', `${tn}/cf-bad`, {
      key: ADMIN_KEY,
      body: { ...body, currencies: { EUR: { min_stake_minor: 100, prizes: [] } } },
      expect: 422,
    });
    // One that ends in four seconds with no score: frozen empty, paid, then over (cancel 409).
    const short = { ...body, starts_at: soon(1), ends_at: soon(4) };
    await hit('PUT', `${tn}/cf-short`, { key: ADMIN_KEY, body: short, expect: 201 });
    await hit('PUT', `${tn}/cf-tournament/operators/op_cf_a`, {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 200,
    });
    await hit('PUT', `${tn}/cf-none/operators/op_cf_a`, {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 404,
    });
    // Scores as the database's trigger writes them (one of op_cf_a, one of op_cf_b): every field answered.
    const { rows } = await h.db.pool.query(
      `SELECT DISTINCT ON (p.operator_id) p.operator_id, p.player_id, p.external_player_id, s.session_id
         FROM players p JOIN sessions s ON s.player_id = p.player_id
        WHERE p.operator_id IN ('op_cf_a', 'op_cf_b') ORDER BY p.operator_id, s.created_at`,
    );
    for (const [i, r] of rows.entries()) {
      await h.db.pool.query(
        `INSERT INTO tournament_scores (tournament_id, currency, operator_id, external_player_id, player_id, scoring,
                                        score, score_reached_at, best_round_id, last_round_id, last_session_id,
                                        last_game_symbol, rounds_counted)
         VALUES ('cf-tournament', 'EUR', $1, $2, $3, 'max_multiplier', $4, now(), 'r_cf', 'r_cf', $5, $6, 1)`,
        [r.operator_id, r.external_player_id, r.player_id, 2.5 - i, r.session_id, slot.symbol],
      );
    }
    const listed = await hit('GET', '/api/provider/v1/tournaments', { key: keyA, expect: 200 });
    assert.deepEqual(
      listed.json.data.items.map((t: { tournament_id: string }) => t.tournament_id),
      ['cf-tournament'],
    );
    const board = await hit('GET', '/api/provider/v1/tournaments/cf-tournament/leaderboard?limit=5', {
      key: keyA,
      expect: 200,
    });
    assert.ok(board.json.data.leaderboards[0].items.length >= 1);
    await hit('GET', '/api/provider/v1/tournaments/cf-tournament/leaderboard?limit=0', {
      key: keyA,
      expect: 422,
    });
    await hit('GET', '/api/provider/v1/tournaments/cf-short/leaderboard', { key: keyA, expect: 404 });
    await hit('GET', `${tn}/cf-none`, { key: ADMIN_KEY, expect: 404 });
    await hit('GET', tn, { key: ADMIN_KEY, expect: 200 });
    await hit('POST', `${tn}/cf-none/cancel`, { key: ADMIN_KEY, expect: 404 });
    await hit('POST', `${tn}/cf-tournament/cancel`, { key: ADMIN_KEY, expect: 200 });
    for (let i = 0; i < 200; i++) {
      const t = await call(h.base, 'GET', `${tn}/cf-short`, { key: ADMIN_KEY, sign: true });
      if (t.json.data.status === 'paid') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const paid = await hit('GET', `${tn}/cf-short`, { key: ADMIN_KEY, expect: 200 });
    assert.equal(paid.json.data.status, 'paid');
    await hit('POST', `${tn}/cf-short/cancel`, { key: ADMIN_KEY, expect: 409 });
    await hit('PUT', `${tn}/cf-short/operators/op_cf_a`, {
      key: ADMIN_KEY,
      body: { enabled: true },
      expect: 409,
    });
  });

  test('jackpot and promotional money in the operator audit API (signed)', async () => {
    // A spin of op_cf_a on the jackpot's title feeds cf-jackpot (once the opt-in reached the game
    // server's cache); its hit and a promotional payout are written as the spin and a tournament's
    // freeze write them, so that every field of the new reads is answered.
    let fed: string | null = null;
    for (let i = 0; i < 40 && fed === null; i++) {
      const r = await call(h.game, 'POST', '/api/runtime/spin', {
        headers: { 'x-session-token': slotToken },
        body: { bet_minor: 100 },
      });
      assert.equal(r.status, 200, r.text);
      const { rows } = await h.db.pool.query(`SELECT jackpot_id FROM rounds WHERE round_id = $1`, [
        r.json.round_id,
      ]);
      if (rows[0]?.jackpot_id) fed = r.json.round_id;
      else await new Promise((res) => setTimeout(res, 100));
    }
    assert.ok(fed, 'a spin fed the jackpot');
    await h.db.pool.query(
      `INSERT INTO jackpot_hits (round_id, jackpot_id, level, currency, operator_id, external_player_id, amount_minor)
       VALUES ($1, 'cf-jackpot', 'mini', 'EUR', 'op_cf_a', 'cf-player', 1000)`,
      [fed],
    );
    const payoutId = `pp_t_cf-tournament_${'0'.repeat(32)}`;
    await h.db.pool.query(
      `INSERT INTO promo_payouts (payout_id, promo_type, promo_id, operator_id, external_player_id, player_id, currency,
                                  amount_minor, rank, session_id, game_symbol)
       SELECT $1, 'tournament', 'cf-tournament', 'op_cf_a', 'cf-player', player_id, 'EUR', 2500, 1, session_id, symbol
         FROM sessions WHERE session_id = $2`,
      [payoutId, slotSession],
    );
    const contributions = await hit('GET', '/api/operator/v1/jackpot-contributions?limit=1', {
      key: keyA,
      expect: 200,
    });
    assert.equal(contributions.json.data.items[0].round_id, fed);
    await hit('GET', `/api/operator/v1/jackpot-contributions?jackpot_id=cf-jackpot&player_id=cf-player`, {
      key: keyA,
      expect: 200,
    });
    await hit('GET', '/api/operator/v1/jackpot-contributions?status=won', { key: keyA, expect: 422 });
    const wins = await hit('GET', '/api/operator/v1/jackpot-wins', { key: keyA, expect: 200 });
    assert.equal(wins.json.data.items[0].status, 'pending');
    await hit('GET', '/api/operator/v1/jackpot-wins', { key: keyB, expect: 200 });
    await hit('GET', '/api/operator/v1/jackpot-wins?level=MINI', { key: keyA, expect: 422 });
    await hit('GET', `/api/operator/v1/rounds/${fed}`, { key: keyA, expect: 200 });
    const payouts = await hit('GET', '/api/operator/v1/promo-payouts', { key: keyA, expect: 200 });
    assert.equal(payouts.json.data.items[0].payout_id, payoutId);
    await hit('GET', '/api/operator/v1/promo-payouts?promo_type=bonus', { key: keyA, expect: 422 });
    await hit('GET', `/api/operator/v1/promo-payouts/${payoutId}`, { key: keyA, expect: 200 });
    await hit('GET', `/api/operator/v1/promo-payouts/${payoutId}`, { key: keyB, expect: 404 });
    await hit('GET', `/api/operator/v1/promo-payouts/${'p'.repeat(201)}`, { key: keyA, expect: 422 });
    await hit('GET', '/api/operator/v1/promo-payouts', { key: keyA, sign: false, expect: 401 });
    const rec = await hit('GET', '/api/operator/v1/reconciliation', { key: keyA, expect: 200 });
    assert.equal(rec.json.data.balanced, false, 'a pending payout (and hit) leave it unbalanced');
    assert.equal(rec.json.data.promo_payouts[0].pending_payouts, 1);
    assert.equal(rec.json.data.jackpots[0].hits_pending, 1);
    const csv = await hit('GET', '/api/operator/v1/reconciliation.csv', { key: keyA, expect: 200 });
    assert.match(csv.text, /,promo_balanced\r\n/);
  });

  test('exchange rates (issue 38)', async () => {
    const rates = [
      { base_currency: 'EUR', quote_currency: 'USD', rate_date: '2026-01-30', rate: '1.0823', source: 'ECB' },
      { base_currency: 'EUR', quote_currency: 'GBP', rate_date: '2026-01-30', rate: '0.8345', source: 'ECB' },
    ];
    await hit('POST', '/api/admin/v1/exchange-rates', { key: ADMIN_KEY, body: { rates }, expect: 201 });
    await hit('POST', '/api/admin/v1/exchange-rates', { key: ADMIN_KEY, body: { rates }, expect: 200 });
    await hit('POST', '/api/admin/v1/exchange-rates', {
      key: ADMIN_KEY,
      body: { rates: [{ ...rates[0], rate: '1.09' }] },
      expect: 409,
    });
    await hit('POST', '/api/admin/v1/exchange-rates', { key: ADMIN_KEY, body: { rates: [] }, expect: 422 });
    await hit('POST', '/api/admin/v1/exchange-rates', { key: keyA, body: { rates }, expect: 403 });
    const page = await hit('GET', '/api/admin/v1/exchange-rates?limit=1', { key: ADMIN_KEY, expect: 200 });
    assert.equal(typeof page.json.data.next_cursor, 'string');
    await hit('GET', '/api/admin/v1/exchange-rates?cursor=x', { key: ADMIN_KEY, expect: 422 });
    await hit(
      'GET',
      '/api/admin/v1/exchange-rates/lookup?base_currency=USD&quote_currency=EUR&date=2026-02-02',
      {
        key: ADMIN_KEY,
        expect: 200,
      },
    );
    await hit(
      'GET',
      '/api/admin/v1/exchange-rates/lookup?base_currency=USD&quote_currency=JPY&date=2026-02-02',
      {
        key: ADMIN_KEY,
        expect: 404,
      },
    );
  });

  test('reports (issue 38)', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const q = `from=${day}&to=${day}`;
    await hit('GET', `/api/operator/v1/reports/revenue?${q}`, { key: keyA, expect: 200 });
    await hit('GET', `/api/operator/v1/reports/revenue?${q}&group_by=title`, { key: keyA, expect: 200 });
    await hit('GET', '/api/operator/v1/reports/revenue?from=2026-01-02&to=2026-01-01', {
      key: keyA,
      expect: 422,
    });
    await hit('GET', `/api/operator/v1/reports/revenue.csv?${q}`, { key: keyA, expect: 200 });
    await hit('GET', `/api/admin/v1/reports/revenue?${q}`, { key: ADMIN_KEY, expect: 200 });
    await hit('GET', `/api/admin/v1/reports/revenue?${q}&operator_id=op_nobody`, {
      key: ADMIN_KEY,
      expect: 404,
    });
    await hit('GET', `/api/admin/v1/reports/revenue?${q}`, { key: keyA, expect: 403 });
    await hit('GET', `/api/admin/v1/reports/revenue.csv?${q}`, { key: ADMIN_KEY, expect: 200 });
    const op = (await hit('GET', `/api/operator/v1/contract`, { key: keyA, expect: 200 })).json.data
      .operator_id;
    await hit('PUT', `/api/admin/v1/operators/${op}/reporting-time-zone`, {
      key: ADMIN_KEY,
      body: { time_zone: 'UTC' },
      expect: 200,
    });
    await hit('PUT', `/api/admin/v1/operators/${op}/reporting-time-zone`, {
      key: ADMIN_KEY,
      body: { time_zone: 'Nowhere/Else' },
      expect: 422,
    });
  });

  test('reconciliation diff (issue 38)', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const d = await hit('POST', '/api/operator/v1/reconciliation/diff', {
      key: keyA,
      body: { level: 'day', from: day, to: day, buckets: [] },
      expect: 200,
    });
    await hit('POST', '/api/operator/v1/reconciliation/diff', {
      key: keyA,
      body: { level: 'hour', day, buckets: [] },
      expect: 200,
    });
    await hit('POST', '/api/operator/v1/reconciliation/diff', {
      key: keyA,
      body: { level: 'transaction', day, hour: 0, prefix: 'ff', transactions: [] },
      expect: 200,
    });
    await hit('POST', '/api/operator/v1/reconciliation/diff', {
      key: keyA,
      body: { level: 'hour', buckets: [] },
      expect: 422,
    });
    assert.equal(typeof d.json.data.matches, 'boolean');
  });

  test('invoices (issue 38)', async () => {
    const op = (await hit('GET', '/api/operator/v1/contract', { key: keyA, expect: 200 })).json.data
      .operator_id;
    await hit('GET', `/api/admin/v1/operators/${op}/billing-contract`, { key: ADMIN_KEY, expect: 404 });
    await hit('PUT', `/api/admin/v1/operators/${op}/billing-contract`, {
      key: ADMIN_KEY,
      body: {
        billing_currency: 'EUR',
        minimum_fee_minor: 100,
        tiers: [{ from_ggr_minor: 0, rate_ppm: 150000 }],
      },
      expect: 200,
    });
    await hit('GET', `/api/admin/v1/operators/${op}/billing-contract`, { key: ADMIN_KEY, expect: 200 });
    const body = { operator_id: op, period: '2025-12' };
    await hit('POST', '/api/admin/v1/invoices', {
      key: ADMIN_KEY,
      body: { ...body, preview: true },
      expect: 200,
    });
    const inv = await hit('POST', '/api/admin/v1/invoices', { key: ADMIN_KEY, body, expect: 201 });
    const id = inv.json.data.invoice_id as string;
    await hit('POST', '/api/admin/v1/invoices', { key: ADMIN_KEY, body, expect: 409 });
    await hit('GET', `/api/admin/v1/invoices?operator_id=${op}`, { key: ADMIN_KEY, expect: 200 });
    await hit('GET', `/api/admin/v1/invoices/${id}`, { key: ADMIN_KEY, expect: 200 });
    await hit('GET', '/api/admin/v1/invoices/nope', { key: ADMIN_KEY, expect: 404 });
    await hit('GET', '/api/operator/v1/invoices', { key: keyA, expect: 200 });
    await hit('GET', `/api/operator/v1/invoices/${id}`, { key: keyA, expect: 200 });
    await hit('GET', '/api/operator/v1/invoices/nope', { key: keyA, expect: 404 });
    await hit('POST', `/api/admin/v1/invoices/${id}/credit-note`, {
      key: ADMIN_KEY,
      body: { reason: 'test' },
      expect: 201,
    });
    await hit('POST', `/api/admin/v1/invoices/${id}/credit-note`, {
      key: ADMIN_KEY,
      body: { reason: 'test' },
      expect: 409,
    });
    await hit('POST', '/api/admin/v1/invoices', {
      key: ADMIN_KEY,
      body: { ...body, period: '2025-13' },
      expect: 422,
    });
  });

  test('every documented operation was answered and validated', () => {
    const answered = new Set([...seen].map((s) => s.split(' ').slice(0, 2).join(' ')));
    const missing: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const m of Object.keys(methods)) {
        if (!answered.has(`${m.toUpperCase()} ${path}`)) missing.push(`${m.toUpperCase()} ${path}`);
      }
    }
    assert.deepEqual(missing, []);
    void keyIdA;
  });
});
