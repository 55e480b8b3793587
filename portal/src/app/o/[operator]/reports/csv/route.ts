import { staffApi } from '../../../../../lib/api';
import { sessionToken } from '../../../../../lib/session';

const GROUPS = ['day_title_currency', 'day', 'title', 'currency'];

/**
 * GET /o/{operator}/reports/csv: the API's revenue report CSV (the operator API's own, byte for byte)
 * for the chosen period, currency and grouping, as a download.
 */
export async function GET(req: Request, ctx: { params: Promise<{ operator: string }> }) {
  const { operator } = await ctx.params;
  const token = await sessionToken();
  if (!token) return new Response('Not logged in', { status: 401 });
  if (!/^[a-z0-9][a-z0-9_-]{1,63}$/.test(operator)) return new Response('Not found', { status: 404 });
  const url = new URL(req.url);
  const q = new URLSearchParams();
  const from = url.searchParams.get('from') ?? '';
  const to = url.searchParams.get('to') ?? '';
  const currency = url.searchParams.get('currency');
  const group = url.searchParams.get('group_by');
  // The API checks the values (422 with the field); only the known parameters are passed on.
  q.set('from', from);
  q.set('to', to);
  if (currency) q.set('currency', currency);
  if (group && GROUPS.includes(group)) q.set('group_by', group);
  const res = await staffApi(`/operators/${operator}/reports/revenue.csv?${q}`, { token });
  if (!res.ok)
    return new Response(await res.text(), {
      status: res.status,
      headers: { 'content-type': 'application/json' },
    });
  return new Response(res.body, {
    headers: {
      'content-type': 'text/csv; charset=utf-8; header=present',
      'content-disposition':
        res.headers.get('content-disposition') ?? `attachment; filename="revenue-${operator}.csv"`,
      'cache-control': 'no-store',
    },
  });
}
