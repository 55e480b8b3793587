import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadOrCreateSecrets, saveSecrets } from './secrets.js';

/*
 * Issue 34 point 9: DATA_DIR/secrets.json holds what the stack generated, never a secret the
 * environment gave (SERVICE_SECRET, PROVIDER_ADMIN_KEY, STAFF_PORTAL_SECRET, REPLAY_LINK_SECRET),
 * also after the first start writes it again with the demo operator's key (stack.ts does exactly
 * this: loadOrCreateSecrets, then saveSecrets once the key exists). The cluster stack's test
 * checks the same file after a real start with secrets in its environment.
 */
let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'opi-secrets-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const ENV = {
  SERVICE_SECRET: 'env-service-secret-0123456789abcdefghijklmnop',
  PROVIDER_ADMIN_KEY: 'padm_env_admin_key_0123456789abcdefghijklmnop',
  STAFF_PORTAL_SECRET: 'env-staff-portal-secret-0123456789abcdefghij',
  REPLAY_LINK_SECRET: 'env-replay-link-secret-0123456789abcdefghijk',
};
const fileOf = (d: string) => JSON.parse(readFileSync(path.join(d, 'secrets.json'), 'utf8'));

test('secrets given in the environment are used and never written; what the stack generates is kept', async () => {
  const d = path.join(dir, 'env');
  const first = await loadOrCreateSecrets(d, ENV);
  assert.equal(first.serviceSecret, ENV.SERVICE_SECRET);
  assert.equal(first.providerAdminKey, ENV.PROVIDER_ADMIN_KEY);
  assert.equal(first.staffPortalSecret, ENV.STAFF_PORTAL_SECRET);
  assert.equal(first.replayLinkSecret, ENV.REPLAY_LINK_SECRET);
  // The first start writes the file again once the demo operator's key exists.
  first.demoOperatorKey = 'opk_demo_key_for_the_test';
  await saveSecrets(first);
  const written = fileOf(d);
  assert.deepEqual(Object.keys(written).sort(), [
    'demoOperatorKey',
    'demoStaffPassword',
    'demoWalletSecret',
    'walletAdminToken',
  ]);
  const text = readFileSync(path.join(d, 'secrets.json'), 'utf8');
  for (const value of Object.values(ENV)) assert.ok(!text.includes(value), 'no environment secret on disk');
  assert.equal(statSync(path.join(d, 'secrets.json')).mode & 0o777, 0o600);

  // A second start reuses what was generated, and the environment still wins.
  const second = await loadOrCreateSecrets(d, ENV);
  assert.equal(second.walletAdminToken, written.walletAdminToken);
  assert.equal(second.demoOperatorKey, 'opk_demo_key_for_the_test');
  assert.equal(second.demoStaffPasswordGenerated, false);
  assert.equal(second.serviceSecret, ENV.SERVICE_SECRET);
  assert.deepEqual(fileOf(d), written);
});

test('without the environment the stack generates each secret once and keeps it; an env value never replaces it on disk', async () => {
  const d = path.join(dir, 'generated');
  const first = await loadOrCreateSecrets(d, {});
  assert.match(first.providerAdminKey, /^padm_/);
  const written = fileOf(d);
  for (const k of ['serviceSecret', 'providerAdminKey', 'staffPortalSecret', 'replayLinkSecret'])
    assert.equal(written[k], (first as unknown as Record<string, string>)[k], k);
  // Given later in the environment: used, and the generated one stays in the file untouched.
  const later = await loadOrCreateSecrets(d, { PROVIDER_ADMIN_KEY: ENV.PROVIDER_ADMIN_KEY });
  assert.equal(later.providerAdminKey, ENV.PROVIDER_ADMIN_KEY);
  await saveSecrets(later);
  assert.deepEqual(fileOf(d), written);
});

test('without the demo (STACK_DEMO), no demo secret is made', async () => {
  const d = path.join(dir, 'nodemo');
  const s = await loadOrCreateSecrets(d, {}, { demo: false });
  assert.equal(s.demoStaffPassword, undefined);
  assert.equal(s.demoWalletSecret, undefined);
  assert.equal(s.demoStaffPasswordGenerated, false);
  assert.deepEqual(Object.keys(fileOf(d)).sort(), [
    'providerAdminKey',
    'replayLinkSecret',
    'serviceSecret',
    'staffPortalSecret',
    'walletAdminToken',
  ]);
  // A file from an earlier start with the demo keeps its demo secrets.
  await writeFile(path.join(d, 'secrets.json'), JSON.stringify({ ...fileOf(d), demoOperatorKey: 'opk_x' }));
  await loadOrCreateSecrets(d, {}, { demo: false });
  assert.equal(fileOf(d).demoOperatorKey, 'opk_x');
});
