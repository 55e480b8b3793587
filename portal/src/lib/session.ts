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

/** The portal's own origin: PORTAL_PUBLIC_URL, else the scheme and host the request came to. */
export function portalOrigin(headers: Headers): string {
  const configured = env().PORTAL_PUBLIC_URL;
  if (configured) return new URL(configured).origin;
  const proto = headers.get('x-forwarded-proto') === 'https' ? 'https' : 'http';
  return `${proto}://${headers.get('host') ?? '127.0.0.1'}`;
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
