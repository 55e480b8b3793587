import { createHash, randomBytes } from 'node:crypto';

/** Session lifetimes per family (spec, Limits). */
export const LIFETIMES = {
  /** prov_a/prov_b: inactivity deadline, extended by runtime activity. */
  slotInactivityMs: 30 * 60_000,
  /** prov_c: the play session, and the signed browser grant within it. */
  nativeSessionMs: 30 * 60_000,
  nativeGrantMs: 5 * 60_000,
  /** prov_d: the login grant, then an authorized session of one hour unless revoked. */
  crashGrantMs: 5 * 60_000,
};

/**
 * The launch URL is a bearer secret: 256 random bits, stored only as a SHA-256 hash. Every other
 * token a game page holds (a native play token, a crash session authorization, a crash demo
 * session) is made and stored the same way.
 */
export function newLaunchToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashLaunchToken(token) };
}
export function hashLaunchToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
