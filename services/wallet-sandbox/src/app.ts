import Router from '@koa/router';
import type { Pool } from '@opi/db';
import { failureFields } from '@opi/service-kit/http/errors';
import { assignRequestId, msSince } from '@opi/service-kit/http/request-id';
import { DEFAULT_MAX_SKEW_SECONDS } from '@opi/signing';
import Koa, { type Context, type Next } from 'koa';
import { adminRoutes } from './admin-routes.js';
import { FaultInjector } from './faults.js';
import { sendError, WalletHttpError } from './http.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import { walletRoutes } from './wallet-routes.js';
import { WalletService } from './wallet-service.js';
import type { WireLog } from './wire-log.js';

export interface WalletDeps {
  pool: Pool;
  logger?: Logger;
  /** Token of the /admin API (header x-sandbox-admin-token); unset disables it. */
  adminToken?: string | undefined;
  /** Allowed skew of x-pp-timestamp, seconds (default 300). */
  maxSkewSeconds?: number;
  /** Demo/QA: open unknown players with this balance (minor units); null (default) rejects them. */
  autoCreatePlayersWithMinor?: bigint | null;
  /** Fault injection for /wallet routes (default: none; changed at run time through /admin/faults). */
  faults?: FaultInjector;
  /** Current Unix seconds, for tests. */
  nowSeconds?: () => number;
  /** Records every /wallet request on arrival, before faults and signature checks (src/wire-log.ts). */
  wireLog?: WireLog;
}

export type WalletApp = Koa & { faults: FaultInjector; service: WalletService };

/** Every response carries x-request-id (the caller's x-pp-request-id or x-request-id when safe). */
function requestId(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const id = assignRequestId(ctx, ['x-pp-request-id', 'x-request-id']);
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      logger.debug('request', {
        request_id: id,
        method: ctx.method,
        path: ctx.path,
        status: ctx.respond === false ? 'no response (fault)' : ctx.status,
        ms: msSince(start),
      });
    }
  };
}

/** JSON errors only, in the wallet error shape; never an HTML page or a stack trace. */
function errorBoundary(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.respond !== false && ctx.status === 404 && ctx.body === undefined) {
        sendError(ctx, 404, 'not_found', 'Not Found');
      } else if (ctx.status === 405 && (ctx.body === undefined || typeof ctx.body === 'string')) {
        sendError(ctx, 405, 'method_not_allowed', 'Method Not Allowed');
      }
    } catch (err) {
      if (err instanceof WalletHttpError) {
        sendError(ctx, err.status, err.code, err.message);
        return;
      }
      logger.error('unhandled error', failureFields(ctx, err));
      sendError(ctx, 500, 'internal_error', 'internal error');
    }
  };
}

/**
 * The sandbox wallet application (no listen: the caller's). Routes: POST /wallet/<operation>
 * (signed callbacks, with fault injection), /admin/* (staff API), GET /health.
 */
export function createWalletApp(deps: WalletDeps): WalletApp {
  const logger = deps.logger ?? silentLogger;
  const faults = deps.faults ?? new FaultInjector();
  const service = new WalletService(deps.pool, {
    autoCreatePlayersWithMinor: deps.autoCreatePlayersWithMinor ?? null,
  });
  const app = new Koa() as WalletApp;
  app.proxy = false;
  app.silent = true;
  app.faults = faults;
  app.service = service;
  app.use(requestId(logger));
  app.use(errorBoundary(logger));

  const isWallet = (path: string) => path === '/wallet' || path.startsWith('/wallet/');
  if (deps.wireLog) {
    const record = deps.wireLog.middleware();
    app.use((ctx, next) => (isWallet(ctx.path) ? record(ctx, next) : next()));
  }
  const walletFaults = faults.middleware();
  app.use((ctx, next) => (isWallet(ctx.path) ? walletFaults(ctx, next) : next()));

  const health = new Router();
  health.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  const wallet = walletRoutes({
    service,
    logger,
    maxSkewSeconds: deps.maxSkewSeconds ?? DEFAULT_MAX_SKEW_SECONDS,
    ...(deps.nowSeconds ? { nowSeconds: deps.nowSeconds } : {}),
    refusesActionType: (actionType) => faults.refusesActionType(actionType),
  });
  const admin = adminRoutes({ pool: deps.pool, faults, adminToken: deps.adminToken });
  for (const router of [health, wallet, admin]) app.use(router.routes()).use(router.allowedMethods());
  return app;
}
