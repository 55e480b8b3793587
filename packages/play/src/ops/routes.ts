import Router from '@koa/router';
import type { PlayDeps } from '../deps.js';
import { publicReadiness, type ReadinessReport, sharedReadiness } from './ready.js';

/**
 * GET /ready: readiness (PostgreSQL, Temporal, a settlement worker); 503 otherwise. Public: which
 * check failed, never why (issue 23 point 7). The reasons are logged, and served with the rest on
 * the metrics port (`readyRoute` below, API_METRICS_PORT).
 */
export function opsRoutes(
  deps: Pick<PlayDeps, 'pool' | 'temporal' | 'logger'>,
  ready: () => Promise<ReadinessReport> = sharedReadiness(deps),
): Router {
  const router = new Router();
  router.get('/ready', async (ctx) => {
    const result = await ready();
    ctx.set('Cache-Control', 'no-store');
    ctx.status = result.status === 'ready' ? 200 : 503;
    ctx.body = publicReadiness(result);
  });
  return router;
}

/** `/ready` on the metrics port: the full report, reasons included (200 or 503). */
export function readyRoute(ready: () => Promise<ReadinessReport>): () => Promise<[number, unknown]> {
  return async () => {
    const report = await ready();
    return [report.status === 'ready' ? 200 : 503, report];
  };
}
