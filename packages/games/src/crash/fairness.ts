/**
 * Provably fair crash points (prov_d): scheme `crash-v1`.
 *
 * Seeds come from a hash chain per player and title. The server draws a random root seed_L and
 * derives seed_{i} = SHA-256(seed_{i+1}) down to seed_0, the chain's terminal hash, which is
 * published (shown on the page) when the chain is created. Rounds consume the chain backwards:
 * round k (k = 1 .. L) uses seed_k, and before its bet the page shows its commitment
 * seed_{k-1} = SHA-256(seed_k), which is the seed the previous round revealed (or the terminal
 * hash for round 1). After the round seed_k is revealed: hashing it k times gives the terminal
 * hash, so every seed of the chain was fixed before the first bet of the chain. The player's
 * page sends a client seed with each bet (random per page, editable), so the server, which fixed
 * its seeds first, cannot steer a result either. Hashes are SHA-256 over the 64 lower-case hex
 * characters (ASCII) of the previous seed, written as lower-case hex.
 *
 * The crash point is a pure function of the round's seed, the client seed and the nonce (the
 * round's chain position k):
 *
 *   h     = HMAC-SHA256(key = seed_k (64 lower-case hex characters, as ASCII),
 *                       message = `${client_seed}:${k}`)                            (hex)
 *   r     = the first 13 hex digits of h, an integer in [0, 2^52)
 *   u     = r / 2^52                                                                uniform in [0, 1)
 *   crash = min(CAP, max(1.00, floor(100 * (RTP/100) / (1 - u)) / 100))             (two decimals)
 *
 * computed exactly in integers: crash_cents = floor(rtp_bp * 2^52 / (100 * (2^52 - r))), where
 * rtp_bp is the RTP in hundredths of a percent (97.00 -> 9700).
 *
 * Why the RTP does not depend on the cash-out target: for any target t in [1.01, CAP] on the
 * 0.01 grid, crash >= t  <=>  (RTP/100)/(1-u) >= t  <=>  u >= 1 - (RTP/100)/t, so
 * P(crash >= t) = (RTP/100) / t (up to 2^-52), and a bet that cashes out at t returns
 * t * P(crash >= t) = RTP/100. A crash point of 1.00 (probability 1 - (RTP/100)/1.01, ~3.96% at
 * 97%) ends the round at once; cash-out is possible from 1.01x, so no strategy collects the floor.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';

export const CRASH_SCHEME = 'crash-v1';

/** The highest crash point, in hundredths: 10,000.00x. Targets above it can never be reached. */
export const CRASH_CAP_CENTS = 1_000_000;
/** The lowest cash-out multiplier, in hundredths (1.01x). */
export const MIN_CASHOUT_CENTS = 101;

const TWO_52 = 2n ** 52n;
const SERVER_SEED = /^[0-9a-f]{64}$/;
/** Printable ASCII without spaces, 1 to 64 characters. */
export const CLIENT_SEED = /^[\x21-\x7e]{1,64}$/;

/** A fresh server seed: 32 bytes of the OS CSPRNG, as 64 lower-case hex characters. */
export function newServerSeed(): string {
  return randomBytes(32).toString('hex');
}

/** The commitment of a seed (and the next link down the chain): SHA-256 of its ASCII hex, as hex. */
export function commitmentOf(serverSeed: string): string {
  return createHash('sha256').update(serverSeed, 'ascii').digest('hex');
}

/** SHA-256 applied `times` times (0 returns the seed itself). */
export function hashTimes(seed: string, times: number): string {
  let s = seed;
  for (let i = 0; i < times; i++) s = createHash('sha256').update(s, 'ascii').digest('hex');
  return s;
}

/** The default chain length: rounds per chain before a new chain (and terminal hash) is drawn. */
export const CHAIN_LENGTH = 1000;

/** seed_position of a chain of `length` links rooted at `root` (seed_length = root, seed_0 = terminal). */
export function chainSeed(root: string, length: number, position: number): string {
  if (!Number.isSafeInteger(position) || position < 0 || position > length)
    throw new RangeError(`chain position ${position} outside 0..${length}`);
  return hashTimes(root, length - position);
}

/** Whether `seed` is link `position` of the chain whose terminal hash is `terminal`. */
export function isChainLink(seed: string, position: number, terminal: string): boolean {
  return SERVER_SEED.test(seed) && hashTimes(seed, position) === terminal;
}

/** '97.00' -> 9700 (hundredths of a percent). */
export function rtpBasisPoints(rtp: string): number {
  const m = /^([0-9]{1,3})\.([0-9]{2})$/.exec(rtp);
  if (!m) throw new RangeError(`RTP must have two decimals, got ${JSON.stringify(rtp)}`);
  const bp = Number(m[1]) * 100 + Number(m[2]);
  if (bp <= 0 || bp >= 10_000) throw new RangeError(`RTP must lie strictly between 0 and 100, got ${rtp}`);
  return bp;
}

/** The 52-bit draw r of a round (see the module comment). */
export function drawOf(serverSeed: string, clientSeed: string, nonce: number): number {
  if (!SERVER_SEED.test(serverSeed)) throw new RangeError('the server seed is 64 lower-case hex characters');
  if (!CLIENT_SEED.test(clientSeed))
    throw new RangeError('the client seed is 1-64 printable ASCII characters');
  if (!Number.isSafeInteger(nonce) || nonce < 0) throw new RangeError('the nonce is a non-negative integer');
  const h = createHmac('sha256', Buffer.from(serverSeed, 'ascii')).update(`${clientSeed}:${nonce}`).digest();
  // 13 hex digits = 52 bits: the first 6 bytes and the high nibble of the 7th.
  return h.readUIntBE(0, 6) * 16 + (h[6]! >> 4);
}

/** The crash point in hundredths (100 = 1.00x) for a draw r in [0, 2^52). */
export function crashCentsFromDraw(r: number, rtpBp: number): number {
  const raw = (BigInt(rtpBp) * TWO_52) / (100n * (TWO_52 - BigInt(r)));
  if (raw < 100n) return 100;
  if (raw > BigInt(CRASH_CAP_CENTS)) return CRASH_CAP_CENTS;
  return Number(raw);
}

/** The crash point of a round, in hundredths of the stake (100 = 1.00x). */
export function crashPointCents(serverSeed: string, clientSeed: string, nonce: number, rtp: string): number {
  return crashCentsFromDraw(drawOf(serverSeed, clientSeed, nonce), rtpBasisPoints(rtp));
}

/** 237 -> '2.37'. */
export function formatMultiplier(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** '2.37', '2.3', '2' -> 237; anything else (or more than two decimals) -> null. */
export function parseMultiplier(text: string): number | null {
  const m = /^([0-9]{1,7})(?:\.([0-9]{1,2}))?$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/** What a cash-out at `cents` pays: floor(stake * cents / 100) minor units. */
export function payoutMinor(stakeMinor: bigint, cents: number): bigint {
  return (stakeMinor * BigInt(cents)) / 100n;
}
