import Router from '@koa/router';
import type { ApiDeps } from '../deps.js';
import { readiness } from './ready.js';

/** GET /ready: readiness (PostgreSQL, Temporal, a settlement worker); 503 with the reasons otherwise. */
export function opsRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const ready = readiness(deps);
  router.get('/ready', async (ctx) => {
    const result = await ready();
    ctx.set('Cache-Control', 'no-store');
    ctx.status = result.status === 'ready' ? 200 : 503;
    ctx.body = result;
  });
  return router;
}
