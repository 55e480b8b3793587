import type { Context, Next } from 'koa';
import { HttpError } from './errors.js';

export const DEFAULT_BODY_LIMIT = 64 * 1024;
export const ARTWORK_BODY_LIMIT = 5 * 1024 * 1024;

async function collect(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw new HttpError(413, `Request body larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  if (ctx.method !== 'HEAD') {
    try {
      for await (const chunk of ctx.req) {
        size += (chunk as Buffer).length;
        // Past the limit, keep reading (and discarding) to the end of the body, as Node itself does
        // for a declared oversize body: leaving the loop early would destroy the connection under
        // a 413 that says keep-alive, and the client could lose the answer to a reset.
        if (size <= limit) chunks.push(chunk as Buffer);
      }
    } catch {
      // The client aborted or reset mid-body: its fault, not an unhandled server error.
      throw new HttpError(400, 'The request body was not received completely');
    }
  }
  if (size > limit) throw new HttpError(413, `Request body larger than ${limit} bytes`);
  return Buffer.concat(chunks);
}

/** Reads the raw body bytes into ctx.state.rawBody (no parsing), up to `limit` (else 413). */
export function readRawBody(limit = DEFAULT_BODY_LIMIT) {
  return async (ctx: Context, next: Next) => {
    ctx.state.rawBody = await collect(ctx, limit);
    await next();
  };
}

/**
 * Reads the raw request body once (kept as bytes in ctx.state.rawBody for signature checks) and
 * parses JSON bodies into ctx.state.body. Too large: 413. Not JSON: 415. Malformed: 400.
 * Nothing is re-serialised before the signature is checked.
 */
export function readBody(limit = DEFAULT_BODY_LIMIT) {
  return async (ctx: Context, next: Next) => {
    const raw = await collect(ctx, limit);
    ctx.state.rawBody = raw;
    ctx.state.body = undefined;
    if (raw.length > 0) {
      const type = ctx.get('content-type');
      if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
        throw new HttpError(415, 'Request body must be application/json');
      }
      try {
        ctx.state.body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new HttpError(400, 'Malformed JSON body');
      }
    }
    await next();
  };
}
