import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from './logger.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id: the value of the first of `headers` the caller sent, when it is a safe token,
 * otherwise a new UUID; kept in `ctx.state.requestId` and answered in `x-request-id`.
 */
export function assignRequestId(ctx: Context, headers: readonly string[] = ['x-request-id']): string {
  const incoming = headers.map((h) => ctx.get(h)).find((v) => v !== '') ?? '';
  const id = SAFE_ID.test(incoming) ? incoming : randomUUID();
  ctx.state.requestId = id;
  ctx.set('x-request-id', id);
  return id;
}

/** Milliseconds since `start` (process.hrtime.bigint()), to two decimals, as the access log writes them. */
export function msSince(start: bigint): number {
  return Math.round(Number(process.hrtime.bigint() - start) / 1e4) / 100;
}

/**
 * Every response carries `x-request-id`: the caller's when it is a safe token, otherwise a new
 * UUID. One access-log line per request.
 */
export function requestId(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const id = assignRequestId(ctx);
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const trace = ctx.state.trace as { traceId: string; spanId: string } | undefined;
      logger.info('request', {
        request_id: id,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: msSince(start),
        ...(trace ? { trace_id: trace.traceId, span_id: trace.spanId } : {}),
      });
    }
  };
}
