import { cookies } from 'next/headers';
import { env } from './env';

/*
 * The staff session: the API's session token in an httpOnly, SameSite=Strict cookie (Secure and
 * `__Host-` prefixed when the portal is served over https). The browser never sees it in script.
 */
const SECURE_COOKIE = '__Host-opi_staff';
const PLAIN_COOKIE = 'opi_staff';
/** The API ends a session after 12 hours at the most; the cookie goes with it. */
export const SESSION_MAX_AGE_SECONDS = 12 * 3600;

/**
 * The portal's own origin: `configured` (PORTAL_PUBLIC_URL), else the scheme and host the request
 * came to (https when a TLS-terminating proxy says so in X-Forwarded-Proto).
 */
export function originOf(headers: Headers, configured: string | undefined): string {
  if (configured) return new URL(configured).origin;
  const proto = headers.get('x-forwarded-proto') === 'https' ? 'https' : 'http';
  return `${proto}://${headers.get('host') ?? '127.0.0.1'}`;
}

/** The portal's own origin as this process is configured. */
export function portalOrigin(headers: Headers): string {
  return originOf(headers, env().PORTAL_PUBLIC_URL);
}

export function isSecure(headers: Headers): boolean {
  return portalOrigin(headers).startsWith('https:');
}

export function cookieName(secure: boolean): string {
  return secure ? SECURE_COOKIE : PLAIN_COOKIE;
}

/** The session token from the request's cookie (either name), or undefined. */
export async function sessionToken(): Promise<string | undefined> {
  const jar = await cookies();
  return jar.get(SECURE_COOKIE)?.value ?? jar.get(PLAIN_COOKIE)?.value;
}

export function sessionCookie(token: string, secure: boolean) {
  return {
    name: cookieName(secure),
    value: token,
    options: {
      httpOnly: true,
      secure,
      sameSite: 'strict' as const,
      path: '/',
      maxAge: SESSION_MAX_AGE_SECONDS,
    },
  };
}

export const ALL_COOKIE_NAMES = [SECURE_COOKIE, PLAIN_COOKIE];

/**
 * What logout sets to drop both cookies. A browser ignores a `__Host-` cookie, its removal
 * included, unless it is Secure with Path=/, so that one is dropped with the same attributes.
 */
export function expiredSessionCookies() {
  return ALL_COOKIE_NAMES.map((name) => ({
    name,
    value: '',
    options: {
      path: '/',
      secure: name === SECURE_COOKIE,
      httpOnly: true,
      sameSite: 'strict' as const,
      expires: new Date(0),
      maxAge: 0,
    },
  }));
}
