import Router from '@koa/router';
import { buildOpenApiDocument } from './document.js';
import { renderReferencePage } from './reference-page.js';

/**
 * GET /api/provider/v1/openapi.json and GET /docs: public. The document holds no secret (it is the
 * contract operators integrate against, admin routes included: they need a provider-admin key).
 */
export function openApiRoutes(): Router {
  const router = new Router();
  let json: string | undefined;
  let html: string | undefined;
  router.get('/api/provider/v1/openapi.json', (ctx) => {
    json ??= JSON.stringify(buildOpenApiDocument());
    ctx.type = 'application/json; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = json;
  });
  router.get('/docs', (ctx) => {
    html ??= renderReferencePage(buildOpenApiDocument());
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=300');
    // The page needs nothing but its own inline style.
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
    );
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = html;
  });
  return router;
}
