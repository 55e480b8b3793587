import assert from 'node:assert/strict';
import type dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import {
  guardedLookup,
  WALLET_ADDRESS_REFUSED,
  walletAddressRefusal,
  walletUrlRefusal,
} from './address-policy.js';
import { sendWalletCallback } from './send.js';

const STRICT = { allowPrivate: false };
const PERMISSIVE = { allowPrivate: true };

test('link-local and metadata addresses are refused under any policy, in every spelling', () => {
  for (const ip of [
    '169.254.169.254',
    '169.254.0.1',
    'fe80::1',
    'FE80::abcd',
    '100.100.100.200',
    'fd00:ec2::254',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
    '0.0.0.0',
    '::',
  ]) {
    assert.match(walletAddressRefusal(ip, PERMISSIVE) ?? '', /link-local or cloud metadata/, ip);
    assert.match(walletAddressRefusal(ip, STRICT) ?? '', /link-local or cloud metadata/, ip);
  }
});

test('loopback and private networks are refused only when the policy says so', () => {
  for (const ip of [
    '127.0.0.1',
    '::1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    'fd12::1',
    '::ffff:10.0.0.1',
  ]) {
    assert.equal(walletAddressRefusal(ip, PERMISSIVE), undefined, ip);
    assert.match(walletAddressRefusal(ip, STRICT) ?? '', /WALLET_ALLOW_PRIVATE_NETWORKS=1/, ip);
  }
  for (const ip of ['93.184.216.34', '2606:2800:220:1::1', '8.8.8.8'])
    assert.equal(walletAddressRefusal(ip, STRICT), undefined, ip);
});

test('the URL check at write time: HTTPS in production, literal and localhost hosts, names resolved', async () => {
  const prod = { ...STRICT, requireHttps: true };
  assert.match((await walletUrlRefusal('http://wallet.example/w', prod)) ?? '', /https/);
  assert.match((await walletUrlRefusal('https://2852039166/w', prod)) ?? '', /169\.254\.169\.254/);
  assert.match((await walletUrlRefusal('https://[fe80::1]/w', prod)) ?? '', /fe80::1/);
  assert.match(
    (await walletUrlRefusal('https://localhost:8443/w', prod)) ?? '',
    /localhost \(127\.0\.0\.1\)/,
  );
  assert.match((await walletUrlRefusal('https://x.localhost/w', prod)) ?? '', /refused/);
  // A name that does not resolve now is accepted: every connection is checked again.
  assert.equal(await walletUrlRefusal('https://wallet.invalid/w', prod), undefined);
  const allowed = { ...PERMISSIVE, requireHttps: true };
  assert.equal(await walletUrlRefusal('https://127.0.0.1:8443/w', allowed), undefined);
  assert.match((await walletUrlRefusal('https://169.254.169.254/w', allowed)) ?? '', /metadata/);
});

/** A resolver that answers every name with these addresses (a DNS answer that changed). */
function resolverAnswering(addresses: dns.LookupAddress[]): typeof dns.lookup {
  return ((_host: string, _opts: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) => {
    setImmediate(() => cb(null, addresses));
  }) as unknown as typeof dns.lookup;
}

test('the connect-time lookup refuses a name that now resolves to a refused address', async () => {
  const lookup = guardedLookup(PERMISSIVE, resolverAnswering([{ address: '169.254.169.254', family: 4 }]));
  const seen: unknown[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url);
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const port = (server.address() as AddressInfo).port;
    const err = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      const req = http.request({ host: 'wallet.example', port, method: 'POST', lookup }, () =>
        reject(new Error('connected')),
      );
      req.on('error', resolve);
      req.end();
    });
    assert.equal(err.code, WALLET_ADDRESS_REFUSED);
    assert.match(err.message, /wallet address wallet\.example \(169\.254\.169\.254\) refused/);

    // One refused address among several refuses the name; an allowed answer connects.
    const mixed = guardedLookup(
      PERMISSIVE,
      resolverAnswering([
        { address: '127.0.0.1', family: 4 },
        { address: 'fe80::1', family: 6 },
      ]),
    );
    await new Promise<void>((resolve, reject) => {
      mixed('wallet.example', { all: true }, (e) =>
        e?.code === WALLET_ADDRESS_REFUSED ? resolve() : reject(e),
      );
    });
    const ok = guardedLookup(PERMISSIVE, resolverAnswering([{ address: '127.0.0.1', family: 4 }]));
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: 'wallet.example', port, path: '/x', lookup: ok }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 200);
    assert.deepEqual(seen, ['/x']);
  } finally {
    server.close();
  }
});

test('sendWalletCallback: a refused address is a configuration fault without an HTTP status, nothing sent', async () => {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.end('{"success":true,"balance":"1"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  try {
    for (const baseUrl of [`http://127.0.0.1:${port}/wallet`, `http://localhost:${port}/wallet`]) {
      const outcome = await sendWalletCallback({
        baseUrl,
        operation: 'balance',
        secret: 'wsec_test_secret_0123456789',
        body: '{"operator_id":"op_x"}',
        requestId: 'r1',
        timeoutMs: 2000,
        network: STRICT,
      });
      assert.equal(outcome.kind, 'config_fault', baseUrl);
      assert.equal(outcome.kind === 'config_fault' && outcome.error, 'wallet_address_refused');
      assert.equal('httpStatus' in outcome ? outcome.httpStatus : undefined, undefined);
    }
    assert.equal(hits, 0);
    const allowed = await sendWalletCallback({
      baseUrl: `http://localhost:${port}/wallet`,
      operation: 'balance',
      secret: 'wsec_test_secret_0123456789',
      body: '{"operator_id":"op_x"}',
      requestId: 'r2',
      timeoutMs: 2000,
      network: PERMISSIVE,
    });
    assert.equal(allowed.kind, 'success');
    assert.equal(hits, 1);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('answers are remembered per address and policy: asked again, in either order, they stay the same', () => {
  for (let i = 0; i < 3; i++) {
    assert.match(walletAddressRefusal('10.9.8.7', STRICT) ?? '', /WALLET_ALLOW_PRIVATE_NETWORKS=1/);
    assert.equal(walletAddressRefusal('10.9.8.7', PERMISSIVE), undefined);
    assert.match(walletAddressRefusal('169.254.169.254', PERMISSIVE) ?? '', /cloud metadata/);
    assert.equal(walletAddressRefusal('not-an-ip', PERMISSIVE), 'not an address');
  }
  // Past the memory's bound it starts again and still answers the same.
  for (let i = 0; i < 1100; i++) walletAddressRefusal(`203.0.113.${i % 256}`, { allowPrivate: i % 2 === 0 });
  assert.match(walletAddressRefusal('10.9.8.7', STRICT) ?? '', /WALLET_ALLOW_PRIVATE_NETWORKS=1/);
});
