import { createHash, createHmac, randomFillSync, timingSafeEqual } from 'node:crypto';

/** Lower-case hex SHA-256 of the raw bytes (an empty body hashes the empty string). */
export function sha256Hex(body: string | Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

/** Lower-case hex HMAC-SHA256 of `message` keyed by `key`. */
export function hmacHex(key: string | Uint8Array, message: string | Uint8Array): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

const HEX_64 = /^[0-9a-fA-F]{64}$/;

/**
 * Compares a presented hex signature with the expected one in constant time.
 * Answers false (never throws) for a signature of the wrong length or alphabet.
 * Hex is case-insensitive on input; we always emit lower case.
 */
export function signaturesMatch(expectedHex: string, presented: unknown): boolean {
  if (typeof presented !== 'string' || !HEX_64.test(presented)) return false;
  const a = Buffer.from(expectedHex, 'hex');
  const b = Buffer.from(presented.toLowerCase(), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A callback nonce: 32 lower-case hex characters from the CSPRNG. */
export function newCallbackNonce(): string {
  return randomHex(16);
}

/** An operator request nonce: 32 hex characters (the spec allows 16 to 128). */
export function newRequestNonce(): string {
  return randomHex(16);
}

/**
 * Hex of `bytes` bytes from the CSPRNG, drawn a pooled 4 KB at a time: a nonce is made for every
 * wallet call and signed request, and a trace id for every request (@opi/config/trace); one
 * `randomBytes` call each was a visible share of a spin's CPU. Each byte of the pool is used once.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;
export function randomHex(bytes: number): string {
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}
