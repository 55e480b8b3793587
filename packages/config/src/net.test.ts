import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from './load-config.js';
import {
  AddressSet,
  FORBIDDEN_WALLET_RANGES,
  normalizeIp,
  PRIVATE_RANGES,
  parseCidr,
  resolveClientIp,
} from './net.js';

test('addresses normalise: mapped IPv4, brackets, zones, garbage', () => {
  assert.equal(normalizeIp('::ffff:10.1.2.3'), '10.1.2.3');
  assert.equal(normalizeIp('[FE80::1%eth0]'), 'fe80::1');
  assert.equal(normalizeIp(' 203.0.113.9 '), '203.0.113.9');
  assert.equal(normalizeIp('not-an-ip'), undefined);
  assert.equal(normalizeIp('1.2.3.4, 5.6.7.8'), undefined);
});

test('CIDRs parse exactly; a bad entry is refused by name', () => {
  assert.deepEqual(parseCidr('10.0.0.0/8'), { address: '10.0.0.0', prefix: 8, family: 'ipv4' });
  assert.deepEqual(parseCidr('::1'), { address: '::1', prefix: 128, family: 'ipv6' });
  assert.equal(parseCidr('10.0.0.0/33'), undefined);
  assert.equal(parseCidr('10.0.0.0/8/1'), undefined);
  assert.throws(() => AddressSet.parse('10.0.0.0/8, nope'), /nope/);
  const set = AddressSet.parse('10.0.0.0/8 192.168.1.7,fd00::/8');
  assert.equal(set.size, 3);
  assert.ok(set.has('10.200.0.1'));
  assert.ok(set.has('::ffff:10.0.0.1'));
  assert.ok(set.has('192.168.1.7'));
  assert.ok(!set.has('192.168.1.8'));
  assert.ok(set.has('fd12::1'));
  assert.ok(!set.has('fe80::1'));
  assert.ok(!AddressSet.parse('').has('127.0.0.1'));
});

test('a forwarded address counts only from a trusted proxy, walked from the right', () => {
  const none = AddressSet.parse('');
  const proxies = AddressSet.parse('10.0.0.0/8');
  // No trusted proxies: whatever the client wrote, the socket is the client.
  assert.equal(resolveClientIp('203.0.113.5', '1.1.1.1', none), '203.0.113.5');
  // The peer is not a proxy: its header is its own invention.
  assert.equal(resolveClientIp('203.0.113.5', '1.1.1.1', proxies), '203.0.113.5');
  // A trusted proxy appended the client; a forged entry further left is never read.
  assert.equal(resolveClientIp('10.0.0.2', '6.6.6.6, 198.51.100.7', proxies), '198.51.100.7');
  // Two trusted hops.
  assert.equal(resolveClientIp('10.0.0.2', '198.51.100.7, 10.0.0.3', proxies), '198.51.100.7');
  // Array headers join; a garbage hop stops at the last trusted one.
  assert.equal(resolveClientIp('10.0.0.2', ['198.51.100.7', 'x, 10.0.0.9'], proxies), '10.0.0.9');
  assert.equal(resolveClientIp('::ffff:10.0.0.2', undefined, proxies), '10.0.0.2');
  assert.equal(resolveClientIp(undefined, '1.1.1.1', proxies), undefined);
});

test('wallet ranges: metadata and link-local always, private and loopback apart', () => {
  for (const ip of ['169.254.169.254', 'fe80::1', '100.100.100.200', 'fd00:ec2::254', '0.0.0.0'])
    assert.ok(FORBIDDEN_WALLET_RANGES.has(ip), ip);
  for (const ip of ['127.0.0.1', '::1', '10.1.1.1', '172.20.0.1', '192.168.0.1', 'fd01::1', '100.64.0.1'])
    assert.ok(PRIVATE_RANGES.has(ip) && !FORBIDDEN_WALLET_RANGES.has(ip), ip);
  for (const ip of ['203.0.113.10', '2001:db8::1', '8.8.8.8'])
    assert.ok(!PRIVATE_RANGES.has(ip) && !FORBIDDEN_WALLET_RANGES.has(ip), ip);
});

test('TRUSTED_PROXIES and WALLET_ALLOW_PRIVATE_NETWORKS are read and checked', () => {
  assert.equal(loadConfig({}).TRUSTED_PROXIES, '');
  assert.equal(loadConfig({}).WALLET_ALLOW_PRIVATE_NETWORKS, '0');
  assert.equal(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8' }).TRUSTED_PROXIES, '10.0.0.0/8');
  assert.throws(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/99' }), /TRUSTED_PROXIES/);
  assert.throws(() => loadConfig({ WALLET_ALLOW_PRIVATE_NETWORKS: 'yes' }), /WALLET_ALLOW_PRIVATE/);
});
