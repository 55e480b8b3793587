import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSecretBox } from './secret-box.js';

const box = createSecretBox('s'.repeat(40));

test('round-trips and never stores the plain text', () => {
  const sealed = box.encrypt('wallet-secret-ü');
  assert.ok(!sealed.includes('wallet-secret'));
  assert.equal(box.decrypt(sealed), 'wallet-secret-ü');
  assert.notEqual(box.encrypt('x'), box.encrypt('x'), 'a fresh IV each time');
});

test('tampering or another service secret fails', () => {
  const sealed = box.encrypt('abc');
  const parts = sealed.split('.');
  parts[2] = Buffer.from('abd').toString('base64url');
  assert.throws(() => box.decrypt(parts.join('.')));
  assert.throws(() => createSecretBox('t'.repeat(40)).decrypt(sealed));
  assert.throws(() => box.decrypt('garbage'));
});

test('lookup hashes are stable, keyed and hex', () => {
  assert.equal(box.lookupHash('k'), box.lookupHash('k'));
  assert.notEqual(box.lookupHash('k'), createSecretBox('t'.repeat(40)).lookupHash('k'));
  assert.match(box.lookupHash('k'), /^[0-9a-f]{64}$/);
  assert.throws(() => createSecretBox('short'), /32 characters/);
});
