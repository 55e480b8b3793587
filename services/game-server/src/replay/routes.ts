import Router from '@koa/router';
import { verifyReplayLink } from '@opi/signing';
import type { GameDeps } from '../deps.js';
import { loadReplayAssets } from './assets.js';
import { loadReplay } from './data.js';
import { replayPageHeaders } from './headers.js';
import { renderReplayError, renderReplayPage } from './render.js';

const one = (v: string | string[] | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * `GET /replay/<round_id>?sig=...[&exp=...]`: a round as it was played, for whoever holds the
 * signed link (`roundDetailsUrl`, `shareReplayUrl` of @opi/signing). No session and no wallet
 * call: the stored round only. A link that does not verify, or names no round, gets a 404 error
 * page; an expired share link a 410 one; neither carries any data.
 */
export function replayRoutes(deps: Pick<GameDeps, 'pool' | 'replayKey'>): Router {
  const assets = loadReplayAssets();
  const router = new Router({ prefix: '/replay' });
  router.get('/static/:file', (ctx) => {
    const asset = assets.byPath.get(ctx.path);
    if (!asset) return; // 404 from the error boundary
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
  router.get('/:round_id', async (ctx) => {
    replayPageHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    const repeated = Array.isArray(ctx.query.sig) || Array.isArray(ctx.query.exp);
    const check = repeated
      ? ({ ok: false, reason: 'malformed' } as const)
      : verifyReplayLink(deps.replayKey, ctx.params.round_id, one(ctx.query.sig), one(ctx.query.exp));
    if (!check.ok) {
      ctx.status = check.reason === 'expired' ? 410 : 404;
      ctx.body = renderReplayError(check.reason === 'expired' ? 'expired' : 'not_found', assets);
      return;
    }
    const round = await loadReplay(deps.pool, check.roundId);
    if (!round) {
      ctx.status = 404;
      ctx.body = renderReplayError('not_found', assets);
      return;
    }
    ctx.body = renderReplayPage(round, assets);
  });
  return router;
}
