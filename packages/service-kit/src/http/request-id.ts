import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from './logger.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every response carries `x-request-id`: the caller's when it is a safe token, otherwise a new
 * UUID. One access-log line per request.
 */
export function requestId(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const id = SAFE_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = id;
    ctx.set('x-request-id', id);
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const trace = ctx.state.trace as { traceId: string; spanId: string } | undefined;
      logger.info('request', {
        request_id: id,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round(ms * 100) / 100,
        ...(trace ? { trace_id: trace.traceId, span_id: trace.spanId } : {}),
      });
    }
  };
}
