import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createApp } from './app.js';
import { createLogger } from './http/logger.js';

let server: Server;
let base: string;
before(async () => {
  server = createApp({ logger: createLogger('api-test', 'silent') }).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test('GET /health answers 200 without credentials, with a request id', async () => {
  const res = await fetch(`${base}/health`);
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: 'ok' });
  assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('a safe caller request id is echoed; an unsafe one is replaced', async () => {
  const a = await fetch(`${base}/health`, { headers: { 'x-request-id': 'op-req-42' } });
  assert.equal(a.headers.get('x-request-id'), 'op-req-42');
  const b = await fetch(`${base}/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
  assert.notEqual(b.headers.get('x-request-id'), 'bad id with spaces');
});

test('unknown routes and methods answer JSON, never HTML', async () => {
  const res = await fetch(`${base}/nope`);
  assert.equal(res.status, 404);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  assert.deepEqual(await res.json(), { detail: 'Not Found' });
  const post = await fetch(`${base}/health`, { method: 'POST' });
  assert.equal(post.status, 405);
  assert.deepEqual(await post.json(), { detail: 'Method Not Allowed' });
});
