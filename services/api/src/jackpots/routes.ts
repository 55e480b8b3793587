import Router from '@koa/router';
import { EnabledRequest, JackpotDefinitionRequest, JackpotId, OperatorId } from '@opi/contract';
import { invalidField, notFound, unprocessable } from '@opi/service-kit/http/named-errors';
import { pick } from '@opi/service-kit/http/present';
import { parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import { resolveSlotTitles } from '../promotions/slot-titles.js';
import { ceilingViolations } from './ceiling.js';
import {
  defineJackpot,
  type JackpotRecord,
  jackpotsOfOperator,
  readJackpot,
  readJackpots,
  setJackpotOperator,
} from './repository.js';

/** The operators' view: no running totals, no other operators. */
const present = (j: JackpotRecord) => pick(j, ['jackpot_id', 'name', 'scope', 'status', 'titles', 'levels']);

function presentAdmin(j: JackpotRecord) {
  return {
    ...present(j),
    operator_id: j.operator_id,
    operators: j.operators,
    totals: j.totals,
    created_at: j.created_at.toISOString(),
  };
}

/** JACKPOT_MAX_SHARE_PPM (null: `none`); its default when the deps do not say. */
const jackpotCeilingOf = (deps: ApiDeps): number | null =>
  deps.jackpotMaxSharePpm === undefined ? 50_000 : deps.jackpotMaxSharePpm;

function jackpotIdOf(ctx: Context): string {
  const id = ctx.params.jackpot_id ?? '';
  if (!JackpotId.safeParse(id).success) throw notFound('jackpot');
  return id;
}

/** The provider admin API's jackpot routes (issue 25). */
export function adminJackpotRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const r = new Router({ prefix: '/api/admin/v1/jackpots' });
  r.get('/', ...guard, async (ctx) => {
    ctx.body = { success: true, data: { items: (await readJackpots(deps.pool)).map(presentAdmin) } };
  });
  r.put('/:jackpot_id', ...guard, async (ctx) => {
    const id = jackpotIdOf(ctx);
    const input = parseOr422(JackpotDefinitionRequest, ctx.state.body ?? {}, 'body');
    // A definition that pays back more than the configured share of every stake is refused.
    const above = ceilingViolations(input.levels, jackpotCeilingOf(deps));
    if (above.length) throw unprocessable(above);
    if (input.operator_id) {
      const op = await deps.pool.query(`SELECT 1 FROM operators WHERE operator_id = $1`, [input.operator_id]);
      if (op.rowCount === 0) throw invalidField(['body', 'operator_id'], 'unknown operator');
    }
    const titles = await resolveSlotTitles(deps.pool, input.titles, 'jackpots');
    const { created } = await defineJackpot(deps.pool, id, {
      ...input,
      operator_id: input.operator_id ?? null,
      titles,
    });
    ctx.status = created ? 201 : 200;
    ctx.body = { success: true, data: presentAdmin((await readJackpot(deps.pool, id))!) };
  });
  r.get('/:jackpot_id', ...guard, async (ctx) => {
    const j = await readJackpot(deps.pool, jackpotIdOf(ctx));
    if (!j) throw notFound('jackpot');
    ctx.body = { success: true, data: presentAdmin(j) };
  });
  r.put('/:jackpot_id/operators/:operator_id', ...guard, async (ctx) => {
    const id = jackpotIdOf(ctx);
    const operatorId = ctx.params.operator_id ?? '';
    if (!OperatorId.safeParse(operatorId).success) throw notFound('operator');
    const { enabled } = parseOr422(EnabledRequest, ctx.state.body ?? {}, 'body');
    await setJackpotOperator(deps.pool, id, operatorId, enabled);
    ctx.body = { success: true, data: { jackpot_id: id, operator_id: operatorId, opted_in: enabled } };
  });
  return r;
}

/** GET /api/provider/v1/jackpots: the operator's lobby ticker (its own jackpots and the network ones it is in). */
export function jackpotRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const r = new Router();
  r.get('/jackpots', ...guard, async (ctx) => {
    const operator = ctx.state.operator as OperatorRow;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      success: true,
      data: { items: (await jackpotsOfOperator(deps.pool, operator.operator_id)).map(present) },
    };
  });
  return r;
}
