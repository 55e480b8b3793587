import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * Replay links (issue 26). A round's replay page is reached with no session, so the link itself is
 * the credential: the round id and an HMAC over it, keyed by a key derived from SERVICE_SECRET.
 *
 * - The details link (`round_details_url`): `/replay/<round_id>?sig=<43 base64url>`. Stable and
 *   never expiring: valid for as long as the round is kept (the retention period) and the service
 *   secret is unchanged. Rotating SERVICE_SECRET invalidates every link issued before.
 * - The share link (`POST /api/operator/v1/rounds/{round_id}/replay-url`):
 *   `/replay/<round_id>?exp=<unix seconds>&sig=<43 base64url>`: time-limited (SHARE_LINK_TTL_SECONDS).
 *
 * The two signatures are over different strings (`details` and `share`), so a share link's
 * signature never serves as a details link's, nor the other way round.
 */

/** How long a support agent's share link lasts. */
export const SHARE_LINK_TTL_SECONDS = 600;

const SIG = /^[A-Za-z0-9_-]{43}$/;
const ROUND_ID = /^[A-Za-z0-9_:.-]{1,128}$/;

/** The key that signs replay links, derived from the service secret (never the secret itself). */
export function replayLinkKey(serviceSecret: string): Buffer {
  return createHmac('sha256', serviceSecret).update('opi:replay-links:v1').digest();
}

function sign(key: Uint8Array, message: string): string {
  return createHmac('sha256', key).update(message).digest('base64url');
}

function join(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/** The stable details path of a round (no origin). */
export function roundDetailsPath(key: Uint8Array, roundId: string): string {
  return `/replay/${encodeURIComponent(roundId)}?sig=${sign(key, `details\n${roundId}`)}`;
}

/** The stable details URL of a round on the game origin (`GAME_BASE_URL`). */
export function roundDetailsUrl(baseUrl: string, key: Uint8Array, roundId: string): string {
  return join(baseUrl, roundDetailsPath(key, roundId));
}

/** A time-limited share URL of a round, and when it expires. */
export function shareReplayUrl(
  baseUrl: string,
  key: Uint8Array,
  roundId: string,
  nowMs: number = Date.now(),
  ttlSeconds: number = SHARE_LINK_TTL_SECONDS,
): { url: string; expiresAt: Date } {
  const exp = Math.floor(nowMs / 1000) + ttlSeconds;
  const sig = sign(key, `share\n${roundId}\n${exp}`);
  return {
    url: join(baseUrl, `/replay/${encodeURIComponent(roundId)}?exp=${exp}&sig=${sig}`),
    expiresAt: new Date(exp * 1000),
  };
}

export type ReplayLinkCheck =
  | { ok: true; kind: 'details' | 'share'; roundId: string; expiresAt: Date | null }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' };

function sameSig(expected: string, presented: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks a replay link's parts as the page receives them: the round id from the path (decoded),
 * `sig` and the optional `exp` from the query. Never throws.
 */
export function verifyReplayLink(
  key: Uint8Array,
  roundId: unknown,
  sig: unknown,
  exp: unknown,
  nowMs: number = Date.now(),
): ReplayLinkCheck {
  if (typeof roundId !== 'string' || !ROUND_ID.test(roundId)) return { ok: false, reason: 'malformed' };
  if (typeof sig !== 'string' || !SIG.test(sig)) return { ok: false, reason: 'malformed' };
  if (exp === undefined || exp === null || exp === '') {
    if (!sameSig(sign(key, `details\n${roundId}`), sig)) return { ok: false, reason: 'bad_signature' };
    return { ok: true, kind: 'details', roundId, expiresAt: null };
  }
  if (typeof exp !== 'string' || !/^[0-9]{1,12}$/.test(exp)) return { ok: false, reason: 'malformed' };
  if (!sameSig(sign(key, `share\n${roundId}\n${exp}`), sig)) return { ok: false, reason: 'bad_signature' };
  const expiresAt = new Date(Number(exp) * 1000);
  if (expiresAt.getTime() <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, kind: 'share', roundId, expiresAt };
}
