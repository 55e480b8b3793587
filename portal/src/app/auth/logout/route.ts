import { NextResponse } from 'next/server';
import { staffApi } from '../../../lib/api';
import { clientIp } from '../../../lib/client-ip';
import { sameOrigin } from '../../../lib/csrf';
import { expiredSessionCookies, portalOrigin, sessionToken } from '../../../lib/session';

/** POST /auth/logout: ends the session at the API and drops the cookie. */
export async function POST(req: Request) {
  if (!sameOrigin(req)) return new NextResponse('Cross-site request refused', { status: 403 });
  const token = await sessionToken();
  if (token) {
    await staffApi('/logout', { method: 'POST', token, clientIp: clientIp(req.headers) }).catch(
      () => undefined,
    );
  }
  const response = NextResponse.redirect(new URL('/login?bye=1', portalOrigin(req.headers)), 303);
  for (const c of expiredSessionCookies()) response.cookies.set(c.name, c.value, c.options);
  return response;
}
