import { randomBytes } from 'node:crypto';
import {
  HEADER_NONCE,
  HEADER_REQUEST_ID,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  newCallbackNonce,
  signWalletCallback,
  unixSeconds,
} from '@opi/signing';
import { classifyResponse, type WalletOutcome } from './classify.js';

export interface WalletRequest {
  /** `{wallet_base_url}`; the operation is appended (`/debit`, ...). */
  baseUrl: string;
  operation: 'balance' | 'debit' | 'credit' | 'cancel' | 'rollback';
  secret: string;
  /** The exact body bytes: stored in the journal before the first send, resent unchanged. */
  body: string;
  requestId: string;
  /** W3C trace context; a new one is made when absent. */
  traceparent?: string;
  timeoutMs: number;
}

/** A W3C traceparent (version 00, sampled). */
export function newTraceparent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

/**
 * One signed attempt: a fresh timestamp and nonce each time, the same body. Never throws: a
 * timeout or connection failure is an uncertain outcome.
 */
export async function sendWalletCallback(req: WalletRequest): Promise<WalletOutcome> {
  const timestamp = unixSeconds();
  const nonce = newCallbackNonce();
  const signature = signWalletCallback(req.secret, { timestamp, nonce, body: req.body });
  const url = `${req.baseUrl.replace(/\/+$/, '')}/${req.operation}`;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [HEADER_REQUEST_ID]: req.requestId,
        [HEADER_TIMESTAMP]: timestamp,
        [HEADER_NONCE]: nonce,
        [HEADER_SIGNATURE]: signature,
        traceparent: req.traceparent ?? newTraceparent(),
      },
      body: req.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    const text = await res.text();
    return classifyResponse(res.status, text);
  } catch (err) {
    const e = err as { name?: string; message?: string; cause?: { code?: string } };
    const reason =
      e.name === 'TimeoutError'
        ? `timeout after ${req.timeoutMs} ms`
        : `${e.cause?.code ?? e.name ?? 'error'}: ${e.message}`;
    return { kind: 'uncertain', reason };
  }
}
