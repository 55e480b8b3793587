import { NextResponse } from 'next/server';
import { staffApi } from '../../../lib/api';
import { clientIp } from '../../../lib/client-ip';
import { sameOrigin } from '../../../lib/csrf';
import { isSecure, portalOrigin, sessionCookie } from '../../../lib/session';

/** POST /auth/login: the login form. The API checks the password and the rate limits. */
export async function POST(req: Request) {
  if (!sameOrigin(req)) return new NextResponse('Cross-site request refused', { status: 403 });
  const origin = portalOrigin(req.headers);
  const form = await req.formData();
  const username = String(form.get('username') ?? '').slice(0, 100);
  const password = String(form.get('password') ?? '').slice(0, 256);
  const back = (query: string) => NextResponse.redirect(new URL(`/login${query}`, origin), 303);
  if (!username || !password) return back('?error=missing');
  let res: Response;
  try {
    res = await staffApi('/login', {
      method: 'POST',
      body: { username, password },
      clientIp: clientIp(req.headers),
    });
  } catch {
    return back('?error=unavailable');
  }
  if (res.status === 429) {
    const retry = Number(res.headers.get('retry-after') ?? '0');
    return back(`?error=locked&retry=${Number.isFinite(retry) ? retry : 0}`);
  }
  if (!res.ok)
    return back(res.status === 401 || res.status === 422 ? '?error=invalid' : '?error=unavailable');
  const { data } = (await res.json()) as { data: { token: string } };
  const cookie = sessionCookie(data.token, isSecure(req.headers));
  const response = NextResponse.redirect(new URL('/', origin), 303);
  response.cookies.set(cookie.name, cookie.value, cookie.options);
  return response;
}
