import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createPool } from '@opi/db';
import { dependencyUnavailable } from '@opi/service-kit/http/errors';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';
import { Connection } from '@temporalio/client';
import { createApp } from '../app.js';

// A dependency that cannot be reached is a 503 with Retry-After and a JSON detail, not a masked
// 500: the errors are real ones (a refused PostgreSQL port, a server that hangs up, Temporal at a
// closed port), and the HTTP case runs the real app with its database gone.

/** A TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function errorOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('dependencyUnavailable', () => {
  test('PostgreSQL refusing connections, or hanging up, is unavailable', async () => {
    const refused = createPool(`postgres://x:y@127.0.0.1:${await closedPort()}/db`, { max: 1 });
    try {
      assert.equal(dependencyUnavailable(await errorOf(() => refused.query('SELECT 1'))), true);
    } finally {
      await refused.end();
    }
    // A server that accepts and closes at once (a database restarting).
    const hangUp: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => hangUp.listen(0, '127.0.0.1', r));
    const pool = createPool(`postgres://x:y@127.0.0.1:${(hangUp.address() as { port: number }).port}/db`, {
      max: 1,
    });
    try {
      assert.equal(dependencyUnavailable(await errorOf(() => pool.query('SELECT 1'))), true);
    } finally {
      await pool.end();
      await new Promise<void>((r) => hangUp.close(() => r()));
    }
  });

  test('Temporal at a closed port is unavailable: connecting, and a call on a lazy connection', async () => {
    const port = await closedPort();
    const connecting = await errorOf(() =>
      Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 1000 }),
    );
    assert.equal(dependencyUnavailable(connecting), true, String(connecting));
    const lazy = Connection.lazy({ address: `127.0.0.1:${port}` });
    try {
      const calling = await errorOf(() =>
        lazy.withDeadline(Date.now() + 1000, () => lazy.workflowService.getSystemInfo({})),
      );
      assert.equal(dependencyUnavailable(calling), true, String(calling));
    } finally {
      await lazy.close();
    }
  });

  test('SQL errors, programming errors and plain values are not', () => {
    assert.equal(dependencyUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' })), false);
    assert.equal(dependencyUnavailable(Object.assign(new Error('syntax'), { code: '42601' })), false);
    assert.equal(dependencyUnavailable(new TypeError('x is undefined')), false);
    assert.equal(dependencyUnavailable('ECONNREFUSED'), false);
    assert.equal(dependencyUnavailable(undefined), false);
    // The cause chain is followed: a wrapped connection exception (class 08) is unavailable.
    const cause = Object.assign(new Error('connection failure'), { code: '08006' });
    assert.equal(dependencyUnavailable(new Error('the launch failed', { cause })), true);
    assert.equal(dependencyUnavailable(Object.assign(new Error('shutting down'), { code: '57P01' })), true);
  });
});

describe('a request while the database is gone', () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await startApi();
    key = (await createOperator(h.base, 'op_unavail')).key;
  });
  after(() => h?.close());

  test('is a 503 with Retry-After and a JSON detail, not a 500', async () => {
    const gone = createPool(`postgres://x:y@127.0.0.1:${await closedPort()}/db`, { max: 1 });
    const server = createApp({ ...h.deps, pool: gone }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      for (const [path, k] of [
        ['/api/operator/v1/transactions', key],
        ['/api/admin/v1/operators/op_unavail', ADMIN_KEY],
      ] as const) {
        const res = await call(base, 'GET', path, { key: k, sign: true });
        assert.equal(res.status, 503, `${path}: ${res.status} ${res.text}`);
        assert.equal(res.headers.get('retry-after'), '2');
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.match(res.json.detail, /unreachable; retry later/);
      }
      // The same request against the working app is answered: the 503 was the database's absence.
      assert.equal(
        (await call(h.base, 'GET', '/api/operator/v1/transactions', { key, sign: true })).status,
        200,
      );
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await gone.end();
    }
  });
});
