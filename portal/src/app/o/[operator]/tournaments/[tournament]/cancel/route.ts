import { NextResponse } from 'next/server';
import { detailOf, staffApi } from '../../../../../../lib/api';
import { clientIp } from '../../../../../../lib/client-ip';
import { sameOrigin } from '../../../../../../lib/csrf';
import { portalOrigin, sessionToken } from '../../../../../../lib/session';

/** POST /o/{operator}/tournaments/{tournament}/cancel: a provider admin's cancel (the API decides). */
export async function POST(req: Request, ctx: { params: Promise<{ operator: string; tournament: string }> }) {
  if (!sameOrigin(req)) return new NextResponse('Cross-site request refused', { status: 403 });
  const { operator, tournament } = await ctx.params;
  const origin = portalOrigin(req.headers);
  const token = await sessionToken();
  if (!token) return NextResponse.redirect(new URL('/login', origin), 303);
  if (!/^[a-z0-9][a-z0-9_-]{1,63}$/.test(operator) || !/^[a-z0-9][a-z0-9_-]{0,62}$/.test(tournament))
    return new NextResponse('Not found', { status: 404 });
  const page = `/o/${operator}/tournaments/${tournament}`;
  const back = (query: string) => NextResponse.redirect(new URL(`${page}${query}`, origin), 303);
  const form = await req.formData();
  const reason = String(form.get('reason') ?? '').trim();
  const res = await staffApi(`/operators/${operator}/tournaments/${tournament}/cancel`, {
    method: 'POST',
    token,
    body: reason ? { reason } : {},
    clientIp: clientIp(req.headers),
  });
  if (res.status === 401) return NextResponse.redirect(new URL('/login?expired=1', origin), 303);
  const json = (await res.json().catch(() => undefined)) as
    | { data?: { audit: { audit_id: string } } }
    | undefined;
  if (!res.ok || !json?.data)
    return back(`?error=${encodeURIComponent(detailOf(json, res.status).slice(0, 300))}`);
  return back(`?action=${json.data.audit.audit_id}`);
}
