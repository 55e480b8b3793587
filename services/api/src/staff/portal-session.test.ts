import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The staff portal's session-cookie decision (portal/src/lib/session.ts) as pure functions: which
// name and attributes the cookie gets for a request, plain HTTP or https (PORTAL_PUBLIC_URL, or a
// TLS-terminating proxy's X-Forwarded-Proto), and what logout sets to drop it. The same cookies
// over HTTP from the real portal are in portal.browser.test.ts.
const SESSION_TS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../portal/src/lib/session.ts',
);

interface CookieSpec {
  name: string;
  value: string;
  options: {
    httpOnly: boolean;
    secure: boolean;
    sameSite: string;
    path: string;
    maxAge: number;
    expires?: Date;
  };
}

/** What portal/src/lib/session.ts exports (loaded at run time: it is the portal's, not this package's). */
interface SessionModule {
  originOf(headers: Headers, configured: string | undefined): string;
  portalOrigin(headers: Headers): string;
  isSecure(headers: Headers): boolean;
  cookieName(secure: boolean): string;
  sessionCookie(token: string, secure: boolean): CookieSpec;
  expiredSessionCookies(): CookieSpec[];
  SESSION_MAX_AGE_SECONDS: number;
}

let s: SessionModule;

before(async () => {
  // The portal reads its environment once; this process runs it without a public URL.
  delete process.env.PORTAL_PUBLIC_URL;
  s = (await import(pathToFileURL(SESSION_TS).href)) as SessionModule;
});

const req = (headers: Record<string, string>) => new Headers({ host: '127.0.0.1:3000', ...headers });

describe('portal session cookie', () => {
  test('the origin: PORTAL_PUBLIC_URL when set, else the request host, https only when the proxy says so', () => {
    assert.equal(s.originOf(req({}), 'https://staff.example.com/some/path'), 'https://staff.example.com');
    assert.equal(
      s.originOf(req({ 'x-forwarded-proto': 'http' }), 'https://staff.example.com'),
      'https://staff.example.com',
      'the configured origin wins over the forwarded scheme',
    );
    assert.equal(
      s.originOf(req({ 'x-forwarded-proto': 'https' }), 'http://staff.internal:3000'),
      'http://staff.internal:3000',
    );
    assert.equal(s.originOf(req({}), undefined), 'http://127.0.0.1:3000');
    assert.equal(s.originOf(req({ 'x-forwarded-proto': 'https' }), undefined), 'https://127.0.0.1:3000');
    assert.equal(s.originOf(new Headers(), undefined), 'http://127.0.0.1');
    // This process has no PORTAL_PUBLIC_URL: the request decides.
    assert.equal(s.isSecure(req({})), false);
    assert.equal(s.isSecure(req({ 'x-forwarded-proto': 'https' })), true);
    assert.equal(s.portalOrigin(req({ 'x-forwarded-proto': 'https' })), 'https://127.0.0.1:3000');
  });

  test('https: __Host-opi_staff, Secure, HttpOnly, SameSite=Strict, Path=/, no Domain, 12 hours', () => {
    const c = s.sessionCookie('stf_token', true);
    assert.equal(c.name, '__Host-opi_staff');
    assert.equal(s.cookieName(true), '__Host-opi_staff');
    assert.equal(c.value, 'stf_token');
    assert.deepEqual(c.options, {
      httpOnly: true,
      secure: true,
      sameSite: 'strict',
      path: '/',
      maxAge: 12 * 3600,
    });
    assert.equal(s.SESSION_MAX_AGE_SECONDS, 12 * 3600, 'the API ends a session after 12 hours at the most');
  });

  test('plain HTTP (development): opi_staff without Secure (a browser would drop it), still HttpOnly and Strict', () => {
    const c = s.sessionCookie('stf_token', false);
    assert.equal(c.name, 'opi_staff');
    assert.equal(s.cookieName(false), 'opi_staff');
    assert.deepEqual(c.options, {
      httpOnly: true,
      secure: false,
      sameSite: 'strict',
      path: '/',
      maxAge: 12 * 3600,
    });
  });

  test('logout drops both names; the __Host- one with Secure and Path=/, or a browser ignores the removal', () => {
    const gone = s.expiredSessionCookies();
    assert.deepEqual(
      gone.map((c) => c.name),
      ['__Host-opi_staff', 'opi_staff'],
    );
    for (const c of gone) {
      assert.equal(c.value, '');
      assert.equal(c.options.path, '/');
      assert.equal(c.options.maxAge, 0);
      assert.equal(c.options.expires?.getTime(), 0);
    }
    assert.equal(gone[0]!.options.secure, true);
    assert.equal(gone[1]!.options.secure, false);
  });
});
