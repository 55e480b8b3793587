import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BOOTSTRAP_ADMIN_KEY_ID, bootstrapAdminKeyState, ensureBootstrapAdminKey } from './bootstrap.js';
import { createSecretBox } from './secret-box.js';
import { createTestDatabase, type TestDatabase } from './testing.js';

// Issue 23, point 4: every deploy runs the bootstrap with PROVIDER_ADMIN_KEY. It used to set
// revoked_at = NULL on the bootstrap key, so a leaked key revoked through the admin API came back
// on the next restart. The same key now stays revoked; a new key still replaces it (rotation).
let db: TestDatabase;
const box = createSecretBox('bootstrap-test-service-secret-0123456789');
const KEY_A = 'padm_bootstrap_test_key_a_0123456789abcdef';
const KEY_B = 'padm_bootstrap_test_key_b_0123456789abcdef';

before(async () => {
  db = await createTestDatabase();
});
after(() => db.drop());

async function row() {
  const { rows } = await db.pool.query<{ key_hash: string; revoked: boolean }>(
    'SELECT key_hash, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE key_id = $1',
    [BOOTSTRAP_ADMIN_KEY_ID],
  );
  return rows[0];
}

test('a revoked bootstrap key stays revoked through every later bootstrap; a new key replaces it', async () => {
  assert.equal(await ensureBootstrapAdminKey(db.pool, box, KEY_A), 'active');
  assert.equal(await ensureBootstrapAdminKey(db.pool, box, KEY_A), 'active', 'idempotent');
  assert.deepEqual(await row(), { key_hash: box.lookupHash(KEY_A), revoked: false });

  // Revoked as the admin API revokes a key (services/api/src/auth/keys.ts).
  await db.pool.query('UPDATE api_keys SET revoked_at = now() WHERE key_id = $1 AND revoked_at IS NULL', [
    BOOTSTRAP_ADMIN_KEY_ID,
  ]);
  // The next deploys with the same PROVIDER_ADMIN_KEY: still revoked, and they say so.
  for (let deploy = 0; deploy < 2; deploy++) {
    assert.equal(await ensureBootstrapAdminKey(db.pool, box, KEY_A), 'revoked');
    assert.deepEqual(await row(), { key_hash: box.lookupHash(KEY_A), revoked: true });
  }
  // What the API's key lookup sees: no active key with that hash.
  const active = await db.pool.query('SELECT 1 FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [
    box.lookupHash(KEY_A),
  ]);
  assert.equal(active.rowCount, 0);

  // Rotation: a new PROVIDER_ADMIN_KEY replaces the revoked one and is active.
  assert.equal(await ensureBootstrapAdminKey(db.pool, box, KEY_B), 'active');
  assert.deepEqual(await row(), { key_hash: box.lookupHash(KEY_B), revoked: false });
  assert.equal(await bootstrapAdminKeyState(db.pool, box, KEY_A), 'absent');
  assert.equal(await bootstrapAdminKeyState(db.pool, box, KEY_B), 'active');
});
