import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import { refreshPlayerBalance } from './refresh-player-balance.js';

/** POST /player-balance-refresh: the result at the top level with success: true, and again under data. */
export function balanceRefreshRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const router = new Router();
  router.post('/player-balance-refresh', ...guard, async (ctx) => {
    const data = await refreshPlayerBalance(deps, ctx.state.operator as OperatorRow, ctx.state.body);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { success: true, ...data, data };
  });
  return router;
}
