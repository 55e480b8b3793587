import Router from '@koa/router';
import { GAME_PAGE_CSP, gamePageHeaders, queryOne } from '@opi/play/pages/page-headers';
import { serveStaticAsset } from '@opi/play/pages/static-assets';
import type { GameDeps } from '../deps.js';
import { findPageSession } from './find-page-session.js';
import { loadPageAssets } from './page-assets.js';
import { renderErrorPage, renderGamePage } from './page-render.js';

/**
 * Same-origin script and styles only, no inline code; the page talks to its own origin's runtime
 * routes; no HTML string sinks (Trusted Types, with no policy allowed). Framing is left open: the
 * operator may show the game in an iframe of its own site.
 */
export const PAGE_CSP = GAME_PAGE_CSP;

/** The launch URL carries a bearer secret: the page is never cached and never sent as a referrer. */
const pageHeaders = gamePageHeaders;

/**
 * `GET /gs2c/html5Game.do?symbol=<symbol>&mgckey=<token>`: the slot page of the `prov_a`/`prov_b`
 * launch URL, and its static files. The token is checked before any HTML is served; a link that
 * opens no game gets an error page (401, or 400 for an edited symbol) without game controls.
 */
export function pageRoutes(deps: GameDeps): Router {
  const assets = loadPageAssets();
  const router = new Router({ prefix: '/gs2c' });
  router.get('/html5Game.do', async (ctx) => {
    const repeated = Array.isArray(ctx.query.mgckey) || Array.isArray(ctx.query.symbol);
    const grant = repeated
      ? ({ ok: false, status: 400, reason: 'malformed' } as const)
      : await findPageSession(deps.pool, queryOne(ctx.query.mgckey), queryOne(ctx.query.symbol));
    pageHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    if (!grant.ok) {
      ctx.status = grant.status;
      ctx.body = renderErrorPage(grant.reason, assets);
      return;
    }
    ctx.body = renderGamePage(grant, assets);
  });
  router.get('/static/:file', serveStaticAsset(assets.byPath));
  return router;
}
