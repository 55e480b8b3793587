import Router from '@koa/router';
import { type Game, GamesListQuery, PROVIDER_IDS } from '@opi/contract';
import { notFound } from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import { presentGame } from './present.js';
import { loadCatalog } from './repository.js';

/** Normalises a provider filter to its canonical id, or keeps the unknown value (an empty list). */
function canonicalProvider(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  const lower = value.trim().toLowerCase();
  return (PROVIDER_IDS as readonly string[]).includes(lower) ? lower : value;
}

/**
 * The operator's launch-available games, presented once and cached until any catalog, operator
 * or key table changes in any process (see ChangeFeed).
 */
function operatorGames(deps: ApiDeps, operator: OperatorRow): Promise<Game[]> {
  return deps.caches.catalogs.get(operator.operator_id, async () => {
    const rows = await loadCatalog(deps.pool, { operatorId: operator.operator_id, assignedOnly: true });
    const present = { publicBaseUrl: deps.publicBaseUrl, operator, isProduction: deps.isProduction };
    return rows.map((r) => presentGame(r, present)).filter((g) => g.operator_availability?.launch_available);
  });
}

const NO_GAMES: Game[] = [];
/** Serialised list answers per cached list (dropped with the list when the catalog changes). */
const serialised = new WeakMap<Game[], Map<string, string>>();

/** GET /games and /games/{symbol}: the operator's catalog, launch-available entries only. */
export function catalogRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const router = new Router();
  router.get('/games', ...guard, async (ctx) => {
    const query = parseOr422(GamesListQuery, flatQuery(ctx.query), 'query');
    const operator = ctx.state.operator as OperatorRow;
    const providerId = canonicalProvider(query.provider_id);
    const known = providerId === null || (PROVIDER_IDS as readonly string[]).includes(providerId);
    const games = known ? await operatorGames(deps, operator) : NO_GAMES;
    // The answer is a function of the cached list and the filter: serialised once per list and
    // filter (the list is replaced, not changed, when the catalog changes), then sent as bytes.
    let bodies = serialised.get(games);
    if (!bodies) {
      bodies = new Map();
      serialised.set(games, bodies);
    }
    const key = `${operator.operator_id}\u0000${providerId ?? ''}`;
    let body = bodies.get(key);
    if (body === undefined) {
      const items = games.filter((g) => !providerId || g.provider_id === providerId);
      body = JSON.stringify({
        success: true,
        data: { items, total: items.length, operator_id: operator.operator_id, provider_id: providerId },
      });
      // Unknown filters are answered without keeping their text (a stranger may send any).
      if (known) bodies.set(key, body);
    }
    ctx.type = 'application/json';
    ctx.body = body;
  });
  router.get('/games/:symbol', ...guard, async (ctx) => {
    const operator = ctx.state.operator as OperatorRow;
    const symbol = ctx.params.symbol ?? '';
    const game = (await operatorGames(deps, operator)).find((g) => g.symbol === symbol || g.slug === symbol);
    if (!game) throw notFound('game', 'or not in the operator catalog');
    ctx.body = { success: true, data: game };
  });
  return router;
}
