/*
 * The two signature schemes, from the platform's own implementation (@opi/signing): the source
 * imports it and the build bundles it into dist/index.js, so the published SDK depends on nothing
 * but Node. Only these wrappers (with the SDK's own types) are exported.
 */
import {
  newRequestNonce,
  operatorCanonicalString,
  sha256Hex as sha256,
  signOperatorRequest,
  signWalletCallback,
  unixSeconds,
  verifyWalletCallback,
} from '@opi/signing';

export interface OperatorRequestToSign {
  method: string;
  /** The exact path and query as sent, e.g. `/api/operator/v1/rounds?limit=10`. */
  pathAndQuery: string;
  /** The exact body bytes ('' without a body). */
  body: string | Uint8Array;
}

/** The three signature headers of one request (pp-operator-v1): a fresh nonce and timestamp each call. */
export function operatorSignatureHeaders(
  apiKey: string,
  request: OperatorRequestToSign,
  at: { timestamp?: string; nonce?: string } = {},
): { 'x-pp-timestamp': string; 'x-pp-nonce': string; 'x-pp-signature': string } {
  const timestamp = at.timestamp ?? unixSeconds();
  const nonce = at.nonce ?? newRequestNonce();
  return {
    'x-pp-timestamp': timestamp,
    'x-pp-nonce': nonce,
    'x-pp-signature': signOperatorRequest(apiKey, { ...request, timestamp, nonce }),
  };
}

/** `pp-operator-v1\n<timestamp>\n<nonce>\n<METHOD>\n<path and query>\n<sha256 hex of body>`. */
export function operatorStringToSign(
  request: OperatorRequestToSign & { timestamp: string; nonce: string },
): string {
  return operatorCanonicalString(request);
}

export type WalletSignatureFailure =
  | 'missing_headers'
  | 'stale_timestamp'
  | 'invalid_nonce'
  | 'invalid_signature';

/** Checks a wallet callback's signature over the raw body bytes (no nonce bookkeeping). */
export function checkWalletSignature(
  secret: string,
  headers: { timestamp?: unknown; nonce?: unknown; signature?: unknown },
  rawBody: string | Uint8Array,
  options: { nowSeconds?: number; maxSkewSeconds?: number } = {},
): { ok: true } | { ok: false; reason: WalletSignatureFailure } {
  return verifyWalletCallback(secret, headers, rawBody, options);
}

/** Signs a wallet callback as the service does (for your own tests of your wallet). */
export function walletSignature(
  secret: string,
  input: { timestamp: string; nonce: string; body: string | Uint8Array },
): string {
  return signWalletCallback(secret, input);
}

/** Lower-case hex SHA-256 of the raw bytes (the body hash of the operator signature). */
export function sha256Hex(body: string | Uint8Array): string {
  return sha256(body);
}
