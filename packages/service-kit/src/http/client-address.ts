import { type AddressSet, resolveClientIp } from '@opi/config';
import type { Context } from 'koa';

/**
 * The request's client address for limits: the socket's peer, or (only when that peer is one of
 * TRUSTED_PROXIES) the first untrusted hop of X-Forwarded-For, walked from the right.
 */
export function clientAddress(ctx: Context, deps: { trustedProxies: AddressSet }): string {
  return (
    resolveClientIp(
      ctx.req.socket.remoteAddress,
      ctx.get('x-forwarded-for') || undefined,
      deps.trustedProxies,
    ) ?? 'unknown'
  );
}
