import { staffApi } from './api';
import { sessionToken } from './session';

/**
 * A CSV download through the portal (the reconciliation's and the revenue report's; issue 36
 * point 3): 401 without a session, 404 for an operator id that cannot be one; then the staff API's
 * CSV at `path` with the query `query` makes of the page's parameters (only the known ones, checked
 * as far as the portal can; the API checks the rest). The API's refusal passes through as its JSON;
 * the CSV streams as an attachment, named by the API's `content-disposition` when `apiName` and it
 * sends one, else `filename`.
 */
export async function csvDownload(
  req: Request,
  ctx: { params: Promise<{ operator: string }> },
  csv: {
    /** Under the operator: `/reconciliation.csv`. */
    path: string;
    query: (params: URLSearchParams) => URLSearchParams;
    filename: (operator: string) => string;
    apiName?: boolean;
  },
): Promise<Response> {
  const { operator } = await ctx.params;
  const token = await sessionToken();
  if (!token) return new Response('Not logged in', { status: 401 });
  if (!/^[a-z0-9][a-z0-9_-]{1,63}$/.test(operator)) return new Response('Not found', { status: 404 });
  const q = csv.query(new URL(req.url).searchParams);
  const res = await staffApi(`/operators/${operator}${csv.path}${q.size ? `?${q}` : ''}`, { token });
  if (!res.ok)
    return new Response(await res.text(), {
      status: res.status,
      headers: { 'content-type': 'application/json' },
    });
  const named = csv.apiName ? res.headers.get('content-disposition') : null;
  return new Response(res.body, {
    headers: {
      'content-type': 'text/csv; charset=utf-8; header=present',
      'content-disposition': named ?? `attachment; filename="${csv.filename(operator)}"`,
      'cache-control': 'no-store',
    },
  });
}
