import { staffApi } from '../../../../../lib/api';
import { utcInput } from '../../../../../lib/format';
import { sessionToken } from '../../../../../lib/session';

/** GET /o/{operator}/reconciliation/csv: the API's reconciliation CSV for the chosen window, as a download. */
export async function GET(req: Request, ctx: { params: Promise<{ operator: string }> }) {
  const { operator } = await ctx.params;
  const token = await sessionToken();
  if (!token) return new Response('Not logged in', { status: 401 });
  if (!/^[a-z0-9][a-z0-9_-]{1,63}$/.test(operator)) return new Response('Not found', { status: 404 });
  const url = new URL(req.url);
  const q = new URLSearchParams();
  const from = utcInput(url.searchParams.get('from') ?? undefined);
  const to = utcInput(url.searchParams.get('to') ?? undefined);
  const currency = url.searchParams.get('currency');
  if (from) q.set('from', from);
  if (to) q.set('to', to);
  if (currency && /^[A-Z]{3}$/.test(currency)) q.set('currency', currency);
  const res = await staffApi(`/operators/${operator}/reconciliation.csv${q.size ? `?${q}` : ''}`, { token });
  if (!res.ok)
    return new Response(await res.text(), {
      status: res.status,
      headers: { 'content-type': 'application/json' },
    });
  return new Response(res.body, {
    headers: {
      'content-type': 'text/csv; charset=utf-8; header=present',
      'content-disposition': `attachment; filename="reconciliation-${operator}.csv"`,
      'cache-control': 'no-store',
    },
  });
}
