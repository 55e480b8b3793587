import Router from '@koa/router';
import { EnabledRequest, OperatorId, PrizeDropDefinitionRequest, PrizeDropId } from '@opi/contract';
import { notFound } from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import { resolveSlotTitles } from '../promotions/slot-titles.js';
import {
  cancelPrizeDrop,
  definePrizeDrop,
  type PrizeDropRecord,
  prizeDropsOfOperator,
  readPrizeDrop,
  readPrizeDrops,
  setPrizeDropOperator,
} from './repository.js';

/** The operators' view: the definition and its pools now, no other operators. */
function present(d: PrizeDropRecord) {
  return {
    drop_id: d.drop_id,
    name: d.name,
    status: d.status,
    starts_at: d.starts_at.toISOString(),
    ends_at: d.ends_at.toISOString(),
    titles: d.titles,
    pools: d.pools,
  };
}

function presentAdmin(d: PrizeDropRecord) {
  return {
    ...present(d),
    operators: d.operators,
    created_at: d.created_at.toISOString(),
    cancelled_at: d.cancelled_at?.toISOString() ?? null,
  };
}

function dropIdOf(ctx: Context): string {
  const id = ctx.params.drop_id ?? '';
  if (!PrizeDropId.safeParse(id).success) throw notFound('prize drop');
  return id;
}

/** The provider admin API's prize-drop routes (issue 25). */
export function adminPrizeDropRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const r = new Router({ prefix: '/api/admin/v1/prize-drops' });
  r.get('/', ...guard, async (ctx) => {
    ctx.body = { success: true, data: { items: (await readPrizeDrops(deps.pool)).map(presentAdmin) } };
  });
  r.put('/:drop_id', ...guard, async (ctx) => {
    const id = dropIdOf(ctx);
    const input = parseOr422(PrizeDropDefinitionRequest, ctx.state.body ?? {}, 'body');
    const titles = await resolveSlotTitles(deps.pool, input.titles, 'prize drops');
    const { created } = await definePrizeDrop(deps.pool, id, { ...input, titles });
    ctx.status = created ? 201 : 200;
    ctx.body = { success: true, data: presentAdmin((await readPrizeDrop(deps.pool, id))!) };
  });
  r.get('/:drop_id', ...guard, async (ctx) => {
    const d = await readPrizeDrop(deps.pool, dropIdOf(ctx));
    if (!d) throw notFound('prize drop');
    ctx.body = { success: true, data: presentAdmin(d) };
  });
  r.post('/:drop_id/cancel', ...guard, async (ctx) => {
    const id = dropIdOf(ctx);
    await cancelPrizeDrop(deps.pool, id);
    ctx.body = { success: true, data: presentAdmin((await readPrizeDrop(deps.pool, id))!) };
  });
  r.put('/:drop_id/operators/:operator_id', ...guard, async (ctx) => {
    const id = dropIdOf(ctx);
    const operatorId = ctx.params.operator_id ?? '';
    if (!OperatorId.safeParse(operatorId).success) throw notFound('operator');
    const { enabled } = parseOr422(EnabledRequest, ctx.state.body ?? {}, 'body');
    await setPrizeDropOperator(deps.pool, id, operatorId, enabled);
    ctx.body = { success: true, data: { drop_id: id, operator_id: operatorId, opted_in: enabled } };
  });
  return r;
}

/** GET /api/provider/v1/prize-drops: the operator's drops (opted in), with the prizes left now. */
export function prizeDropRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const r = new Router();
  r.get('/prize-drops', ...guard, async (ctx) => {
    const operator = ctx.state.operator as OperatorRow;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      success: true,
      data: { items: (await prizeDropsOfOperator(deps.pool, operator.operator_id)).map(present) },
    };
  });
  return r;
}
