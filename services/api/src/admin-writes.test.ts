import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { loadConfig } from '@opi/config';
import { createSecretBox, ensureBootstrapAdminKey } from '@opi/db';
import { createTestDatabase, type TestDatabase } from '@opi/db/testing';
import { ADMIN_KEY, assign, call, createOperator, SERVICE_SECRET } from '@opi/testkit/harness';
import { createApp } from './app.js';
import { seedCatalog } from './catalog/seed.js';
import { createDeps } from './create-deps.js';

/*
 * Read-your-own-writes in the process that took the admin write: its caches must not wait for the
 * NOTIFY round trip. Notifications are cut off here (the feed stays healthy, so the caches stay
 * on), which makes the old race deterministic: a revoked key used to keep working until the
 * NOTIFY arrived.
 */

let db: TestDatabase;
let server: Server;
let base: string;
let closeDeps: () => Promise<void>;

before(async () => {
  db = await createTestDatabase();
  const deps = await createDeps(
    loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, SERVICE_SECRET, LOG_LEVEL: 'silent' }),
  );
  closeDeps = deps.close;
  await seedCatalog(deps.pool);
  await ensureBootstrapAdminKey(deps.pool, createSecretBox(SERVICE_SECRET), ADMIN_KEY);
  assert.equal(deps.feed.healthy, true);
  // The LISTEN connection stays up (caches on) but no NOTIFY is ever seen by this process.
  (deps.listener as unknown as { client: { removeAllListeners(e: string): void } }).client.removeAllListeners(
    'notification',
  );
  server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await closeDeps();
  await db.drop();
});

const games = (key: string) => call(base, 'GET', '/api/provider/v1/games', { key });

test('a revoked key is refused on the very next request', async () => {
  const op = await createOperator(base, 'op_ryw');
  await assign(base, 'op_ryw', ['vs20emberfox']);
  assert.equal((await games(op.key)).status, 200); // now cached
  const del = await call(base, 'DELETE', `/api/admin/v1/api-keys/${op.keyId}`, { key: ADMIN_KEY });
  assert.equal(del.status, 200);
  assert.equal((await games(op.key)).status, 401);
});

test('deactivation and unassignment show at once', async () => {
  const op = await createOperator(base, 'op_ryw2');
  await assign(base, 'op_ryw2', ['vs20emberfox']);
  assert.deepEqual(
    (await games(op.key)).json.data.items.map((g: { symbol: string }) => g.symbol),
    ['vs20emberfox'],
  );
  await call(base, 'DELETE', '/api/admin/v1/operators/op_ryw2/games/vs20emberfox', { key: ADMIN_KEY });
  assert.deepEqual((await games(op.key)).json.data.items, []);
  await call(base, 'PATCH', '/api/admin/v1/operators/op_ryw2', {
    key: ADMIN_KEY,
    body: { status: 'inactive' },
  });
  assert.equal((await games(op.key)).status, 403);
});
