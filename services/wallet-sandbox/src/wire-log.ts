import { closeSync, openSync, writeSync } from 'node:fs';
import { sha256Hex } from '@opi/signing';
import type { Context, Next } from 'koa';
import { readRawBody } from './http.js';

/**
 * The wire log: one JSON line per request that reached a /wallet route, written the moment it
 * arrives — before fault injection, before the signature check — so it shows everything the
 * caller ever sent, including requests then reset, failed with a 5xx, held until timeout, or
 * refused with 401 (none of which reach `wallet.requests`). Reliability tests read it to prove
 * what was never sent: a replacement debit, a speculative refund, a retry whose bytes changed.
 *
 * Fields: `seq`, `at` (ms since the epoch), `operation` (the path), the `x-pp-nonce`,
 * `x-pp-timestamp` and `x-pp-request-id` headers, `bytes`, `sha256` of the raw body, and when the
 * body is a JSON object its `operator_id`, `transaction_id`, `transaction_type`, `round_id`,
 * `player_id`, `currency`, `amount_minor` and `original_transaction_id` as sent. It is evidence,
 * not a ledger: it is never read by the wallet itself.
 */
export interface WireRecord {
  seq: number;
  at: number;
  operation: string;
  nonce: string | null;
  timestamp: string | null;
  request_id: string | null;
  bytes: number;
  sha256: string;
  operator_id?: unknown;
  transaction_id?: unknown;
  transaction_type?: unknown;
  round_id?: unknown;
  player_id?: unknown;
  currency?: unknown;
  amount_minor?: unknown;
  original_transaction_id?: unknown;
}

const FIELDS = [
  'operator_id',
  'transaction_id',
  'transaction_type',
  'round_id',
  'player_id',
  'currency',
  'amount_minor',
  'original_transaction_id',
] as const;

export class WireLog {
  private fd: number | undefined;
  private seq = 0;

  /** Appends to `file` (created when missing). */
  constructor(readonly file: string) {
    this.fd = openSync(file, 'a');
  }

  record(ctx: Context, raw: Buffer | null): void {
    if (this.fd === undefined) return;
    const entry: WireRecord = {
      seq: ++this.seq,
      at: Date.now(),
      operation: ctx.path.replace(/^\/wallet\/?/, ''),
      nonce: ctx.get('x-pp-nonce') || null,
      timestamp: ctx.get('x-pp-timestamp') || null,
      request_id: ctx.get('x-pp-request-id') || null,
      bytes: raw?.length ?? -1,
      sha256: raw ? sha256Hex(raw) : '',
    };
    if (raw) {
      try {
        const body = JSON.parse(raw.toString('utf8')) as unknown;
        if (body && typeof body === 'object' && !Array.isArray(body)) {
          for (const f of FIELDS) {
            const v = (body as Record<string, unknown>)[f];
            if (v !== undefined) entry[f] = v;
          }
        }
      } catch {
        // Not JSON: the hash and size say what arrived.
      }
    }
    // One write per line (O_APPEND): lines never interleave, and each is on disk in order.
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
  }

  /**
   * Middleware for /wallet routes, mounted before fault injection: reads the raw body (kept in
   * ctx.state.rawBody for the route, so it is read once) and records the request.
   */
  middleware() {
    return async (ctx: Context, next: Next) => {
      let raw: Buffer | null = null;
      try {
        raw = ctx.method === 'POST' ? await readRawBody(ctx) : Buffer.alloc(0);
      } finally {
        // An oversize body is recorded (bytes -1) and then answered 413 as before.
        this.record(ctx, raw);
      }
      ctx.state.rawBody = raw;
      await next();
    };
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
