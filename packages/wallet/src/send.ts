import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { childTrace, currentTrace } from '@opi/config/trace';
import { HEADER_REQUEST_ID, signedWalletHeaders } from '@opi/signing';
import {
  guardedLookup,
  literalHostRefusal,
  WALLET_ADDRESS_REFUSED,
  type WalletNetworkPolicy,
} from './address-policy.js';
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
  /**
   * Which addresses the wallet may have (address-policy.ts). Absent: loopback and private networks
   * allowed (tests); link-local and metadata addresses are refused whatever the policy.
   */
  network?: WalletNetworkPolicy;
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
  const url = `${req.baseUrl.replace(/\/+$/, '')}/${req.operation}`;
  try {
    const res = await post(
      url,
      {
        'content-type': 'application/json',
        [HEADER_REQUEST_ID]: req.requestId,
        ...signedWalletHeaders(req.secret, req.body),
        traceparent,
      },
      req.body,
      req.timeoutMs,
      req.network ?? PERMISSIVE,
    );
    return classifyResponse(res.status, res.text);
  } catch (err) {
    const e = err as { name?: string; message?: string; code?: string };
    // Refused before any connection: nothing was sent. A configuration fault, like a 401.
    if (e.code === WALLET_ADDRESS_REFUSED)
      return { kind: 'config_fault', error: 'wallet_address_refused', message: e.message ?? '' };
    const reason =
      e.name === 'TimeoutError'
        ? `timeout after ${req.timeoutMs} ms`
        : `${e.code ?? e.name ?? 'error'}: ${e.message}`;
    return { kind: 'uncertain', reason };
  }
}

// Keep-alive connections to operators' wallets, shared by every callback of the process. Node's
// own HTTP client: the same exchange through fetch (undici, web streams, an AbortSignal per
// call) cost several times the CPU per callback (docs/benchmarks.md).
// An idle connection is closed after IDLE_SOCKET_MS, before a server's usual keep-alive timeout
// (Node's is 5 s) closes it under a request just sent on it (that attempt would be uncertain).
const IDLE_SOCKET_MS = 4_000;
// Each policy has its own agents (a socket one policy let through is never reused by the other);
// their lookup refuses a name that resolves to an address the policy refuses.
const PERMISSIVE: WalletNetworkPolicy = { allowPrivate: true };
const STRICT: WalletNetworkPolicy = { allowPrivate: false };
function agentsFor(policy: WalletNetworkPolicy) {
  const lookup = guardedLookup(policy);
  return {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 256, timeout: IDLE_SOCKET_MS, lookup }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 256, timeout: IDLE_SOCKET_MS, lookup }),
  };
}
const agentSets = { permissive: agentsFor(PERMISSIVE), strict: agentsFor(STRICT) };

/** A wallet answer larger than this is not a wallet answer (uncertain, the body is not read on). */
const MAX_ANSWER_BYTES = 1 << 20;

/**
 * One POST: the status and the body as text. Rejects on an address the policy refuses (code
 * WALLET_ADDRESS_REFUSED, before any connection), on a connection failure, on a timeout of the
 * whole exchange (name TimeoutError) and on an answer over MAX_ANSWER_BYTES. A redirect is an
 * answer like any other (never followed).
 */
function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  policy: WalletNetworkPolicy,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const agents = policy.allowPrivate ? agentSets.permissive : agentSets.strict;
    const agent = agents[target.protocol as keyof typeof agents];
    if (!agent) {
      reject(
        Object.assign(new Error(`unsupported protocol ${target.protocol}`), { code: 'ERR_INVALID_URL' }),
      );
      return;
    }
    // An address literal is connected to without a lookup: checked here.
    const refused = literalHostRefusal(target, policy);
    if (refused) {
      reject(refused);
      return;
    }
    const send = target.protocol === 'https:' ? https.request : http.request;
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const req = send(
      target,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            req.destroy();
            done(() =>
              reject(Object.assign(new Error(`answer over ${MAX_ANSWER_BYTES} bytes`), { code: 'ETOOBIG' })),
            );
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          done(() => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') })),
        );
        res.on('error', (err) => done(() => reject(err)));
        res.on('aborted', () =>
          done(() => reject(Object.assign(new Error('answer cut off'), { code: 'ECONNRESET' }))),
        );
      },
    );
    const timer = setTimeout(() => {
      const err = Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError' });
      done(() => reject(err));
      req.destroy(err);
    }, timeoutMs);
    req.on('error', (err) => done(() => reject(err)));
    req.end(body);
  });
}
