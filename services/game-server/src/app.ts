import { opsRoutes } from '@opi/play/ops/routes';
import { authenticateRuntime } from '@opi/play/sessions/authenticate';
import { serviceApp } from '@opi/service-kit/http/app';
import { readBody } from '@opi/service-kit/http/body';
import { healthRoutes } from '@opi/service-kit/http/health';
import type Koa from 'koa';
import { crashRoutes } from './crash/routes.js';
import type { GameDeps } from './deps.js';
import { nativeRoutes } from './native/routes.js';
import { replayRoutes } from './replay/routes.js';
import { runtimeRoutes } from './runtime/routes.js';
import { artRoutes } from './slots/art-routes.js';
import { pageRoutes } from './slots/page-routes.js';

/**
 * Builds the game server: the players' side, on its own origin (GAME_BASE_URL). The slot, native
 * and crash pages with their static files, the runtime routes a page calls with its session token
 * (spin, decline, native stages, crash bets and cash-outs, the crash demo), the event streams, and
 * health and readiness. No keyed route and no operator-API CORS: operators' servers talk to
 * services/api. `listen()` is the caller's, so tests drive it in-process.
 */
export function createGameApp(deps: GameDeps): Koa {
  return serviceApp({
    logger: deps.logger,
    routers: [
      healthRoutes(),
      opsRoutes(deps),
      runtimeRoutes(deps, [readBody(), authenticateRuntime(deps)]),
      nativeRoutes(deps),
      pageRoutes(deps),
      artRoutes(),
      replayRoutes(deps),
      ...crashRoutes(deps),
    ],
  });
}
