import type { IncomingMessage, ServerResponse } from 'node:http';
import type { VerifiedWalletCallback, WalletCallbackVerifier } from './verifier.js';

/*
 * The verifier in three web stacks. Each reads the raw body bytes itself (or takes the ones a raw
 * body parser kept), verifies before anything parses the JSON, answers 401 `invalid_signature`
 * (or 400 for a body that is not a wallet callback) and otherwise hands the verified callback on.
 * The endpoint (`/debit` ...) is the last path segment; the body's transaction_type must match it.
 */

/** The largest callback body read (callbacks are well under 2 KiB). */
const MAX_BODY = 64 * 1024;

function readRaw(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () =>
      size > MAX_BODY ? reject(new Error('body too large')) : resolve(Buffer.concat(chunks)),
    );
    req.on('error', reject);
  });
}

function operationOf(url: string | undefined): string | undefined {
  const path = (url ?? '').split('?')[0]!.replace(/\/+$/, '');
  return path.slice(path.lastIndexOf('/') + 1) || undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

/** A raw body a parser already kept: a Buffer `body` (express.raw()), or `rawBody`. */
function keptRawBody(req: unknown): Buffer | undefined {
  const r = req as { body?: unknown; rawBody?: unknown; request?: { rawBody?: unknown } };
  if (Buffer.isBuffer(r.body)) return r.body;
  if (Buffer.isBuffer(r.rawBody) || typeof r.rawBody === 'string') return Buffer.from(r.rawBody as string);
  return undefined;
}

export interface WalletHandlerResult {
  status: number;
  body: unknown;
}

/**
 * A plain node:http request listener: verifies, then calls `handle` with the verified callback
 * and answers what it returns (use walletSuccess / walletRejection).
 *
 *   http.createServer(nodeWalletHandler(verifier, async (cb) => walletSuccess('10.00'))).listen(8443)
 */
export function nodeWalletHandler(
  verifier: WalletCallbackVerifier,
  handle: (
    callback: VerifiedWalletCallback,
    req: IncomingMessage,
  ) => Promise<WalletHandlerResult> | WalletHandlerResult,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void (async () => {
      if (req.method !== 'POST') return sendJson(res, 405, { success: false, error: 'method_not_allowed' });
      let raw: Buffer;
      try {
        raw = await readRaw(req);
      } catch {
        return sendJson(res, 413, { success: false, error: 'invalid_request', message: 'body too large' });
      }
      const result = await verifier.verify({
        headers: req.headers,
        rawBody: raw,
        operation: operationOf(req.url),
      });
      if (!result.ok) return sendJson(res, result.status, result.body);
      const answer = await handle(result, req);
      sendJson(res, answer.status, answer.body);
    })().catch(() => {
      // A failure of the handler is not a rejection: 500 makes the service retry the same body.
      if (!res.headersSent) sendJson(res, 500, { success: false, error: 'internal_error' });
    });
  };
}

/**
 * Express-style middleware `(req, res, next)`: verifies and sets `req.walletCallback`, or answers
 * the rejection. Mount it before any JSON body parser, or after `express.raw({ type: '*\/*' })`.
 *
 *   app.post('/wallet/:op', expressWalletCallback(verifier), (req, res) => res.json(...))
 */
export function expressWalletCallback(verifier: WalletCallbackVerifier) {
  return (
    req: IncomingMessage & { walletCallback?: VerifiedWalletCallback; originalUrl?: string },
    res: ServerResponse,
    next: (err?: unknown) => void,
  ): void => {
    void (async () => {
      const raw = keptRawBody(req) ?? (await readRaw(req));
      const result = await verifier.verify({
        headers: req.headers,
        rawBody: raw,
        operation: operationOf(req.originalUrl ?? req.url),
      });
      if (!result.ok) return sendJson(res, result.status, result.body);
      req.walletCallback = result;
      next();
    })().catch(next);
  };
}

/** The parts of a Koa context the middleware uses (no dependency on Koa's types). */
interface KoaLikeContext {
  req: IncomingMessage;
  request: { rawBody?: string | Buffer; body?: unknown };
  path: string;
  status: number;
  body: unknown;
  state: Record<string, unknown>;
}

/**
 * Koa middleware: verifies and sets `ctx.state.walletCallback`, or answers the rejection. Mount it
 * before a body parser (or use one that keeps `ctx.request.rawBody`).
 *
 *   router.post('/wallet/:op', koaWalletCallback(verifier), async (ctx) => { ctx.body = ... })
 */
export function koaWalletCallback(verifier: WalletCallbackVerifier) {
  return async (ctx: KoaLikeContext, next: () => Promise<unknown>): Promise<void> => {
    const kept = ctx.request.rawBody;
    const raw =
      kept !== undefined ? Buffer.from(kept) : (keptRawBody(ctx.request) ?? (await readRaw(ctx.req)));
    const result = await verifier.verify({
      headers: ctx.req.headers,
      rawBody: raw,
      operation: operationOf(ctx.path),
    });
    if (!result.ok) {
      ctx.status = result.status;
      ctx.body = result.body;
      return;
    }
    ctx.state.walletCallback = result;
    await next();
  };
}
