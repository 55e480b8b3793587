import type { Context, Next } from 'koa';
import type { Logger } from './logger.js';

export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A request that fails with a status and the spec's JSON error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationDetail[],
    readonly extra: Record<string, unknown> = {},
  ) {
    super(typeof detail === 'string' ? detail : 'validation failed');
    this.name = 'HttpError';
  }
}

/**
 * The one error boundary: HttpErrors become their JSON body, body-parser and other client
 * errors keep their 4xx status with a JSON detail, and anything unexpected is logged with the
 * request id and masked as a 500. Never an HTML page or a stack trace.
 */
export function errorBoundary(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { detail: 'Not Found' };
      } else if (ctx.status === 405 && (ctx.body === undefined || typeof ctx.body === 'string')) {
        ctx.body = { detail: 'Method Not Allowed' };
      } else if (ctx.status === 501 && (ctx.body === undefined || ctx.body === null)) {
        // @koa/router answers a method it does not implement (PROPFIND, TRACE, QUERY, ...) with a
        // bare 501. That is the client's request, not a server fault: 405 where the path exists,
        // else 404, with the usual JSON body.
        if (ctx.response.get('Allow')) {
          ctx.status = 405;
          ctx.body = { detail: 'Method Not Allowed' };
        } else {
          ctx.remove('Allow');
          ctx.status = 404;
          ctx.body = { detail: 'Not Found' };
        }
      }
    } catch (err) {
      if (err instanceof HttpError) {
        ctx.status = err.status;
        ctx.body = { detail: err.detail, ...err.extra };
        return;
      }
      const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string };
      const status = e.status ?? e.statusCode;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        ctx.status = status;
        ctx.body = { detail: e.expose && e.message ? e.message : httpReason(status) };
        return;
      }
      logger.error('unhandled error', {
        request_id: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        error:
          err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
      });
      ctx.status = 500;
      ctx.body = { detail: 'Internal Server Error' };
    }
  };
}

function httpReason(status: number): string {
  const reasons: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    405: 'Method Not Allowed',
    409: 'Conflict',
    413: 'Payload Too Large',
    415: 'Unsupported Media Type',
    422: 'Unprocessable Entity',
  };
  return reasons[status] ?? 'Request Error';
}
