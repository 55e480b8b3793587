import Koa from 'koa';
import { errorBoundary } from './http/errors.js';
import type { Logger } from './http/logger.js';
import { requestId } from './http/request-id.js';
import { healthRoutes } from './routes/health.js';

export interface AppDeps {
  logger: Logger;
}

/** Builds the API application; `listen()` is the caller's, so tests drive it in-process. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true;
  app.use(requestId(deps.logger));
  app.use(errorBoundary(deps.logger));
  const health = healthRoutes();
  app.use(health.routes()).use(health.allowedMethods());
  return app;
}
