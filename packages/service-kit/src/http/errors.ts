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
    /** Response headers of this answer (e.g. Retry-After of a 429 or 503). */
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : 'validation failed');
    this.name = 'HttpError';
  }
}

/** SQLSTATEs of a database that cannot serve now: connection exceptions (class 08), shutting
 * down or starting up (57P01-57P03), too many connections (53300). */
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;
/** Socket errors of a peer that is not there. */
const NET_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * Messages of a connection that could not be had or was lost: node-postgres's pool and client,
 * and the Temporal client's gRPC channel (connecting past its deadline, or closed under a call).
 */
const CONNECTION_LOST =
  /timeout exceeded when trying to connect|Connection terminated|not queryable|Client was closed|Failed to connect before the deadline|Channel has been shut down/i;
/** gRPC UNAVAILABLE and DEADLINE_EXCEEDED: the Temporal frontend did not answer. */
const GRPC_UNAVAILABLE = new Set([14, 4]);

/**
 * Whether an error means a dependency (PostgreSQL or Temporal) cannot be reached, rather than a
 * fault in this request or in our code; its cause chain is followed. Such a request is answered
 * 503 with Retry-After: nothing was half written (money changes commit in one transaction or not
 * at all; a spin whose round committed before Temporal failed is found by the retry as "still
 * being settled", 409, and is started by the workers from its durable intent).
 */
export function dependencyUnavailable(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const x = e as { code?: unknown; message?: unknown; cause?: unknown; name?: unknown };
    if (typeof x.code === 'string' && (PG_UNAVAILABLE.test(x.code) || NET_UNAVAILABLE.has(x.code)))
      return true;
    if (typeof x.code === 'number' && GRPC_UNAVAILABLE.has(x.code) && 'metadata' in x) return true;
    if (typeof x.message === 'string' && CONNECTION_LOST.test(x.message)) return true;
    if (x.name === 'ConnectionError') return true;
    e = x.cause;
  }
  return false;
}

/** Seconds a client is asked to wait before retrying a 503. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

/**
 * The one error boundary: HttpErrors become their JSON body, body-parser and other client
 * errors keep their 4xx status with a JSON detail, a dependency that cannot be reached is a 503
 * with Retry-After, and anything else unexpected is logged with the request id and masked as a
 * 500. Never an HTML page or a stack trace.
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
        ctx.set(err.headers);
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
      if (dependencyUnavailable(err)) {
        logger.warn('dependency unavailable', failureFields(ctx, err, { stack: false }));
        ctx.status = 503;
        ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
        ctx.body = {
          detail:
            'Service Unavailable: a dependency (database or settlement service) is unreachable; retry later',
        };
        return;
      }
      logger.error('unhandled error', failureFields(ctx, err));
      ctx.status = 500;
      ctx.body = { detail: 'Internal Server Error' };
    }
  };
}

/**
 * The log fields of a request that failed with `err`: its request id, method and path, and the
 * error's name and message (and stack, unless `stack: false`), or the thrown value as a string.
 */
export function failureFields(ctx: Context, err: unknown, o: { stack?: boolean } = {}) {
  return {
    request_id: ctx.state.requestId,
    method: ctx.method,
    path: ctx.path,
    error:
      err instanceof Error
        ? { name: err.name, message: err.message, ...(o.stack === false ? {} : { stack: err.stack }) }
        : String(err),
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
