import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * Replay links (issue 26; keys of their own since issue 34). A round's replay page is reached with
 * no session, so the link itself is the credential: the round id and an HMAC over it.
 *
 * - The details link (`round_details_url`): `/replay/<round_id>?k=<key id>&sig=<43 base64url>`.
 *   Stable and never expiring: valid for as long as the round is kept, its key is accepted and no
 *   revocation covers it. The game server fixes it in the round's intent at spin time, so the
 *   round's credit carries the same bytes on every retry.
 * - The share link (`POST /api/operator/v1/rounds/{round_id}/replay-url`, the player's history):
 *   `/replay/<round_id>?k=<key id>&iat=<unix s>&exp=<unix s>&sig=<43 base64url>`: time-limited
 *   (SHARE_LINK_TTL_SECONDS), with its issue time so that a revocation can end the links issued
 *   before it and not those issued after.
 *
 * Keys (`ReplayKeyring`): links are signed with the current key, derived from REPLAY_LINK_SECRET,
 * whose id (derived from the secret too) is in the link. Retired secrets' links are accepted
 * until their configured date. Links issued before issue 34 carry no key id: they were signed
 * with `replayLinkKey(SERVICE_SECRET)` (the legacy key, `?sig=` and `?exp=&sig=`) and are accepted
 * until REPLAY_LINK_LEGACY_UNTIL (no date: for good), because rounds journalled before carry them
 * in their credit bodies, which are never rewritten.
 *
 * Each kind signs its own string (`details\n…`, `share\n…`; with the key id since issue 34), so a
 * share link's signature never serves as a details link's, nor a legacy signature as a keyed one.
 */

/** How long a support agent's share link lasts. */
export const SHARE_LINK_TTL_SECONDS = 600;
/** The longest a share link may be made to last (a longer one does not verify). */
export const SHARE_LINK_MAX_TTL_SECONDS = 86_400;
/** How far in the future a share link's issue time may be (clocks of two processes). */
const ISSUED_SKEW_SECONDS = 300;

const SIG = /^[A-Za-z0-9_-]{43}$/;
const ROUND_ID = /^[A-Za-z0-9_:.-]{1,128}$/;

/**
 * The legacy key (links without a key id, issued before issue 34), derived from the service
 * secret (never the secret itself). New links are signed with a `ReplayKeyring`'s current key.
 */
export function replayLinkKey(serviceSecret: string): Buffer {
  return createHmac('sha256', serviceSecret).update('opi:replay-links:v1').digest();
}

function sign(key: Uint8Array, message: string): string {
  return createHmac('sha256', key).update(message).digest('base64url');
}

function join(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

// ── keys ────────────────────────────────────────────────────────────────────────────────────────

/** A key that signs replay links, and its id (the link's `k`). */
export interface ReplaySigningKey {
  kid: string;
  key: Buffer;
}

/** Every key a game server accepts, and the one new links are signed with. */
export interface ReplayKeyring {
  /** Signs every new link (REPLAY_LINK_SECRET). */
  current: ReplaySigningKey;
  /** Keys of retired secrets: their links open until `acceptedUntil`, then 410. */
  retired: (ReplaySigningKey & { acceptedUntil: Date })[];
  /** Links without a key id (before issue 34, SERVICE_SECRET's key); null: refused. */
  legacy: { key: Buffer; acceptedUntil: Date | null } | null;
}

/** A key, or a keyring: a bare key signs and checks legacy links only (no key id). */
export type ReplayKeys = Uint8Array | ReplayKeyring;

const KID = /^k[A-Za-z0-9_-]{10}$/;

/**
 * The signing key of a replay-link secret and its id, both derived from it (HMAC-SHA256 with
 * their own labels): rotating the secret changes the id, and the id tells nothing of the key.
 */
export function replaySigningKey(secret: string): ReplaySigningKey {
  const kid = `k${createHmac('sha256', secret).update('opi:replay-links:kid').digest('base64url').slice(0, 10)}`;
  return { kid, key: createHmac('sha256', secret).update('opi:replay-links:v2').digest() };
}

export interface ReplayKeyringInput {
  /** REPLAY_LINK_SECRET. */
  secret: string;
  /** Retired secrets and until when their links are accepted. */
  retired?: { secret: string; acceptedUntil: Date }[];
  /** SERVICE_SECRET, for the links issued before issue 34 (none: they are refused). */
  legacySecret?: string | null;
  /** Until when those links are accepted (null: for good). */
  legacyUntil?: Date | null;
}

export function replayKeyring(input: ReplayKeyringInput): ReplayKeyring {
  return {
    current: replaySigningKey(input.secret),
    retired: (input.retired ?? []).map((r) => ({
      ...replaySigningKey(r.secret),
      acceptedUntil: r.acceptedUntil,
    })),
    legacy: input.legacySecret
      ? { key: replayLinkKey(input.legacySecret), acceptedUntil: input.legacyUntil ?? null }
      : null,
  };
}

const isKeyring = (keys: ReplayKeys): keys is ReplayKeyring => !(keys instanceof Uint8Array);

// ── making links ────────────────────────────────────────────────────────────────────────────────

/** The stable details path of a round (no origin): keyed by the keyring's current key. */
export function roundDetailsPath(keys: ReplayKeys, roundId: string): string {
  const id = encodeURIComponent(roundId);
  if (!isKeyring(keys)) return `/replay/${id}?sig=${sign(keys, `details\n${roundId}`)}`;
  const { kid, key } = keys.current;
  return `/replay/${id}?k=${kid}&sig=${sign(key, `details\n${kid}\n${roundId}`)}`;
}

/** The stable details URL of a round on the game origin (`GAME_BASE_URL`). */
export function roundDetailsUrl(baseUrl: string, keys: ReplayKeys, roundId: string): string {
  return join(baseUrl, roundDetailsPath(keys, roundId));
}

/** A time-limited share URL of a round, when it was issued and when it expires. */
export function shareReplayUrl(
  baseUrl: string,
  keys: ReplayKeys,
  roundId: string,
  nowMs: number = Date.now(),
  ttlSeconds: number = SHARE_LINK_TTL_SECONDS,
): { url: string; issuedAt: Date; expiresAt: Date } {
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + ttlSeconds;
  const id = encodeURIComponent(roundId);
  let query: string;
  if (!isKeyring(keys)) {
    query = `exp=${exp}&sig=${sign(keys, `share\n${roundId}\n${exp}`)}`;
  } else {
    const { kid, key } = keys.current;
    query = `k=${kid}&iat=${iat}&exp=${exp}&sig=${sign(key, `share\n${kid}\n${roundId}\n${iat}\n${exp}`)}`;
  }
  return {
    url: join(baseUrl, `/replay/${id}?${query}`),
    issuedAt: new Date(iat * 1000),
    expiresAt: new Date(exp * 1000),
  };
}

// ── checking links ──────────────────────────────────────────────────────────────────────────────

export type ReplayLinkCheck =
  | { ok: true; kind: 'details' | 'share'; roundId: string; expiresAt: Date | null }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' };

function sameSig(expected: string, presented: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks a legacy link's parts (no key id) with one key: the round id from the path (decoded),
 * `sig` and the optional `exp` from the query. Never throws. See `checkReplayLink` for a keyring.
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

/** A replay link's query parameters as the page receives them (each at most once). */
export interface ReplayLinkParams {
  k?: unknown;
  sig?: unknown;
  iat?: unknown;
  exp?: unknown;
}

export type ReplayLinkVerdict =
  | {
      ok: true;
      kind: 'details' | 'share';
      roundId: string;
      /** The key id; null for a legacy link. */
      keyId: string | null;
      /**
       * When the link was issued; null for a details link (issued with its round: its time is the
       * round's). A legacy share link's is its expiry less SHARE_LINK_TTL_SECONDS (all were).
       */
      issuedAt: Date | null;
      expiresAt: Date | null;
    }
  | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' | 'retired' };

const SECONDS = /^[0-9]{1,12}$/;

/**
 * Checks a replay link against a keyring: a keyed link by its key id (the current key, or a
 * retired one until its date: `retired` after), a link without one by the legacy key while it is
 * accepted (`retired` after; `bad_signature` when there is none). `expired`: a share link past its
 * expiry. Revocations are the caller's (they need the round). Never throws.
 */
export function checkReplayLink(
  keys: ReplayKeyring,
  roundId: unknown,
  params: ReplayLinkParams,
  nowMs: number = Date.now(),
): ReplayLinkVerdict {
  if (typeof roundId !== 'string' || !ROUND_ID.test(roundId)) return { ok: false, reason: 'malformed' };
  const { k, sig, iat, exp } = params;
  if (typeof sig !== 'string' || !SIG.test(sig)) return { ok: false, reason: 'malformed' };
  const absent = (v: unknown) => v === undefined || v === null || v === '';
  if (absent(k)) {
    if (!absent(iat)) return { ok: false, reason: 'malformed' };
    if (!keys.legacy) return { ok: false, reason: 'bad_signature' };
    const legacy = verifyReplayLink(keys.legacy.key, roundId, sig, exp, nowMs);
    if (!legacy.ok) return legacy;
    if (keys.legacy.acceptedUntil && keys.legacy.acceptedUntil.getTime() <= nowMs)
      return { ok: false, reason: 'retired' };
    return {
      ...legacy,
      keyId: null,
      issuedAt: legacy.expiresAt
        ? new Date(legacy.expiresAt.getTime() - SHARE_LINK_TTL_SECONDS * 1000)
        : null,
    };
  }
  if (typeof k !== 'string' || !KID.test(k)) return { ok: false, reason: 'malformed' };
  const found =
    keys.current.kid === k
      ? { key: keys.current.key, acceptedUntil: null }
      : keys.retired.find((r) => r.kid === k);
  if (!found) return { ok: false, reason: 'bad_signature' };
  let verdict: ReplayLinkVerdict;
  if (absent(exp) && absent(iat)) {
    if (!sameSig(sign(found.key, `details\n${k}\n${roundId}`), sig))
      return { ok: false, reason: 'bad_signature' };
    verdict = { ok: true, kind: 'details', roundId, keyId: k, issuedAt: null, expiresAt: null };
  } else {
    if (typeof iat !== 'string' || !SECONDS.test(iat) || typeof exp !== 'string' || !SECONDS.test(exp))
      return { ok: false, reason: 'malformed' };
    if (!sameSig(sign(found.key, `share\n${k}\n${roundId}\n${iat}\n${exp}`), sig))
      return { ok: false, reason: 'bad_signature' };
    const issued = Number(iat);
    const expires = Number(exp);
    if (expires <= issued || expires - issued > SHARE_LINK_MAX_TTL_SECONDS)
      return { ok: false, reason: 'malformed' };
    if (issued * 1000 > nowMs + ISSUED_SKEW_SECONDS * 1000) return { ok: false, reason: 'malformed' };
    if (expires * 1000 <= nowMs) return { ok: false, reason: 'expired' };
    verdict = {
      ok: true,
      kind: 'share',
      roundId,
      keyId: k,
      issuedAt: new Date(issued * 1000),
      expiresAt: new Date(expires * 1000),
    };
  }
  if (found.acceptedUntil && found.acceptedUntil.getTime() <= nowMs) return { ok: false, reason: 'retired' };
  return verdict;
}
