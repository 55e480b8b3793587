import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkReplayLink,
  replayKeyring,
  replayLinkKey,
  replaySigningKey,
  roundDetailsUrl,
  SHARE_LINK_MAX_TTL_SECONDS,
  SHARE_LINK_TTL_SECONDS,
  shareReplayUrl,
  verifyReplayLink,
} from './replay-links.js';

const key = replayLinkKey('x'.repeat(32));
const other = replayLinkKey('y'.repeat(32));

function parts(url: string): [string, string | null, string | null] {
  const u = new URL(url);
  return [
    decodeURIComponent(u.pathname.split('/')[2] ?? ''),
    u.searchParams.get('sig'),
    u.searchParams.get('exp'),
  ];
}

test('a details link verifies for its round only, with this key only, and never expires', () => {
  const url = roundDetailsUrl('https://games.example/', key, 'r_abc');
  assert.match(url, /^https:\/\/games\.example\/replay\/r_abc\?sig=[A-Za-z0-9_-]{43}$/);
  const [id, sig, exp] = parts(url);
  assert.deepEqual(verifyReplayLink(key, id, sig, exp ?? undefined, Date.now() + 10 * 365 * 86_400_000), {
    ok: true,
    kind: 'details',
    roundId: 'r_abc',
    expiresAt: null,
  });
  assert.deepEqual(verifyReplayLink(key, 'r_abd', sig, undefined), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(verifyReplayLink(other, id, sig, undefined), { ok: false, reason: 'bad_signature' });
});

test('a share link lasts its time, and its signature is not a details signature', () => {
  const now = 1_800_000_000_000;
  const { url, expiresAt } = shareReplayUrl('https://games.example', key, 'r_abc', now, 600);
  assert.equal(expiresAt.getTime(), now + 600_000);
  const [id, sig, exp] = parts(url);
  const ok = verifyReplayLink(key, id, sig, exp, now + 599_000);
  assert.equal(ok.ok && ok.kind, 'share');
  assert.deepEqual(verifyReplayLink(key, id, sig, exp, now + 600_000), { ok: false, reason: 'expired' });
  assert.deepEqual(verifyReplayLink(key, id, sig, undefined, now), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(verifyReplayLink(key, id, sig, String(Number(exp) + 1), now), {
    ok: false,
    reason: 'bad_signature',
  });
});

test('malformed parts are refused without throwing', () => {
  for (const [id, sig, exp] of [
    [undefined, 'a'.repeat(43), undefined],
    ['r_1', 'short', undefined],
    ['r 1', 'a'.repeat(43), undefined],
    ['r_1', 'a'.repeat(43), '-5'],
    ['r_1', ['a'], undefined],
    ['x'.repeat(200), 'a'.repeat(43), undefined],
  ] as const) {
    assert.equal(verifyReplayLink(key, id, sig, exp).ok, false);
  }
});

// ── keyrings (issue 34): keys of their own, a key id in every link, retired keys until a date ──

const NOW = 1_900_000_000_000;
const DAY = 86_400_000;
const SECRET = 'replay-link-secret-0123456789abcdef';
const OLD = 'replay-link-secret-old-0123456789abcdef';
const keysOf = (legacyUntil: Date | null = null) =>
  replayKeyring({
    secret: SECRET,
    retired: [
      { secret: OLD, acceptedUntil: new Date(NOW + DAY) },
      { secret: 'replay-link-secret-gone-0123456789abcd', acceptedUntil: new Date(NOW - DAY) },
    ],
    legacySecret: 'x'.repeat(32),
    legacyUntil,
  });

function params(url: string): { id: string; q: Record<string, string> } {
  const u = new URL(url);
  return { id: decodeURIComponent(u.pathname.split('/')[2] ?? ''), q: Object.fromEntries(u.searchParams) };
}

test('a key id is derived from its secret; the key is neither the secret nor the legacy key', () => {
  const a = replaySigningKey(SECRET);
  assert.match(a.kid, /^k[A-Za-z0-9_-]{10}$/);
  assert.deepEqual(replaySigningKey(SECRET), a, 'deterministic');
  assert.notEqual(replaySigningKey(OLD).kid, a.kid, 'a rotated secret has another id');
  assert.notDeepEqual(a.key, replayLinkKey(SECRET));
  assert.ok(!a.key.toString('utf8').includes(SECRET));
});

test('keyed details and share links verify with the current key and carry its id', () => {
  const keys = keysOf();
  const details = roundDetailsUrl('https://games.example', keys, 'r_abc');
  assert.match(
    details,
    /^https:\/\/games\.example\/replay\/r_abc\?k=k[A-Za-z0-9_-]{10}&sig=[A-Za-z0-9_-]{43}$/,
  );
  const d = params(details);
  assert.deepEqual(checkReplayLink(keys, d.id, d.q, NOW), {
    ok: true,
    kind: 'details',
    roundId: 'r_abc',
    keyId: keys.current.kid,
    issuedAt: null,
    expiresAt: null,
  });
  const share = shareReplayUrl('https://games.example', keys, 'r_abc', NOW);
  const s = params(share.url);
  assert.deepEqual(Object.keys(s.q), ['k', 'iat', 'exp', 'sig']);
  assert.deepEqual(checkReplayLink(keys, s.id, s.q, NOW + 1000), {
    ok: true,
    kind: 'share',
    roundId: 'r_abc',
    keyId: keys.current.kid,
    issuedAt: new Date(NOW),
    expiresAt: new Date(NOW + SHARE_LINK_TTL_SECONDS * 1000),
  });
  assert.deepEqual(checkReplayLink(keys, s.id, s.q, NOW + SHARE_LINK_TTL_SECONDS * 1000), {
    ok: false,
    reason: 'expired',
  });
  // Another round, another issue time, a details signature without the times: refused.
  assert.deepEqual(checkReplayLink(keys, 'r_abd', d.q, NOW), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(checkReplayLink(keys, s.id, { ...s.q, iat: String(Number(s.q.iat) - 1) }, NOW), {
    ok: false,
    reason: 'bad_signature',
  });
  assert.deepEqual(checkReplayLink(keys, s.id, { k: s.q.k, sig: s.q.sig }, NOW), {
    ok: false,
    reason: 'bad_signature',
  });
  // The keyed signature is not a legacy one: without its key id it does not verify.
  assert.deepEqual(checkReplayLink(keys, d.id, { sig: d.q.sig }, NOW), {
    ok: false,
    reason: 'bad_signature',
  });
});

test('a retired key’s links open until its date, then are refused; an unknown key id is no key', () => {
  const keys = keysOf();
  const old = replayKeyring({ secret: OLD });
  const d = params(roundDetailsUrl('https://g', old, 'r_1'));
  assert.equal(checkReplayLink(keys, d.id, d.q, NOW).ok, true);
  assert.deepEqual(checkReplayLink(keys, d.id, d.q, NOW + DAY), { ok: false, reason: 'retired' });
  const gone = params(
    roundDetailsUrl('https://g', replayKeyring({ secret: 'replay-link-secret-gone-0123456789abcd' }), 'r_1'),
  );
  assert.deepEqual(checkReplayLink(keys, gone.id, gone.q, NOW), { ok: false, reason: 'retired' });
  const stranger = params(roundDetailsUrl('https://g', replayKeyring({ secret: 'z'.repeat(40) }), 'r_1'));
  assert.deepEqual(checkReplayLink(keys, stranger.id, stranger.q, NOW), {
    ok: false,
    reason: 'bad_signature',
  });
});

test('links without a key id (before issue 34) open with the legacy key until its date, if any', () => {
  const legacyDetails = params(roundDetailsUrl('https://g', key, 'r_1'));
  const legacyShare = params(shareReplayUrl('https://g', key, 'r_1', NOW).url);
  const forever = keysOf(null);
  assert.deepEqual(checkReplayLink(forever, legacyDetails.id, legacyDetails.q, NOW + 100 * DAY), {
    ok: true,
    kind: 'details',
    roundId: 'r_1',
    keyId: null,
    issuedAt: null,
    expiresAt: null,
  });
  const share = checkReplayLink(forever, legacyShare.id, legacyShare.q, NOW);
  assert.ok(
    share.ok && share.issuedAt?.getTime() === NOW,
    'a legacy share link was issued its ttl before expiry',
  );
  const until = keysOf(new Date(NOW + DAY));
  assert.equal(checkReplayLink(until, legacyDetails.id, legacyDetails.q, NOW).ok, true);
  assert.deepEqual(checkReplayLink(until, legacyDetails.id, legacyDetails.q, NOW + DAY), {
    ok: false,
    reason: 'retired',
  });
  const none = replayKeyring({ secret: SECRET });
  assert.deepEqual(checkReplayLink(none, legacyDetails.id, legacyDetails.q, NOW), {
    ok: false,
    reason: 'bad_signature',
  });
});

test('keyed links: malformed parts and impossible times are refused without throwing', () => {
  const keys = keysOf();
  const s = params(shareReplayUrl('https://g', keys, 'r_1', NOW).url);
  for (const q of [
    { ...s.q, k: 'k!' },
    { ...s.q, k: ['x'] },
    { ...s.q, iat: '-1' },
    { ...s.q, exp: undefined },
    { sig: s.q.sig, iat: s.q.iat },
  ] as Record<string, unknown>[]) {
    assert.equal(checkReplayLink(keys, 'r_1', q, NOW).ok, false, JSON.stringify(q));
  }
  // Signed, but living longer than SHARE_LINK_MAX_TTL_SECONDS, or issued in the future.
  const long = params(shareReplayUrl('https://g', keys, 'r_1', NOW, SHARE_LINK_MAX_TTL_SECONDS + 1).url);
  assert.deepEqual(checkReplayLink(keys, 'r_1', long.q, NOW), { ok: false, reason: 'malformed' });
  const future = params(shareReplayUrl('https://g', keys, 'r_1', NOW + 3_600_000).url);
  assert.deepEqual(checkReplayLink(keys, 'r_1', future.q, NOW), { ok: false, reason: 'malformed' });
});
