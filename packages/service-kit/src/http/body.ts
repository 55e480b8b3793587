import type { Context, Next } from 'koa';
import { HttpError } from './errors.js';
import { badRequest, unsupportedMediaType } from './named-errors.js';

export const DEFAULT_BODY_LIMIT = 64 * 1024;
export const ARTWORK_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * The whole body must arrive within this time, however it trickles: 10 s for the 64 KiB JSON
 * bodies (64 KiB in 10 s is ~52 kbit/s, slower than any network an operator's server or a player's
 * page runs on; real bodies are a few hundred bytes), 60 s for the 5 MiB artwork upload (~700
 * kbit/s). A body sent a few bytes a second would otherwise hold a connection and a request's
 * memory for Node's 5-minute request timeout.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
export const ARTWORK_BODY_TIMEOUT_MS = 60_000;
/** After a refused body, the connection is half-closed at once and destroyed after this grace. */
const CLOSE_GRACE_MS = 1_000;

/**
 * The answer to this request ends its connection: it says `Connection: close`, nothing more of the
 * body is read, and once the answer is written the connection is ended (and destroyed after a
 * short grace, whatever the client does). A client still sending may see a reset after the answer.
 */
export function closeAfterAnswer(ctx: Context): void {
  ctx.set('Connection', 'close');
  const socket = ctx.req.socket;
  ctx.req.pause();
  let done = false;
  const close = () => {
    if (done) return;
    done = true;
    socket.end();
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  };
  ctx.res.once('finish', close);
  ctx.res.once('close', close);
}

/** Whether the request carries a body not read yet (declared or chunked). */
export function bodyPending(ctx: Context): boolean {
  if (ctx.req.readableEnded) return false;
  return Number(ctx.get('content-length') || '0') > 0 || ctx.get('transfer-encoding') !== '';
}

function refuseBody(ctx: Context, status: number, detail: string): HttpError {
  closeAfterAnswer(ctx);
  return new HttpError(status, detail);
}

function collect(ctx: Context, limit: number, timeoutMs: number): Promise<Buffer> {
  const declared = ctx.get('content-length');
  if (declared && Number(declared) > limit) {
    // Declared too large: refused before a byte of it is read.
    return Promise.reject(refuseBody(ctx, 413, `Request body larger than ${limit} bytes`));
  }
  if (ctx.method === 'HEAD' || ctx.req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  const req = ctx.req;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: HttpError | null) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Past the limit: stop reading now (a chunked body declares no length) and close.
        settle(refuseBody(ctx, 413, `Request body larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    // The client aborted or reset mid-body: its fault, not an unhandled server error.
    const onAbort = () => settle(badRequest('The request body was not received completely'));
    const onClose = () => {
      if (!req.complete) onAbort();
    };
    const timer = setTimeout(
      () => settle(refuseBody(ctx, 408, `The request body was not received within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}

/** Reads the raw body bytes into ctx.state.rawBody (no parsing), up to `limit` (else 413). */
export function readRawBody(limit = DEFAULT_BODY_LIMIT, timeoutMs = DEFAULT_BODY_TIMEOUT_MS) {
  return async (ctx: Context, next: Next) => {
    ctx.state.rawBody = await collect(ctx, limit, timeoutMs);
    await next();
  };
}

/**
 * Reads the raw request body once (kept as bytes in ctx.state.rawBody for signature checks) and
 * parses JSON bodies into ctx.state.body. Too large: 413 (declared: before reading; chunked: as
 * soon as the count passes the limit), with `Connection: close`. Not received in time: 408. Not
 * JSON: 415. Malformed: 400. Nothing is re-serialised before the signature is checked.
 */
export function readBody(limit = DEFAULT_BODY_LIMIT, timeoutMs = DEFAULT_BODY_TIMEOUT_MS) {
  return async (ctx: Context, next: Next) => {
    const raw = await collect(ctx, limit, timeoutMs);
    ctx.state.rawBody = raw;
    ctx.state.body = undefined;
    if (raw.length > 0) {
      const type = ctx.get('content-type');
      if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
        throw unsupportedMediaType('Request body must be application/json');
      }
      try {
        ctx.state.body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw badRequest('Malformed JSON body');
      }
    }
    await next();
  };
}
