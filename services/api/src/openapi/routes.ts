import Router from '@koa/router';
import { notFoundDetail } from '@opi/service-kit/http/named-errors';
import { buildOpenApiDocument } from './document.js';
import { renderReferencePage } from './reference-page.js';
import { DEFAULT_SDK_TARBALL_DIR, sdkDownloadPath, sdkTarballReader } from './sdk-download.js';

export interface OpenApiRouteOptions {
  /** SDK_TARBALL_DIR: the folder holding the operator SDK's tarball (default: packages/operator-sdk/tarball). */
  sdkTarballDir?: string;
}

/**
 * GET /api/provider/v1/openapi.json and GET /docs: public. The document holds no secret (it is the
 * contract operators integrate against, admin routes included: they need a provider-admin key).
 * GET /docs/sdk/opi-operator-sdk-<version>.tgz: the operator SDK's tarball, public, linked from the
 * page with its SHA-256 (sdk-download.ts); a JSON 404 while there is none.
 */
export function openApiRoutes(options: OpenApiRouteOptions = {}): Router {
  const router = new Router();
  const sdkTarball = sdkTarballReader(options.sdkTarballDir ?? DEFAULT_SDK_TARBALL_DIR);
  let json: string | undefined;
  let page: { sdk: string; html: string } | undefined;
  router.get('/api/provider/v1/openapi.json', (ctx) => {
    json ??= JSON.stringify(buildOpenApiDocument());
    ctx.type = 'application/json; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = json;
  });
  router.get('/docs', async (ctx) => {
    const sdk = await sdkTarball();
    if (page?.sdk !== (sdk?.sha256 ?? '')) {
      page = { sdk: sdk?.sha256 ?? '', html: renderReferencePage(buildOpenApiDocument(), sdk) };
    }
    ctx.type = 'text/html; charset=utf-8';
    // Short while the SDK's tarball is missing: the stack builds it in the background.
    ctx.set('Cache-Control', sdk ? 'public, max-age=300' : 'no-cache');
    // The page needs nothing but its own inline style.
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
    );
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = page.html;
  });
  router.get('/docs/sdk/:file', async (ctx) => {
    const sdk = await sdkTarball();
    if (!sdk) {
      throw notFoundDetail(
        'The operator SDK tarball is not available on this server yet: it is built with the service (`npm run build`; under `npm start` in the background, seconds after start). Retry shortly; /docs links to it once it is there.',
      );
    }
    if (ctx.params.file !== sdk.name) {
      throw notFoundDetail(`No such SDK tarball; this server offers ${sdkDownloadPath(sdk.name)}`, {
        current: sdkDownloadPath(sdk.name),
      });
    }
    ctx.status = 200;
    ctx.etag = sdk.sha256;
    ctx.set('Cache-Control', 'no-cache');
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/gzip';
    ctx.set('Content-Disposition', `attachment; filename="${sdk.name}"`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Checksum-Sha256', sdk.sha256);
    ctx.set('Repr-Digest', `sha-256=:${Buffer.from(sdk.sha256, 'hex').toString('base64')}:`);
    ctx.body = sdk.body;
  });
  return router;
}
