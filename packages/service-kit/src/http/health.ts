import Router from '@koa/router';

/** GET /health: liveness, no credentials, 200 whenever the process answers. */
export function healthRoutes(): Router {
  const router = new Router();
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  return router;
}
