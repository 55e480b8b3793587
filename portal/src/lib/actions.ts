import { NextResponse } from 'next/server';
import { detailOf, staffApi } from './api';
import { clientIp } from './client-ip';
import { sameOrigin } from './csrf';
import { portalOrigin, sessionToken } from './session';

/**
 * A staff action posted by one of the portal's forms (a round's, campaign's or tournament's cancel,
 * a wallet diagnostics run; issue 36 point 3): refused cross-site (403), to the login page without
 * a session, 404 for an operator or record id that cannot be one; then the staff API decides, and
 * the browser goes back to `page` (303) with the result's audit id (`?<param>=<id>`) or the API's
 * refusal (`?error=`, 300 characters at most). The API's 401 ends at the login page.
 */
export async function staffAction(
  req: Request,
  operator: string,
  action: {
    /** Whether the page's other path ids can be records (else 404). */
    idsValid?: boolean;
    /** The page the browser goes back to. */
    page: string;
    /** The API call from the form, or the `?error=` value when the form cannot be sent. */
    call: (form: FormData) => { path: string; body: unknown } | { error: string };
    /** The query parameter that carries the result's audit id. */
    param: 'action' | 'run';
    /** The audit id of the answer's `data`. */
    auditId: (data: Record<string, unknown>) => string;
  },
): Promise<NextResponse> {
  if (!sameOrigin(req)) return new NextResponse('Cross-site request refused', { status: 403 });
  const origin = portalOrigin(req.headers);
  const token = await sessionToken();
  if (!token) return NextResponse.redirect(new URL('/login', origin), 303);
  if (!/^[a-z0-9][a-z0-9_-]{1,63}$/.test(operator) || action.idsValid === false)
    return new NextResponse('Not found', { status: 404 });
  const back = (query: string) => NextResponse.redirect(new URL(`${action.page}${query}`, origin), 303);
  const call = action.call(await req.formData());
  if ('error' in call) return back(`?error=${call.error}`);
  const res = await staffApi(call.path, {
    method: 'POST',
    token,
    body: call.body,
    clientIp: clientIp(req.headers),
  });
  if (res.status === 401) return NextResponse.redirect(new URL('/login?expired=1', origin), 303);
  const json = (await res.json().catch(() => undefined)) as { data?: Record<string, unknown> } | undefined;
  if (!res.ok || !json?.data)
    return back(`?error=${encodeURIComponent(detailOf(json, res.status).slice(0, 300))}`);
  return back(`?${action.param}=${action.auditId(json.data)}`);
}

/** The audit id of a cancel's answer (`{ audit: { audit_id } }`). */
export const cancelAuditId = (data: Record<string, unknown>) => (data.audit as { audit_id: string }).audit_id;

/** A path id that can be a record: 1 to 200 characters, never `.` or `..`. */
export const recordId = (id: string | undefined): id is string =>
  Boolean(id) && id !== '.' && id !== '..' && (id as string).length <= 200;
