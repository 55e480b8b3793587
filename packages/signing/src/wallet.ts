import { HEADER_NONCE, HEADER_SIGNATURE, HEADER_TIMESTAMP } from './headers.js';
import { hmacHex, newCallbackNonce } from './hmac.js';
import { unixSeconds } from './timestamp.js';
import { type SignatureCheck, type VerifyOptions, verifySignedHeaders } from './verify.js';

export const WALLET_SCHEME = 'pp-wallet-v1';

export interface WalletSigningInput {
  timestamp: string;
  nonce: string;
  /** The exact raw JSON body bytes sent to the wallet. */
  body: string | Uint8Array;
}

/** The canonical string of a wallet callback: `pp-wallet-v1\n<timestamp>\n<nonce>\n<raw body>`. */
export function walletCanonicalString(input: WalletSigningInput): Buffer {
  const head = Buffer.from(`${WALLET_SCHEME}\n${input.timestamp}\n${input.nonce}\n`, 'utf8');
  const body = typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : Buffer.from(input.body);
  return Buffer.concat([head, body]);
}

/** Hex HMAC-SHA256 of the canonical string, keyed by the operator's wallet secret. */
export function signWalletCallback(walletSecret: string, input: WalletSigningInput): string {
  return hmacHex(walletSecret, walletCanonicalString(input));
}

/**
 * The signature headers of one wallet callback over the exact `body` bytes: the timestamp and
 * nonce (fresh unless given: a test replays or ages them) and their signature.
 */
export function signedWalletHeaders(
  walletSecret: string,
  body: string | Uint8Array,
  given: { timestamp?: string; nonce?: string } = {},
): Record<string, string> {
  const timestamp = given.timestamp ?? unixSeconds();
  const nonce = given.nonce ?? newCallbackNonce();
  return {
    [HEADER_TIMESTAMP]: timestamp,
    [HEADER_NONCE]: nonce,
    [HEADER_SIGNATURE]: signWalletCallback(walletSecret, { timestamp, nonce, body }),
  };
}

const CALLBACK_NONCE = /^[0-9a-f]{32}$/;

/**
 * Verifies a wallet callback on the operator's side, over the raw body bytes. Never throws;
 * nonce single-use is the caller's job.
 */
export function verifyWalletCallback(
  walletSecret: string,
  headers: { timestamp?: unknown; nonce?: unknown; signature?: unknown },
  body: string | Uint8Array,
  options: VerifyOptions = {},
): SignatureCheck {
  return verifySignedHeaders(
    headers,
    CALLBACK_NONCE,
    (timestamp, nonce) => signWalletCallback(walletSecret, { timestamp, nonce, body }),
    options,
  );
}
