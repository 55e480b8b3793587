import Router from '@koa/router';
import { queryOne } from '@opi/play/pages/page-headers';
import { serveStaticAsset } from '@opi/play/pages/static-assets';
import { checkReplayLink, type ReplayLinkVerdict } from '@opi/signing';
import type { GameDeps } from '../deps.js';
import { loadReplayAssets } from './assets.js';
import { loadReplay } from './data.js';
import { replayPageHeaders } from './headers.js';
import { renderReplayError, renderReplayPage } from './render.js';

/**
 * Whether a revocation (of the round's links or its operator's, issue 34) ends this link: every
 * link issued at or before it. A details link is issued with its round (its time is the round's
 * creation), a share link at the issue time it carries (whole seconds: one issued in the second
 * of the revocation is ended too).
 */
export function revokedBy(
  link: Extract<ReplayLinkVerdict, { ok: true }>,
  round: { created_at: string; revoked_at: Date | null },
): boolean {
  if (!round.revoked_at) return false;
  const issued = link.issuedAt ? link.issuedAt.getTime() : Date.parse(round.created_at);
  return issued <= round.revoked_at.getTime();
}

/**
 * `GET /replay/<round_id>?[k=...&][iat=...&exp=...&]sig=...`: a round as it was played, for whoever
 * holds the signed link (`roundDetailsUrl`, `shareReplayUrl` of @opi/signing). No session and no
 * wallet call: the stored round only. A link that does not verify (an unknown key id among them),
 * or names no round, gets a 404 error page; an expired share link, or one whose key is no longer
 * accepted, a 410 `expired` one; a link a revocation ended, a 410 `revoked` one. None carries data.
 */
export function replayRoutes(deps: Pick<GameDeps, 'pool' | 'replayKey'>): Router {
  const assets = loadReplayAssets();
  const router = new Router({ prefix: '/replay' });
  router.get('/static/:file', serveStaticAsset(assets.byPath));
  router.get('/:round_id', async (ctx) => {
    replayPageHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    const q = ctx.query;
    const repeated = [q.sig, q.exp, q.iat, q.k].some((v) => Array.isArray(v));
    const check: ReplayLinkVerdict = repeated
      ? { ok: false, reason: 'malformed' }
      : checkReplayLink(deps.replayKey, ctx.params.round_id, {
          k: queryOne(q.k),
          sig: queryOne(q.sig),
          iat: queryOne(q.iat),
          exp: queryOne(q.exp),
        });
    if (!check.ok) {
      const gone = check.reason === 'expired' || check.reason === 'retired';
      ctx.status = gone ? 410 : 404;
      ctx.body = renderReplayError(gone ? 'expired' : 'not_found', assets);
      return;
    }
    const round = await loadReplay(deps.pool, check.roundId);
    if (!round) {
      ctx.status = 404;
      ctx.body = renderReplayError('not_found', assets);
      return;
    }
    if (revokedBy(check, round)) {
      ctx.status = 410;
      ctx.body = renderReplayError('revoked', assets);
      return;
    }
    ctx.body = renderReplayPage(round, assets);
  });
  return router;
}
