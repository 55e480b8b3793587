import { hmacHex, sha256Hex } from './hmac.js';
import { type SignatureCheck, type VerifyOptions, verifySignedHeaders } from './verify.js';

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
  return verifySignedHeaders(
    headers,
    OPERATOR_NONCE,
    (timestamp, nonce) => signOperatorRequest(apiKey, { timestamp, nonce, ...request }),
    options,
  );
}
