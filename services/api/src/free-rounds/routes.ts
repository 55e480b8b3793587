import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import {
  addPlayers,
  campaignIdParam,
  cancelCampaign,
  createCampaign,
  listCampaigns,
  playersPage,
  readCampaign,
} from './campaigns.js';

/** /api/provider/v1/free-rounds: the operator's free-round campaigns (docs/free-rounds.md). */
export function freeRoundRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const router = new Router();
  router.post('/free-rounds', ...guard, async (ctx) => {
    const { created, data } = await createCampaign(deps, ctx.state.operator as OperatorRow, ctx.state.body);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = created ? 201 : 200;
    ctx.body = { success: true, data };
  });
  router.get('/free-rounds', ...guard, async (ctx) => {
    const data = await listCampaigns(deps, ctx.state.operator as OperatorRow, ctx.query);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { success: true, data };
  });
  router.get('/free-rounds/:campaign_id', ...guard, async (ctx) => {
    const operator = ctx.state.operator as OperatorRow;
    const campaignId = campaignIdParam(ctx.params.campaign_id!);
    const data = await readCampaign(deps.pool, operator.operator_id, campaignId, playersPage(ctx.query));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { success: true, data };
  });
  router.post('/free-rounds/:campaign_id/players', ...guard, async (ctx) => {
    const operator = ctx.state.operator as OperatorRow;
    const data = await addPlayers(deps, operator, campaignIdParam(ctx.params.campaign_id!), ctx.state.body);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { success: true, data };
  });
  router.delete('/free-rounds/:campaign_id', ...guard, async (ctx) => {
    const operator = ctx.state.operator as OperatorRow;
    const data = await cancelCampaign(deps, operator, campaignIdParam(ctx.params.campaign_id!));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { success: true, data };
  });
  return router;
}
