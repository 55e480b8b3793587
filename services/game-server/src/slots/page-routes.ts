import Router from '@koa/router';
import { GAME_PAGE_CSP, gamePageHeaders } from '@opi/play/pages/page-headers';
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

const one = (v: string | string[] | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

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
      : await findPageSession(deps.pool, one(ctx.query.mgckey), one(ctx.query.symbol));
    pageHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    if (!grant.ok) {
      ctx.status = grant.status;
      ctx.body = renderErrorPage(grant.reason, assets);
      return;
    }
    ctx.body = renderGamePage(grant, assets);
  });
  router.get('/static/:file', (ctx) => {
    const asset = assets.byPath.get(ctx.path);
    if (!asset) return; // 404 from the error boundary
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });
  return router;
}
