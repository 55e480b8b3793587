import { randomBytes } from 'node:crypto';
import { childTrace, currentTrace } from '@opi/config/trace';
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
  /**
   * W3C trace context of the work that causes the call: each attempt is sent as a new child span
   * of it. Absent: the trace of the request being handled (`@opi/config/trace`), else a new trace.
   */
  traceparent?: string;
  /** The operator (metrics and logs); read from the body when absent. */
  operatorId?: string;
  timeoutMs: number;
}

/** What one attempt did, for metrics and logs (see observeWalletCallbacks). */
export interface WalletCallbackObservation {
  operation: WalletRequest['operation'];
  operatorId: string;
  outcome: WalletOutcome;
  seconds: number;
  /** The traceparent the attempt was sent with. */
  traceparent: string;
  requestId: string;
}

const observers = new Set<(o: WalletCallbackObservation) => void>();

/**
 * Registers a function called after every attempt (each process registers its metrics once).
 * Returns the unregister function. An observer must not throw; one that does is ignored.
 */
export function observeWalletCallbacks(fn: (o: WalletCallbackObservation) => void): () => void {
  observers.add(fn);
  return () => observers.delete(fn);
}

function operatorOf(req: WalletRequest): string {
  if (req.operatorId) return req.operatorId;
  try {
    const id = (JSON.parse(req.body) as { operator_id?: unknown }).operator_id;
    return typeof id === 'string' ? id : 'unknown';
  } catch {
    return 'unknown';
  }
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
  const started = performance.now();
  const traceparent = childTrace(req.traceparent ?? currentTrace()).traceparent;
  const outcome = await attempt(req, traceparent);
  if (observers.size > 0) {
    const o: WalletCallbackObservation = {
      operation: req.operation,
      operatorId: operatorOf(req),
      outcome,
      seconds: (performance.now() - started) / 1000,
      traceparent,
      requestId: req.requestId,
    };
    for (const fn of observers) {
      try {
        fn(o);
      } catch {
        // Metrics and logs never change a settlement.
      }
    }
  }
  return outcome;
}

async function attempt(req: WalletRequest, traceparent: string): Promise<WalletOutcome> {
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
        traceparent,
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
