import Router from '@koa/router';
import { opsRoutes } from '@opi/play/ops/routes';
import { serviceApp } from '@opi/service-kit/http/app';
import {
  ARTWORK_BODY_LIMIT,
  ARTWORK_BODY_TIMEOUT_MS,
  readBody,
  readRawBody,
} from '@opi/service-kit/http/body';
import { healthRoutes } from '@opi/service-kit/http/health';
import type Koa from 'koa';
import { replayLinkRevocationRoutes } from './admin/replay-link-revocations.js';
import { revokeSessionRoutes } from './admin/revoke-session.js';
import { adminRoutes } from './admin/routes.js';
import { nativeHistoryRoutes } from './audit/native-history.js';
import { auditRoutes } from './audit/routes.js';
import { authenticate, requireKnownKey } from './auth/authenticate.js';
import { operatorScope } from './auth/operator-scope.js';
import { balanceRefreshRoutes } from './balance-refresh/routes.js';
import { artworkRoutes } from './catalog/artwork-routes.js';
import { catalogRoutes } from './catalog/routes.js';
import type { ApiDeps } from './deps.js';
import { freeRoundRoutes } from './free-rounds/routes.js';
import { adminJackpotRoutes, jackpotRoutes } from './jackpots/routes.js';
import { launchRoutes } from './launch/routes.js';
import { openApiRoutes } from './openapi/routes.js';
import { adminPrizeDropRoutes, prizeDropRoutes } from './prize-drops/routes.js';
import { exchangeRateRoutes } from './reports/exchange-rates.js';
import { invoiceRoutes } from './reports/invoices.js';
import { reportRoutes } from './reports/routes.js';
import { staffAdminRoutes } from './staff/admin-routes.js';
import { staffRoutes } from './staff/routes.js';
import { adminTournamentRoutes, tournamentRoutes } from './tournaments/routes.js';

/**
 * The operator API's own policy, on every response (a route may replace it: the /docs reference
 * page sets its own): nothing here is a page to render or to frame. The game pages' policy, which
 * lets operators frame them, is the game server's (services/game-server).
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
async function operatorApiHeaders(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  ctx.set('Content-Security-Policy', API_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  await next();
}

/**
 * Builds the operator API: the provider, audit, admin and staff routes and the OpenAPI document,
 * for operators' servers, the provider's admins and the staff portal. It serves no player page:
 * launch URLs point at the game server (GAME_BASE_URL, services/game-server). `listen()` is the
 * caller's, so tests drive it in-process.
 * Each keyed route declares its chain: a known key (before any body byte is read), read the body,
 * authenticate (key, signature over the body, nonce), resolve the operator scope, then the handler.
 */
export function createApp(deps: ApiDeps): Koa {
  const knownKey = requireKnownKey(deps);
  const providerGuard = [
    knownKey,
    readBody(),
    authenticate(deps, 'provider'),
    operatorScope(deps.pool, deps.caches.operators),
  ];
  // The operator audit API is always signed (spec: operator, signed).
  const operatorGuard = [
    knownKey,
    readBody(),
    authenticate(deps, 'operator'),
    operatorScope(deps.pool, deps.caches.operators),
  ];
  const adminGuard = [knownKey, readBody(), authenticate(deps, 'admin')];
  const artworkGuard = [
    knownKey,
    readRawBody(ARTWORK_BODY_LIMIT, ARTWORK_BODY_TIMEOUT_MS),
    authenticate(deps, 'admin'),
  ];

  const provider = new Router({ prefix: '/api/provider/v1' });
  provider.use(catalogRoutes(deps, providerGuard).routes());
  provider.use(launchRoutes(deps, providerGuard).routes());
  provider.use(nativeHistoryRoutes(deps, providerGuard).routes());
  provider.use(balanceRefreshRoutes(deps, providerGuard).routes());
  provider.use(freeRoundRoutes(deps, providerGuard).routes());
  provider.use(jackpotRoutes(deps, providerGuard).routes());
  provider.use(tournamentRoutes(deps, providerGuard).routes());
  provider.use(prizeDropRoutes(deps, providerGuard).routes());

  const routers = [
    healthRoutes(),
    opsRoutes(deps),
    openApiRoutes(deps.sdkTarballDir ? { sdkTarballDir: deps.sdkTarballDir } : {}),
    auditRoutes(deps, operatorGuard),
    artworkRoutes(deps),
    provider,
    adminRoutes(deps, adminGuard, artworkGuard),
    staffAdminRoutes(deps, adminGuard),
    staffRoutes(deps),
    revokeSessionRoutes(deps, adminGuard),
    replayLinkRevocationRoutes(deps, adminGuard),
    adminJackpotRoutes(deps, adminGuard),
    adminTournamentRoutes(deps, adminGuard),
    adminPrizeDropRoutes(deps, adminGuard),
    exchangeRateRoutes(deps, adminGuard),
    reportRoutes(deps, operatorGuard, adminGuard),
    invoiceRoutes(deps, operatorGuard, adminGuard),
  ];
  return serviceApp({ logger: deps.logger, middleware: [operatorApiHeaders], routers });
}
