import type Router from '@koa/router';
import Koa from 'koa';
import { observe } from '../ops/observe.js';
import { errorBoundary } from './errors.js';
import type { Logger } from './logger.js';
import { requestId } from './request-id.js';

/**
 * The application shell the API and the game server share: a Koa app that trusts no
 * X-Forwarded-* header (`proxy` off) and prints nothing of its own (`silent`). Every request gets
 * its id and access-log line, its trace and metrics, and the JSON error boundary; then the
 * service's own `middleware`, then each router's routes and its 405s, in order. `listen()` is the
 * caller's, so tests drive the app in-process.
 */
export function serviceApp(o: { logger: Logger; middleware?: Koa.Middleware[]; routers: Router[] }): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true;
  app.use(requestId(o.logger));
  app.use(observe());
  app.use(errorBoundary(o.logger));
  for (const m of o.middleware ?? []) app.use(m);
  for (const router of o.routers) app.use(router.routes()).use(router.allowedMethods());
  return app;
}
