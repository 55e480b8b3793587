import Router from '@koa/router';
import { GamesListQuery, PROVIDER_IDS } from '@opi/contract';
import type { Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import { flatQuery, parseOr422 } from '../http/validate.js';
import { presentGame } from './present.js';
import { loadCatalog } from './repository.js';

/** Normalises a provider filter to its canonical id, or keeps the unknown value (an empty list). */
function canonicalProvider(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  const lower = value.trim().toLowerCase();
  return (PROVIDER_IDS as readonly string[]).includes(lower) ? lower : value;
}

/** GET /games and /games/{symbol}: the operator's catalog, launch-available entries only. */
export function catalogRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const router = new Router();
  router.get('/games', ...guard, async (ctx) => {
    const query = parseOr422(GamesListQuery, flatQuery(ctx.query), 'query');
    const operator = ctx.state.operator as OperatorRow;
    const providerId = canonicalProvider(query.provider_id);
    const known = providerId === null || (PROVIDER_IDS as readonly string[]).includes(providerId);
    const rows = known
      ? await loadCatalog(deps.pool, { operatorId: operator.operator_id, providerId, assignedOnly: true })
      : [];
    const present = { publicBaseUrl: deps.publicBaseUrl, operator, isProduction: deps.isProduction };
    const items = rows
      .map((r) => presentGame(r, present))
      .filter((g) => g.operator_availability?.launch_available);
    ctx.body = {
      success: true,
      data: { items, total: items.length, operator_id: operator.operator_id, provider_id: providerId },
    };
  });
  router.get('/games/:symbol', ...guard, async (ctx) => {
    const operator = ctx.state.operator as OperatorRow;
    const symbol = ctx.params.symbol ?? '';
    const rows =
      symbol.length <= 128
        ? await loadCatalog(deps.pool, { operatorId: operator.operator_id, symbolOrSlug: symbol })
        : [];
    const present = { publicBaseUrl: deps.publicBaseUrl, operator, isProduction: deps.isProduction };
    const game = rows
      .map((r) => presentGame(r, present))
      .find((g) => g.operator_availability?.launch_available);
    if (!game) throw new HttpError(404, 'Game not found or not in the operator catalog');
    ctx.body = { success: true, data: game };
  });
  return router;
}
