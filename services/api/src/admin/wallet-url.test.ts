import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';
import { createStaffAccount, login, staffCall } from '../staff/test-support/world.js';

// Issue 23 point 5: operators' wallet URLs cannot reach inside. Link-local and metadata addresses
// are refused always; loopback and private ones in production unless WALLET_ALLOW_PRIVATE_NETWORKS=1;
// HTTPS in production. Checked when written (422) and when connecting (diagnostics: 409, nothing sent).

const ALWAYS_REFUSED = [
  'http://169.254.169.254/',
  'http://[fe80::1]/',
  'http://100.100.100.200/latest',
  'http://[fd00:ec2::254]/',
  'http://[::ffff:169.254.169.254]/',
  'http://2852039166/',
  'https://169.254.169.254/wallet',
];

async function create(h: Harness, id: string, url: string) {
  return call(h.base, 'POST', '/api/admin/v1/operators', {
    key: ADMIN_KEY,
    sign: true,
    body: { operator_id: id, name: id, wallet_base_url: url },
  });
}
async function update(h: Harness, id: string, url: string) {
  return call(h.base, 'PATCH', `/api/admin/v1/operators/${id}`, {
    key: ADMIN_KEY,
    sign: true,
    body: { wallet_base_url: url },
  });
}
function assert422(res: { status: number; json: any; text: string }, msg: RegExp) {
  assert.equal(res.status, 422, res.text);
  const detail = res.json.detail.find((d: { loc: string[] }) => d.loc.join('.') === 'body.wallet_base_url');
  assert.ok(detail, res.text);
  assert.match(detail.msg, msg);
}

describe('development and test (loopback allowed)', () => {
  let h: Harness;
  before(async () => {
    h = await startApi();
  });
  after(async () => {
    await h.close();
  });

  test('link-local and metadata URLs are refused on create and on update', async () => {
    await createOperator(h.base, 'op_wurl_dev');
    for (const [i, url] of ALWAYS_REFUSED.entries()) {
      assert422(await create(h, `op_wurl_bad_${i}`, url), /link-local or cloud metadata/);
      assert422(await update(h, 'op_wurl_dev', url), /link-local or cloud metadata/);
    }
    const got = await call(h.base, 'GET', '/api/admin/v1/operators/op_wurl_dev', {
      key: ADMIN_KEY,
      sign: true,
    });
    assert.equal(got.json.data.wallet_base_url, 'http://127.0.0.1:9/wallet');
    const missing = await call(h.base, 'GET', '/api/admin/v1/operators/op_wurl_bad_0', {
      key: ADMIN_KEY,
      sign: true,
    });
    assert.equal(missing.status, 404);
  });

  test('loopback and private wallets stay allowed outside production (the sandbox wallet)', async () => {
    for (const url of ['http://127.0.0.1:8090/wallet', 'http://localhost:8090/wallet', 'http://10.0.0.5/w']) {
      const res = await update(h, 'op_wurl_dev', url);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.data.wallet_base_url, url);
    }
  });
});

describe('production without WALLET_ALLOW_PRIVATE_NETWORKS', () => {
  let h: Harness;
  let wallet: http.Server;
  let walletRequests = 0;
  before(async () => {
    h = await startApi({ NODE_ENV: 'production', GAME_BASE_URL: 'https://games.test' });
    wallet = http.createServer((_req, res) => {
      walletRequests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"balance":"100.00"}');
    });
    await new Promise<void>((r) => wallet.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    wallet.closeAllConnections();
    wallet.close();
    await h.close();
  });

  test('HTTPS is required, loopback and private addresses (and names for them) are refused', async () => {
    assert422(await create(h, 'op_wurl_http', 'http://wallet.example/w'), /https/);
    for (const [i, url] of [
      'https://127.0.0.1/wallet',
      'https://[::1]:8443/wallet',
      'https://10.1.2.3/wallet',
      'https://192.168.0.10/wallet',
      'https://localhost:8443/wallet',
    ].entries())
      assert422(
        await create(h, `op_wurl_prv_${i}`, url),
        /private-network address, refused in production unless WALLET_ALLOW_PRIVATE_NETWORKS=1/,
      );
    for (const [i, url] of ALWAYS_REFUSED.filter((u) => u.startsWith('https')).entries())
      assert422(await create(h, `op_wurl_md_${i}`, url), /link-local or cloud metadata/);
    const ok = await create(h, 'op_wurl_prod', 'https://wallet.invalid/wallet');
    assert.equal(ok.status, 201, ok.text);
    assert422(await update(h, 'op_wurl_prod', 'https://127.0.0.1/wallet'), /private-network/);
  });

  test('connect time: diagnostics refuse a stored wallet URL whose name resolves to loopback; nothing is sent', async () => {
    // Stored before the policy applied (or a DNS answer that changed): the connection is refused.
    const port = (wallet.address() as AddressInfo).port;
    await h.deps.pool.query(`UPDATE operators SET wallet_base_url = $2 WHERE operator_id = $1`, [
      'op_wurl_prod',
      `https://localhost:${port}/wallet`,
    ]);
    const staff = await createStaffAccount(h.base, {
      username: 'wurl.admin',
      display_name: 'Wallet URL Admin',
      provider_role: 'admin',
      password: 'provider-password-1234',
    });
    const token = await login(h.base, staff);
    const res = await staffCall(h.base, token, 'POST', '/operators/op_wurl_prod/wallet-diagnostics', {
      player_id: 'diag-player',
      currency: 'USD',
    });
    assert.equal(res.status, 409, res.text);
    assert.match(res.text, /wallet URL is refused, nothing was sent/);
    assert.match(res.text, /localhost \(127\.0\.0\.1\) refused: a loopback or private-network address/);
    assert.equal(walletRequests, 0);
  });
});

describe('production with WALLET_ALLOW_PRIVATE_NETWORKS=1', () => {
  let h: Harness;
  before(async () => {
    h = await startApi({
      NODE_ENV: 'production',
      GAME_BASE_URL: 'https://games.test',
      WALLET_ALLOW_PRIVATE_NETWORKS: '1',
    });
  });
  after(async () => {
    await h.close();
  });

  test('loopback and private HTTPS wallets are accepted; metadata addresses and HTTP still refused', async () => {
    const ok = await create(h, 'op_wurl_allow', 'https://127.0.0.1:8190/wallet');
    assert.equal(ok.status, 201, ok.text);
    assert.equal((await update(h, 'op_wurl_allow', 'https://10.1.2.3/wallet')).status, 200);
    assert422(await update(h, 'op_wurl_allow', 'https://[fe80::1]/wallet'), /link-local or cloud metadata/);
    assert422(await update(h, 'op_wurl_allow', 'http://127.0.0.1:8190/wallet'), /https/);
  });
});
