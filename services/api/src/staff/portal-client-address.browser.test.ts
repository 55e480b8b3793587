import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { AddressSet, resolveClientIp } from '@opi/config';
import { type Harness, startApi } from '@opi/testkit/harness';
import {
  launchPortal,
  PORTAL_DIR,
  type Portal,
  type PortalOptions,
  startPortal,
} from './test-support/portal.js';
import { createStaffAccount, PORTAL_SECRET } from './test-support/world.js';

// Issue 23 point 1 through the real portal (its production build served by portal/server.mjs, as
// the stack and the image run it) over HTTP, against the real API: the browser's address is the
// portal's socket peer, unless that peer is one of the portal's TRUSTED_PROXIES. A client's own
// X-Forwarded-For neither escapes the 30-per-address login limit nor reaches the audit log.
let h: Harness;
const running: Portal[] = [];
let mona = { username: '', password: '' };

/** The portal (test-support/portal.ts) on a free port; resolves with its origin once it answers. */
async function portalWith(options: Omit<PortalOptions, 'api'>): Promise<string> {
  const portal = await startPortal({ api: h.base, ...options });
  running.push(portal);
  return portal.origin;
}

/** The login form POSTed as a same-origin browser would, with extra headers; the redirect's target. */
async function formLogin(
  origin: string,
  username: string,
  password: string,
  headers: Record<string, string>,
): Promise<string> {
  const res = await fetch(`${origin}/auth/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ username, password }).toString(),
  });
  assert.equal(res.status, 303, await res.text());
  return (
    new URL(res.headers.get('location') ?? '').pathname + new URL(res.headers.get('location') ?? '').search
  );
}

const sessionAddresses = async (username: string) =>
  (
    await h.db.pool.query<{ client_ip: string }>(
      `SELECT s.client_ip FROM staff_sessions s JOIN staff_users u USING (staff_id)
       WHERE u.username = $1 ORDER BY s.created_at`,
      [username],
    )
  ).rows.map((r) => r.client_ip);

const auditAddresses = async (where: string, params: unknown[]) =>
  (
    await h.db.pool.query<{ client_ip: string }>(
      `SELECT DISTINCT client_ip FROM staff_audit_log WHERE action = 'login' AND ${where} ORDER BY 1`,
      params,
    )
  ).rows.map((r) => r.client_ip);

before(async () => {
  h = await startApi({ STAFF_PORTAL_SECRET: PORTAL_SECRET });
  mona = await createStaffAccount(h.base, {
    username: 'mona',
    password: 'mona-password-0001',
    provider_role: 'viewer',
  });
});

after(async () => {
  await Promise.all(running.map((portal) => portal.stop()));
  await h?.close();
});

describe('the portal takes the client address from its socket', () => {
  test('TRUSTED_PROXIES empty: a forged X-Forwarded-For is ignored; 31 logins with a new one each lock the socket address, which the audit log and the session record', async () => {
    const origin = await portalWith({});
    assert.equal(
      await formLogin(origin, mona.username, mona.password, { 'x-forwarded-for': '203.0.113.50' }),
      '/',
    );
    assert.deepEqual(await sessionAddresses('mona'), ['127.0.0.1']);

    for (let i = 0; i < 30; i++) {
      const to = await formLogin(origin, `nobody-${i}`, 'wrong-password-123', {
        'x-forwarded-for': `198.51.100.${i + 1}`,
      });
      assert.equal(to, '/login?error=invalid', `attempt ${i + 1}`);
    }
    const locked = await formLogin(origin, 'nobody-last', 'wrong-password-123', {
      'x-forwarded-for': '198.51.100.200',
    });
    assert.match(locked, /^\/login\?error=locked&retry=\d+$/);
    assert.deepEqual(await auditAddresses(`username LIKE 'nobody-%'`, []), ['127.0.0.1']);
    // The owner, from the same (now locked) address, is refused too: the limit is the address's.
    assert.match(await formLogin(origin, mona.username, mona.password, {}), /error=locked/);
  });

  test("TRUSTED_PROXIES naming the peer (127.0.0.1): the proxy's X-Forwarded-For names the client (right-most untrusted hop)", async () => {
    const origin = await portalWith({ trustedProxies: '127.0.0.1' });
    const to = await formLogin(origin, mona.username, mona.password, {
      'x-forwarded-for': '192.0.2.1, 203.0.113.60',
    });
    assert.equal(to, '/', 'not the locked socket address');
    assert.deepEqual(await sessionAddresses('mona'), ['127.0.0.1', '203.0.113.60']);
    assert.equal(
      await formLogin(origin, mona.username, 'wrong-password-123', { 'x-forwarded-for': '203.0.113.61' }),
      '/login?error=invalid',
    );
    assert.deepEqual(await auditAddresses(`username = 'mona' AND result = 'failed'`, []), ['203.0.113.61']);
  });

  test('a bad TRUSTED_PROXIES stops the portal at start, naming the variable', async () => {
    const portal = await launchPortal({ api: h.base, trustedProxies: '10.0.0.0/8, not-an-address' });
    running.push(portal);
    const code = await portal.exited;
    const stderr = portal.stderr();
    assert.equal(code, 1);
    assert.match(stderr, /TRUSTED_PROXIES: not an address or CIDR: "not-an-address"/);
  });

  test("the portal server's address rules (portal/client-address.mjs) agree with @opi/config's", async () => {
    const portal = (await import(pathToFileURL(path.join(PORTAL_DIR, 'client-address.mjs')).href)) as {
      parseTrustedProxies(text: string): { has(ip: string): boolean };
      resolveClientIp(
        socket: string | undefined,
        xff: string | undefined,
        trusted: unknown,
      ): string | undefined;
    };
    const lists = ['', '127.0.0.1', '10.0.0.0/8, 127.0.0.1', 'fd00::/8 ::1', '192.168.0.0/16,198.51.100.9'];
    const cases: [string | undefined, string | undefined][] = [
      ['127.0.0.1', undefined],
      ['::ffff:127.0.0.1', '203.0.113.1'],
      ['127.0.0.1', '198.51.100.1, 203.0.113.1'],
      ['127.0.0.1', '203.0.113.1, 10.1.2.3'],
      ['10.0.0.5', 'garbage, 10.1.2.3'],
      ['10.0.0.5', '10.9.9.9, 10.1.2.3'],
      ['::1', '2001:db8::1'],
      ['fd00::5', '[2001:db8::2], fd00::7'],
      ['198.51.100.9', '127.0.0.1'],
      [undefined, '203.0.113.1'],
    ];
    for (const list of lists) {
      const ours = AddressSet.parse(list);
      const theirs = portal.parseTrustedProxies(list);
      for (const [socket, xff] of cases) {
        assert.equal(
          portal.resolveClientIp(socket, xff, theirs),
          resolveClientIp(socket, xff, ours),
          `${list} | ${socket} | ${xff}`,
        );
      }
    }
    for (const bad of ['10.0.0.0/33', '1.2.3', '10.0.0.1/8/1', 'host.example']) {
      assert.throws(() => AddressSet.parse(bad));
      assert.throws(() => portal.parseTrustedProxies(bad), /TRUSTED_PROXIES/);
    }
  });
});
