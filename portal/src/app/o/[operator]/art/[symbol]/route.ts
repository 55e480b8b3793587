import { env } from '../../../../../lib/env';
import { sessionToken } from '../../../../../lib/session';

/**
 * GET /o/{operator}/art/{symbol}: a title's artwork through the portal (the API's public artwork
 * route with the operator's format preference), so the page needs no other origin.
 */
export async function GET(_req: Request, ctx: { params: Promise<{ operator: string; symbol: string }> }) {
  const { operator, symbol } = await ctx.params;
  if (!(await sessionToken())) return new Response('Not logged in', { status: 401 });
  if (
    !/^[a-z0-9][a-z0-9_-]{1,63}$/.test(operator) ||
    !/^[A-Za-z0-9_.-]{1,100}$/.test(symbol) ||
    symbol.startsWith('.')
  ) {
    return new Response('Not found', { status: 404 });
  }
  const url = `${env().OPI_API_URL.replace(/\/+$/, '')}/api/provider/v1/game-art/${encodeURIComponent(symbol)}?operator_id=${operator}`;
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) return new Response('Not found', { status: 404 });
  const type = res.headers.get('content-type') ?? 'application/octet-stream';
  return new Response(res.body, {
    headers: {
      'content-type': type,
      'cache-control': 'private, max-age=300',
      // An SVG opened on its own must not run anything.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'x-content-type-options': 'nosniff',
    },
  });
}
