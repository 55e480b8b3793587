import type { Context } from 'koa';

/** Largest callback or admin body accepted, bytes. */
export const BODY_LIMIT = 64 * 1024;

/** An error answered as the wallet error body `{success: false, error, message}`. */
export class WalletHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'WalletHttpError';
  }
}

/** The exact JSON text of a wallet error body. */
export function errorBody(code: string, message: string): string {
  return JSON.stringify({ success: false, error: code, message });
}

/** Sends `text` (already serialised JSON) unchanged: the bytes on the wire are exactly these. */
export function sendJsonText(ctx: Context, status: number, text: string): void {
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = text;
}

export function sendError(ctx: Context, status: number, code: string, message: string): void {
  sendJsonText(ctx, status, errorBody(code, message));
}

/**
 * Reads the raw request body bytes, unparsed and unchanged (signatures are verified over exactly
 * these bytes; nothing is re-serialised). Larger than `limit`: 413.
 */
export async function readRawBody(ctx: Context, limit = BODY_LIMIT): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit)
    throw new WalletHttpError(413, 'invalid_request', `request body larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit)
      throw new WalletHttpError(413, 'invalid_request', `request body larger than ${limit} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** JSON.stringify with bigint written as decimal strings. */
export function stringifyJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}
