import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { sendWalletCallback } from './send.js';

// A wallet on loopback whose answer each test picks by the path's operation.
let server: http.Server;
let base = '';
const sockets = new Set<unknown>();
const seen: { headers: http.IncomingHttpHeaders; body: string }[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    sockets.add(req.socket);
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      const op = req.url!.split('/').pop();
      if (op === 'debit') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"balance":"12.34"}');
      } else if (op === 'credit') {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"success":false,"error":"self_excluded"}');
      } else if (op === 'cancel') {
        res.writeHead(302, { location: '/elsewhere' }).end();
      } else if (op === 'rollback') {
        setTimeout(() => res.writeHead(200).end('{"success":true,"balance":"1"}'), 500);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(Buffer.alloc(2 << 20, 0x20));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wallet`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const call = (operation: 'balance' | 'debit' | 'credit' | 'cancel' | 'rollback', timeoutMs = 5_000) =>
  sendWalletCallback({
    baseUrl: base,
    operation,
    secret: 'secret',
    body: '{"transaction_id":"t_1","amount":"1.00"}',
    requestId: 't_1#1',
    timeoutMs,
  });

test('a success and a rejection are read from the answer; the signed headers and exact body are sent', async () => {
  assert.deepEqual(await call('debit'), { kind: 'success', balance: '12.34', httpStatus: 200 });
  const sent = seen.at(-1)!;
  assert.equal(sent.body, '{"transaction_id":"t_1","amount":"1.00"}');
  assert.equal(sent.headers['content-type'], 'application/json');
  assert.equal(sent.headers['content-length'], String(sent.body.length));
  for (const h of ['x-pp-timestamp', 'x-pp-nonce', 'x-pp-signature', 'traceparent'])
    assert.ok(sent.headers[h], h);
  const rejected = await call('credit');
  assert.equal(rejected.kind, 'rejected');
  assert.equal((rejected as { error: string }).error, 'self_excluded');
});

test('calls share a keep-alive connection', async () => {
  sockets.clear();
  for (let i = 0; i < 5; i++) await call('debit');
  assert.equal(sockets.size, 1);
});

test('a redirect is not followed, a slow answer times out, an oversized one is refused: all uncertain', async () => {
  const redirected = await call('cancel');
  assert.equal(redirected.kind, 'uncertain');
  assert.equal((redirected as { httpStatus?: number }).httpStatus, 302);
  const slow = await call('rollback', 100);
  assert.deepEqual(slow, { kind: 'uncertain', reason: 'timeout after 100 ms' });
  const big = await call('balance');
  assert.equal(big.kind, 'uncertain');
  assert.match((big as { reason: string }).reason, /ETOOBIG/);
});

test('a wallet that is not listening is uncertain with the connection error', async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const outcome = await sendWalletCallback({
    baseUrl: `http://127.0.0.1:${port}/wallet`,
    operation: 'debit',
    secret: 's',
    body: '{}',
    requestId: 'r',
    timeoutMs: 2_000,
  });
  assert.equal(outcome.kind, 'uncertain');
  assert.match((outcome as { reason: string }).reason, /^ECONNREFUSED: /);
});
