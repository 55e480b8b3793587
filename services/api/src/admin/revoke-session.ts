import Router from '@koa/router';
import { revokeSession } from '@opi/play/sessions/revoke';
import { notFound } from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { ApiDeps } from '../deps.js';

export const RevokeRequest = z.object({ reason: z.string().min(1).max(200).optional() });
const SESSION_ID = /^s_[0-9a-f-]{36}$/;

/**
 * POST /api/admin/v1/sessions/:session_id/revoke: a session of any family stops working now (its
 * tokens and crash authorizations). The API holds no event stream: the revocation is announced
 * on the refresh channel once committed, and every game-server process ends the session's streams
 * at once (RefreshHub.publishEnded; the sweep would within HEARTBEAT_MS anyway).
 */
export function revokeSessionRoutes(deps: ApiDeps, adminGuard: Middleware[]): Router {
  const admin = new Router({ prefix: '/api/admin/v1' });
  admin.post('/sessions/:session_id/revoke', ...adminGuard, async (ctx) => {
    const id = ctx.params.session_id ?? '';
    if (!SESSION_ID.test(id)) throw notFound('session');
    const { reason } = parseOr422(RevokeRequest, ctx.state.body ?? {}, 'body');
    const revoked = await revokeSession(deps.pool, id, reason ?? 'revoked by provider staff');
    if (!revoked) throw notFound('session');
    await deps.refresh.publishEnded([id]).catch((err: unknown) =>
      deps.logger.warn('revocation notice failed; the streams end at the next sweep', {
        error: String(err),
      }),
    );
    ctx.body = { success: true, data: revoked };
  });
  return admin;
}
