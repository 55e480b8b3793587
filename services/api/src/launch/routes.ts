import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import { settlementProbe } from '../settlement/settlement-probe.js';
import { createLaunch } from './create-launch.js';

/** POST /launch-url: LaunchUrlData at the top level with success: true, and again under data. */
export function launchRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const router = new Router();
  // The first verdict on the settlement runtime is ready before the first launches arrive.
  void settlementProbe(deps)?.refresh();
  router.post('/launch-url', ...guard, async (ctx) => {
    const { data } = await createLaunch(deps, ctx.state.operator as OperatorRow, ctx.state.body);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { success: true, ...data, data };
  });
  return router;
}
