import { hmacHex, sha256Hex, signaturesMatch } from './hmac.js';
import { DEFAULT_MAX_SKEW_SECONDS, timestampFresh } from './timestamp.js';

export const OPERATOR_SCHEME = 'pp-operator-v1';

export interface OperatorSigningInput {
  timestamp: string;
  nonce: string;
  /** HTTP method; upper-cased here. */
  method: string;
  /** The exact path and query as sent on the request line, e.g. `/api/operator/v1/rounds?limit=10`. */
  pathAndQuery: string;
  /** The exact raw body bytes; empty for a request without a body. */
  body: string | Uint8Array;
}

/**
 * The canonical string of an operator request:
 * `pp-operator-v1\n<timestamp>\n<nonce>\n<METHOD>\n<path and query>\n<sha256 hex of raw body>`.
 */
export function operatorCanonicalString(input: OperatorSigningInput): string {
  return [
    OPERATOR_SCHEME,
    input.timestamp,
    input.nonce,
    input.method.toUpperCase(),
    input.pathAndQuery,
    sha256Hex(input.body),
  ].join('\n');
}

/** Hex HMAC-SHA256 of the canonical string, keyed by the operator API key. */
export function signOperatorRequest(apiKey: string, input: OperatorSigningInput): string {
  return hmacHex(apiKey, operatorCanonicalString(input));
}

export type SignatureCheck = { ok: true } | { ok: false; reason: SignatureFailure };
export type SignatureFailure = 'missing_headers' | 'stale_timestamp' | 'invalid_nonce' | 'invalid_signature';

export interface VerifyOptions {
  nowSeconds?: number;
  maxSkewSeconds?: number;
}

const OPERATOR_NONCE = /^[\x21-\x7e]{16,128}$/;

/**
 * Verifies an operator request's signature headers. Never throws; nonce single-use is the
 * caller's job (it needs shared storage).
 */
export function verifyOperatorRequest(
  apiKey: string,
  headers: { timestamp?: unknown; nonce?: unknown; signature?: unknown },
  request: { method: string; pathAndQuery: string; body: string | Uint8Array },
  options: VerifyOptions = {},
): SignatureCheck {
  const { timestamp, nonce, signature } = headers;
  if (typeof timestamp !== 'string' || typeof nonce !== 'string' || typeof signature !== 'string') {
    return { ok: false, reason: 'missing_headers' };
  }
  if (!timestampFresh(timestamp, options.nowSeconds, options.maxSkewSeconds ?? DEFAULT_MAX_SKEW_SECONDS)) {
    return { ok: false, reason: 'stale_timestamp' };
  }
  if (!OPERATOR_NONCE.test(nonce)) return { ok: false, reason: 'invalid_nonce' };
  const expected = signOperatorRequest(apiKey, { timestamp, nonce, ...request });
  return signaturesMatch(expected, signature) ? { ok: true } : { ok: false, reason: 'invalid_signature' };
}
