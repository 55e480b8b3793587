import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { newRequestNonce, signOperatorRequest, unixSeconds } from '@opi/signing';
import {
  ADMIN_KEY,
  call,
  createOperator,
  freePort,
  type Harness,
  startApi,
  waitForHealth,
} from '@opi/testkit/harness';

let h: Harness;
let required: Harness;
let op: { key: string };
let opRequired: { key: string };

before(async () => {
  h = await startApi();
  op = await createOperator(h.base, 'op_sign');
  required = await startApi({ SIGNED_REQUESTS: 'required' });
  opRequired = await createOperator(required.base, 'op_strict');
});
after(async () => {
  await h.close();
  await required.close();
});

describe('request signing', () => {
  test('optional mode: unsigned requests pass, a present signature is verified', async () => {
    assert.equal((await call(h.base, 'GET', '/api/provider/v1/games', { key: op.key })).status, 200);
    assert.equal(
      (await call(h.base, 'GET', '/api/provider/v1/games', { key: op.key, sign: true })).status,
      200,
    );
    const bad = await call(h.base, 'GET', '/api/provider/v1/games', {
      key: op.key,
      headers: {
        'x-pp-timestamp': unixSeconds(),
        'x-pp-nonce': newRequestNonce(),
        'x-pp-signature': 'ab'.repeat(32),
      },
    });
    assert.equal(bad.status, 401);
    assert.deepEqual(bad.json, { detail: 'Invalid request signature' });
  });
  test('required mode: unsigned 401, signed 200', async () => {
    const unsigned = await call(required.base, 'GET', '/api/provider/v1/games', { key: opRequired.key });
    assert.equal(unsigned.status, 401);
    assert.match(unsigned.json.detail, /Signed request required/);
    assert.equal(
      (await call(required.base, 'GET', '/api/provider/v1/games', { key: opRequired.key, sign: true }))
        .status,
      200,
    );
  });
  test('the signature covers the exact path and query', async () => {
    const timestamp = unixSeconds();
    const nonce = newRequestNonce();
    const signature = signOperatorRequest(op.key, {
      timestamp,
      nonce,
      method: 'GET',
      pathAndQuery: '/api/provider/v1/games?provider_id=prov_a',
      body: '',
    });
    const res = await call(h.base, 'GET', '/api/provider/v1/games?provider_id=prov_b', {
      key: op.key,
      headers: { 'x-pp-timestamp': timestamp, 'x-pp-nonce': nonce, 'x-pp-signature': signature },
    });
    assert.equal(res.status, 401);
  });
  test('stale and future timestamps 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const ts of [now - 320, now + 320]) {
      const res = await call(h.base, 'GET', '/api/provider/v1/games', {
        key: op.key,
        sign: true,
        timestamp: String(ts),
      });
      assert.equal(res.status, 401);
      assert.match(res.json.detail, /x-pp-timestamp/);
    }
  });
  test('signatures of the wrong length or alphabet are simply invalid', async () => {
    for (const signature of ['', 'zz', 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), 'é'.repeat(64)]) {
      const res = await fetch(`${h.base}/api/provider/v1/games`, {
        headers: {
          'x-provider-api-key': op.key,
          'x-pp-timestamp': unixSeconds(),
          'x-pp-nonce': newRequestNonce(),
          'x-pp-signature': encodeURIComponent(signature),
        },
      });
      assert.equal(res.status, 401, signature);
    }
  });
  test('a nonce of the wrong size is refused; a reused nonce is 401', async () => {
    const short = await call(h.base, 'GET', '/api/provider/v1/games', {
      key: op.key,
      sign: true,
      nonce: 'short',
    });
    assert.equal(short.status, 401);
    const nonce = newRequestNonce();
    assert.equal(
      (await call(h.base, 'GET', '/api/provider/v1/games', { key: op.key, sign: true, nonce })).status,
      200,
    );
    const replay = await call(h.base, 'GET', '/api/provider/v1/games', { key: op.key, sign: true, nonce });
    assert.equal(replay.status, 401);
    assert.deepEqual(replay.json, { detail: 'x-pp-nonce was already used' });
  });
  test('signed POST bodies: the hash is over the raw bytes', async () => {
    const res = await call(h.base, 'POST', '/api/admin/v1/master-keys', {
      key: ADMIN_KEY,
      body: { label: 'x' },
      sign: true,
    });
    assert.equal(res.status, 201);
  });
});

describe('x-operator-id on signed requests (issue 23 point 9)', () => {
  let master = '';
  before(async () => {
    await createOperator(required.base, 'op_strict_b');
    const m = await call(required.base, 'POST', '/api/admin/v1/master-keys', {
      key: ADMIN_KEY,
      body: { label: 'scope' },
      sign: true,
    });
    assert.equal(m.status, 201, m.text);
    master = m.json.data.api_key;
  });
  /** A master key's signed GET as captured on the wire: its headers, signature included. */
  const captured = (pathAndQuery: string) => {
    const timestamp = unixSeconds();
    const nonce = newRequestNonce();
    return {
      'x-provider-api-key': master,
      'x-pp-timestamp': timestamp,
      'x-pp-nonce': nonce,
      'x-pp-signature': signOperatorRequest(master, {
        timestamp,
        nonce,
        method: 'GET',
        pathAndQuery,
        body: '',
      }),
    };
  };
  const get = (pathAndQuery: string, headers: Record<string, string>) =>
    call(required.base, 'GET', pathAndQuery, { headers });

  test('a signed request whose operator is only in x-operator-id is refused: the header is not signed', async () => {
    // Sent as signed with x-operator-id op_strict, delivered with the header changed to op_strict_b.
    const res = await get('/api/provider/v1/games', {
      ...captured('/api/provider/v1/games'),
      'x-operator-id': 'op_strict_b',
    });
    assert.equal(res.status, 401);
    assert.deepEqual(res.json, {
      detail:
        'x-operator-id is not covered by the signature: a signed request names its operator as operator_id in the query or the body (x-operator-id may repeat it)',
    });
    // Unchanged, the header alone is refused the same way.
    const alone = await get('/api/provider/v1/games', {
      ...captured('/api/provider/v1/games'),
      'x-operator-id': 'op_strict',
    });
    assert.equal(alone.status, 401);
  });

  test('the operator in the signed query (with or without the header) chooses it; a changed header is refused', async () => {
    const path = '/api/provider/v1/games?operator_id=op_strict';
    const viaQuery = await get(path, captured(path));
    assert.equal(viaQuery.status, 200, viaQuery.text);
    assert.equal(viaQuery.json.data.operator_id, 'op_strict');
    const both = await get(path, { ...captured(path), 'x-operator-id': 'op_strict' });
    assert.equal(both.status, 200, both.text);
    assert.equal(both.json.data.operator_id, 'op_strict');
    // The same signed query, the header changed in flight to another operator: refused.
    const swapped = await get(path, { ...captured(path), 'x-operator-id': 'op_strict_b' });
    assert.equal(swapped.status, 401);
    assert.match(swapped.json.detail, /x-operator-id is not covered by the signature/);
  });

  test('the operator in the signed body chooses it too', async () => {
    const res = await call(required.base, 'GET', '/api/provider/v1/games', {
      key: master,
      sign: true,
      body: { operator_id: 'op_strict_b' },
      headers: { 'x-operator-id': 'op_strict_b' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data.operator_id, 'op_strict_b');
  });

  test('an operator key is unaffected: its own id in x-operator-id is fine, another is 403', async () => {
    const own = await call(required.base, 'GET', '/api/provider/v1/games', {
      key: opRequired.key,
      sign: true,
      headers: { 'x-operator-id': 'op_strict' },
    });
    assert.equal(own.status, 200, own.text);
    const other = await call(required.base, 'GET', '/api/provider/v1/games', {
      key: opRequired.key,
      sign: true,
      headers: { 'x-operator-id': 'op_strict_b' },
    });
    assert.equal(other.status, 403);
  });
});

describe('single-use nonces across two API processes', () => {
  const procs: ChildProcess[] = [];
  after(() => {
    for (const p of procs) p.kill('SIGTERM');
  });
  test('the same signed request is accepted by one process and refused by the other', async () => {
    const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'main.ts');
    const ports = [await freePort(), await freePort()];
    for (const port of ports) {
      const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', entry], {
        // API_METRICS_PORT 0: no metrics listener (the default 9464 is npm start's, and the two would share it).
        env: {
          ...process.env,
          ...h.env,
          PORT: String(port),
          API_METRICS_PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      procs.push(child);
    }
    await Promise.all(ports.map((p) => waitForHealth(p)));
    const timestamp = unixSeconds();
    const nonce = newRequestNonce();
    const signature = signOperatorRequest(op.key, {
      timestamp,
      nonce,
      method: 'GET',
      pathAndQuery: '/api/provider/v1/games',
      body: '',
    });
    const headers = {
      'x-provider-api-key': op.key,
      'x-pp-timestamp': timestamp,
      'x-pp-nonce': nonce,
      'x-pp-signature': signature,
    };
    const results = await Promise.all(
      ports.map((p) => fetch(`http://127.0.0.1:${p}/api/provider/v1/games`, { headers })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 401]);
    // And sequentially, the second process refuses a nonce the first accepted.
    const n2 = newRequestNonce();
    const s2 = signOperatorRequest(op.key, {
      timestamp,
      nonce: n2,
      method: 'GET',
      pathAndQuery: '/api/provider/v1/games',
      body: '',
    });
    const h2 = { ...headers, 'x-pp-nonce': n2, 'x-pp-signature': s2 };
    assert.equal(
      (await fetch(`http://127.0.0.1:${ports[0]}/api/provider/v1/games`, { headers: h2 })).status,
      200,
    );
    assert.equal(
      (await fetch(`http://127.0.0.1:${ports[1]}/api/provider/v1/games`, { headers: h2 })).status,
      401,
    );
  });
});
