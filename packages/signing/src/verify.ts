import { signaturesMatch } from './hmac.js';
import { DEFAULT_MAX_SKEW_SECONDS, timestampFresh } from './timestamp.js';

export type SignatureCheck = { ok: true } | { ok: false; reason: SignatureFailure };
export type SignatureFailure = 'missing_headers' | 'stale_timestamp' | 'invalid_nonce' | 'invalid_signature';

export interface VerifyOptions {
  nowSeconds?: number;
  maxSkewSeconds?: number;
}

/**
 * The checks every signed message shares, in order: the three headers present, the timestamp
 * fresh, the nonce of the scheme's form, then the signature equal (in constant time) to the one
 * `expected` computes from the timestamp and nonce. Never throws; nonce single-use is the
 * caller's job (it needs shared storage).
 */
export function verifySignedHeaders(
  headers: { timestamp?: unknown; nonce?: unknown; signature?: unknown },
  nonceForm: RegExp,
  expected: (timestamp: string, nonce: string) => string,
  options: VerifyOptions = {},
): SignatureCheck {
  const { timestamp, nonce, signature } = headers;
  if (typeof timestamp !== 'string' || typeof nonce !== 'string' || typeof signature !== 'string') {
    return { ok: false, reason: 'missing_headers' };
  }
  if (!timestampFresh(timestamp, options.nowSeconds, options.maxSkewSeconds ?? DEFAULT_MAX_SKEW_SECONDS)) {
    return { ok: false, reason: 'stale_timestamp' };
  }
  if (!nonceForm.test(nonce)) return { ok: false, reason: 'invalid_nonce' };
  return signaturesMatch(expected(timestamp, nonce), signature)
    ? { ok: true }
    : { ok: false, reason: 'invalid_signature' };
}
