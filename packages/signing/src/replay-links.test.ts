import assert from 'node:assert/strict';
import { test } from 'node:test';
import { replayLinkKey, roundDetailsUrl, shareReplayUrl, verifyReplayLink } from './replay-links.js';

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
