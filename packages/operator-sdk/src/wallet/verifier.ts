import { checkWalletSignature, type WalletSignatureFailure } from '../signing.js';
import type { WalletCallbackRequest, WalletErrorResponse } from '../types.js';
import { MemoryNonceStore, type NonceStore } from './nonce-store.js';

/*
 * Verifying the service's wallet callbacks on the operator's side (pp-wallet-v1): the signature
 * over the exact raw body bytes, the timestamp within the skew window, the nonce used once. Fail
 * closed: anything else is 401 `invalid_signature`, before the body is even parsed.
 */

export const WALLET_OPERATIONS = ['balance', 'debit', 'credit', 'cancel', 'rollback'] as const;
export type WalletOperation = (typeof WALLET_OPERATIONS)[number];

export interface WalletVerifierOptions {
  /**
   * The wallet secret the service signs with. Several during a rotation: the current one first;
   * a callback signed with any of them passes.
   */
  secret: string | string[];
  /** Allowed clock difference, seconds, either way (default 300, as the service's). */
  maxSkewSeconds?: number;
  /**
   * Where used nonces are remembered. Default: this process's memory; with several processes or
   * hosts, a shared store (Redis SET NX with expiry, a unique database row).
   */
  nonceStore?: NonceStore;
  /** The clock, Unix seconds (tests). */
  nowSeconds?: () => number;
}

export type WalletFailureReason =
  | WalletSignatureFailure
  | 'replayed_nonce'
  | 'malformed_body'
  | 'operation_mismatch';

export interface VerifiedWalletCallback {
  ok: true;
  /** The parsed body (parsed only after the signature passed). */
  body: WalletCallbackRequest;
  /** The exact bytes that were signed. */
  rawBody: Buffer;
  operation: WalletOperation;
  requestId: string | undefined;
  /** W3C trace context of the service's call: log it with your side of the transaction. */
  traceparent: string | undefined;
  timestamp: string;
  nonce: string;
}

export interface RejectedWalletCallback {
  ok: false;
  /** What to answer: 401 for signature problems, 400 for a body that is not a wallet callback. */
  status: 400 | 401;
  reason: WalletFailureReason;
  body: WalletErrorResponse;
}

export type WalletCallbackResult = VerifiedWalletCallback | RejectedWalletCallback;

export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const v = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? v[0] : v;
}

const MESSAGES: Record<WalletFailureReason, string> = {
  missing_headers: 'x-pp-timestamp, x-pp-nonce and x-pp-signature are required',
  stale_timestamp: 'x-pp-timestamp is outside the allowed skew',
  invalid_nonce: 'x-pp-nonce must be 32 lower-case hex characters',
  invalid_signature: 'the signature does not match the body',
  replayed_nonce: 'x-pp-nonce was already used',
  malformed_body: 'the body is not a wallet callback',
  operation_mismatch: 'transaction_type does not match the endpoint',
};

const reject = (status: 400 | 401, reason: WalletFailureReason): RejectedWalletCallback => ({
  ok: false,
  status,
  reason,
  body: {
    success: false,
    error: status === 401 ? 'invalid_signature' : 'invalid_request',
    message: MESSAGES[reason],
  },
});

export class WalletCallbackVerifier {
  private readonly secrets: string[];
  private readonly maxSkewSeconds: number;
  private readonly nonces: NonceStore;
  private readonly now: () => number;

  constructor(options: WalletVerifierOptions) {
    this.secrets = (Array.isArray(options.secret) ? options.secret : [options.secret]).filter(Boolean);
    if (this.secrets.length === 0) throw new Error('a wallet secret is required');
    this.maxSkewSeconds = options.maxSkewSeconds ?? 300;
    this.nonces = options.nonceStore ?? new MemoryNonceStore();
    this.now = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  }

  /**
   * Verifies one callback. `operation` is the endpoint it arrived on (`debit` for
   * `{wallet_base_url}/debit`); when given, the body's transaction_type must match it.
   */
  async verify(input: {
    headers: HeaderBag;
    rawBody: Buffer | Uint8Array | string;
    operation?: string;
  }): Promise<WalletCallbackResult> {
    const raw = Buffer.isBuffer(input.rawBody) ? input.rawBody : Buffer.from(input.rawBody);
    const presented = {
      timestamp: header(input.headers, 'x-pp-timestamp'),
      nonce: header(input.headers, 'x-pp-nonce'),
      signature: header(input.headers, 'x-pp-signature'),
    };
    let failure: WalletSignatureFailure = 'invalid_signature';
    let passed = false;
    for (const secret of this.secrets) {
      const check = checkWalletSignature(secret, presented, raw, {
        nowSeconds: this.now(),
        maxSkewSeconds: this.maxSkewSeconds,
      });
      if (check.ok) {
        passed = true;
        break;
      }
      failure = check.reason;
      if (check.reason !== 'invalid_signature') break; // the same for every secret
    }
    if (!passed) return reject(401, failure);
    // Only a genuine callback spends a nonce (so a forger cannot fill the store). Remember it past
    // the whole window in which its timestamp could still pass.
    if (!(await this.nonces.claim(presented.nonce!, this.maxSkewSeconds * 2 + 60))) {
      return reject(401, 'replayed_nonce');
    }
    let body: WalletCallbackRequest;
    try {
      body = JSON.parse(raw.toString('utf8')) as WalletCallbackRequest;
    } catch {
      return reject(400, 'malformed_body');
    }
    if (
      !body ||
      typeof body !== 'object' ||
      typeof body.transaction_id !== 'string' ||
      !(WALLET_OPERATIONS as readonly string[]).includes(body.transaction_type)
    ) {
      return reject(400, 'malformed_body');
    }
    if (input.operation !== undefined && input.operation !== body.transaction_type) {
      return reject(400, 'operation_mismatch');
    }
    return {
      ok: true,
      body,
      rawBody: raw,
      operation: body.transaction_type as WalletOperation,
      requestId: header(input.headers, 'x-pp-request-id'),
      traceparent: header(input.headers, 'traceparent'),
      timestamp: presented.timestamp!,
      nonce: presented.nonce!,
    };
  }
}

export function createWalletCallbackVerifier(options: WalletVerifierOptions): WalletCallbackVerifier {
  return new WalletCallbackVerifier(options);
}

/** The answer to a successful wallet operation: HTTP 200. `balance` is a decimal string. */
export function walletSuccess(
  balance: string,
  extra: { currency?: string; transaction_id?: string } = {},
): { status: 200; body: { success: true; balance: string; currency?: string; transaction_id?: string } } {
  if (!/^-?[0-9]+(?:\.[0-9]+)?$/.test(balance))
    throw new Error(`balance must be a decimal string: ${balance}`);
  return { status: 200, body: { success: true, balance, ...extra } };
}

/** The answer to a rejected wallet operation (e.g. `insufficient_funds`, `unknown_player`): HTTP 400. */
export function walletRejection(error: string, message?: string): { status: 400; body: WalletErrorResponse } {
  return { status: 400, body: { success: false, error, ...(message ? { message } : {}) } };
}
