import Router from '@koa/router';
import { revokeSession } from '@opi/play/sessions/revoke';
import { HttpError } from '@opi/service-kit/http/errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { ApiDeps } from '../deps.js';

export const RevokeRequest = z.object({ reason: z.string().min(1).max(200).optional() });
const SESSION_ID = /^s_[0-9a-f-]{36}$/;

/**
 * POST /api/admin/v1/sessions/:session_id/revoke: a session of any family stops working now (its
 * tokens and crash authorizations). The API holds no event stream: every game-server process
 * ends the session's streams at its next sweep (RefreshHub.sweep, every HEARTBEAT_MS), and any
 * request of the page is refused at once.
 */
export function revokeSessionRoutes(deps: ApiDeps, adminGuard: Middleware[]): Router {
  const admin = new Router({ prefix: '/api/admin/v1' });
  admin.post('/sessions/:session_id/revoke', ...adminGuard, async (ctx) => {
    const id = ctx.params.session_id ?? '';
    if (!SESSION_ID.test(id)) throw new HttpError(404, 'Session not found');
    const { reason } = parseOr422(RevokeRequest, ctx.state.body ?? {}, 'body');
    const revoked = await revokeSession(deps.pool, id, reason ?? 'revoked by provider staff');
    if (!revoked) throw new HttpError(404, 'Session not found');
    ctx.body = { success: true, data: revoked };
  });
  return admin;
}
