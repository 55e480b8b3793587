import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ReplayLinkRevocationResponse, ReplayUrlResponse, RoundDetailResponse } from '@opi/contract';
import { CATALOG } from '@opi/games';
import { replayKeyring, replayLinkKey, roundDetailsUrl, shareReplayUrl } from '@opi/signing';
import {
  ADMIN_KEY,
  call,
  GAME_BASE_URL,
  gameUrl,
  type Harness,
  REPLAY_LINK_SECRET,
  SERVICE_SECRET,
  startApi,
  TEST_REPLAY_KEYS,
} from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';

/*
 * Issue 34 points 5 and 6 on the real stack: replay links have a secret of their own
 * (REPLAY_LINK_SECRET) whose key id is in every link; a retired secret's links open until its
 * date; the links issued before issue 34 (no key id, SERVICE_SECRET's key: journalled in credit
 * bodies) open until REPLAY_LINK_LEGACY_UNTIL; and the provider's admin revokes the links of one
 * round or of one operator (410 `revoked` for every link issued before, links issued after open).
 */
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const OLD_SECRET = 'replay-link-secret-retired-0123456789abcdef';
const GONE_SECRET = 'replay-link-secret-long-gone-0123456789abcd';
const RETIRED = `${OLD_SECRET}@2999-01-01,${GONE_SECRET}@2020-01-01T00:00:00Z`;
let w: PlayWorld;
let h: Harness;
let key = '';

before(async () => {
  w = await startPlayWorld({
    queue: 'replay-revocations',
    env: { REPLAY_LINK_RETIRED_SECRETS: RETIRED },
    operators: [
      { id: 'op_rv_a', titles: [slot.symbol] },
      { id: 'op_rv_b', titles: [slot.symbol] },
    ],
  });
  h = w.h;
  key = w.operators.op_rv_a!.key;
});
after(() => w.close());

/** A settled round of a new player of `op`. */
async function playRound(op = 'op_rv_a'): Promise<string> {
  const player = await w.newPlayer(op, { prefix: 'rv' });
  const { token } = await w.launch(w.operators[op]!.key, { symbol: slot.symbol, external_player_id: player });
  const res = await w.spin(token!, { bet_minor: 100 });
  assert.equal(res.status, 200, res.text);
  const roundId = res.json.round_id as string;
  await until(`round ${roundId} settles`, async () => {
    const { rows } = await h.db.pool.query(
      `SELECT r.status, (SELECT count(*)::int FROM wallet_transactions t
                          WHERE t.round_id = r.round_id AND t.status = 'pending') AS pending
         FROM rounds r WHERE r.round_id = $1`,
      [roundId],
    );
    return rows[0]?.status === 'completed' && rows[0].pending === 0;
  });
  return roundId;
}

const audit = (k: string, method: string, path: string) =>
  call(h.base, method, `/api/operator/v1${path}`, { key: k, sign: true });
const revoke = (path: string, body?: unknown, k = ADMIN_KEY) =>
  call(h.base, 'POST', `/api/admin/v1${path}/replay-links/revoke`, {
    key: k,
    sign: true,
    ...(body ? { body } : {}),
  });

async function page(link: string, via: Harness = h): Promise<{ status: number; reason: string | null }> {
  const res = await fetch(gameUrl(via, link));
  const html = await res.text();
  return { status: res.status, reason: /data-reason="([a-z_]+)"/.exec(html)?.[1] ?? null };
}
const opens = { status: 200, reason: null };

async function details(roundId: string, k = key): Promise<string> {
  const res = await audit(k, 'GET', `/rounds/${roundId}`);
  assert.equal(res.status, 200, res.text);
  return RoundDetailResponse.parse(res.json).data.round_details_url;
}
async function share(roundId: string, k = key): Promise<string> {
  const res = await audit(k, 'POST', `/rounds/${roundId}/replay-url`);
  assert.equal(res.status, 201, res.text);
  return ReplayUrlResponse.parse(res.json).data.url;
}
/** Waits into the next whole second: a link issued then is issued after a revocation made now. */
const nextSecond = () => new Promise((r) => setTimeout(r, 1_050 - (Date.now() % 1000)));

describe('keys (point 6)', () => {
  test('links carry the current key id; the credit body’s link is the same and opens', async () => {
    const roundId = await playRound();
    const link = await details(roundId);
    assert.equal(new URL(link).searchParams.get('k'), TEST_REPLAY_KEYS.current.kid);
    assert.deepEqual(await page(link), opens);
    const { rows } = await h.db.pool.query(
      `SELECT request_body FROM wallet_transactions WHERE transaction_id = $1`,
      [`${roundId}:credit`],
    );
    assert.equal(
      JSON.parse(rows[0].request_body).round_details_url,
      link,
      'fixed in the intent at spin time',
    );
  });

  test('links of a retired key open until its date; unknown keys are 404', async () => {
    const roundId = await playRound();
    const old = replayKeyring({ secret: OLD_SECRET });
    assert.deepEqual(await page(roundDetailsUrl(GAME_BASE_URL, old, roundId)), opens);
    assert.deepEqual(await page(shareReplayUrl(GAME_BASE_URL, old, roundId).url), opens);
    const gone = replayKeyring({ secret: GONE_SECRET });
    assert.deepEqual(await page(roundDetailsUrl(GAME_BASE_URL, gone, roundId)), {
      status: 410,
      reason: 'expired',
    });
    const stranger = replayKeyring({ secret: 's'.repeat(40) });
    assert.deepEqual(await page(roundDetailsUrl(GAME_BASE_URL, stranger, roundId)), {
      status: 404,
      reason: 'not_found',
    });
  });

  test('links issued before issue 34 (SERVICE_SECRET’s key, no key id) open until REPLAY_LINK_LEGACY_UNTIL', async () => {
    const roundId = await playRound();
    const legacy = replayLinkKey(SERVICE_SECRET);
    const legacyDetails = roundDetailsUrl(GAME_BASE_URL, legacy, roundId);
    assert.ok(!new URL(legacyDetails).searchParams.has('k'));
    assert.deepEqual(await page(legacyDetails), opens);
    assert.deepEqual(await page(shareReplayUrl(GAME_BASE_URL, legacy, roundId).url), opens);
    // A game server configured to end them: 410; links with a key id still open there.
    const ended = await startApi(
      { ...w.h.env, REPLAY_LINK_LEGACY_UNTIL: '2020-01-01', REPLAY_LINK_SECRET },
      { db: w.h.db },
    );
    try {
      assert.deepEqual(await page(legacyDetails, ended), { status: 410, reason: 'expired' });
      assert.deepEqual(await page(await details(roundId), ended), opens);
    } finally {
      await ended.close();
    }
  });
});

describe('revocations (points 5 and 6)', () => {
  test('a round: every link issued before ends (410 revoked), links issued after open; other rounds untouched', async () => {
    const roundId = await playRound();
    const other = await playRound();
    const before = {
      details: await details(roundId),
      share: await share(roundId),
      legacy: roundDetailsUrl(GAME_BASE_URL, replayLinkKey(SERVICE_SECRET), roundId),
      retired: roundDetailsUrl(GAME_BASE_URL, replayKeyring({ secret: OLD_SECRET }), roundId),
    };
    for (const link of Object.values(before)) assert.deepEqual(await page(link), opens);
    const res = await revoke(`/rounds/${roundId}`, { reason: 'link leaked in a forum' });
    assert.equal(res.status, 200, res.text);
    const data = ReplayLinkRevocationResponse.parse(res.json).data;
    assert.deepEqual(
      [data.scope, data.subject_id, data.operator_id, data.reason],
      ['round', roundId, 'op_rv_a', 'link leaked in a forum'],
    );
    for (const [name, link] of Object.entries(before))
      assert.deepEqual(await page(link), { status: 410, reason: 'revoked' }, name);
    assert.deepEqual(await page(await details(other)), opens, 'another round of the operator');
    await nextSecond();
    assert.deepEqual(await page(await share(roundId)), opens, 'a share link issued after');
    // A repeat moves the time forward: the link just issued ends too.
    const fresh = await share(roundId);
    await nextSecond();
    const again = ReplayLinkRevocationResponse.parse((await revoke(`/rounds/${roundId}`)).json).data;
    assert.ok(Date.parse(again.revoked_at) > Date.parse(data.revoked_at));
    assert.equal(again.reason, null);
    assert.deepEqual(await page(fresh), { status: 410, reason: 'revoked' });
  });

  test('an operator: links of its rounds made before end; rounds made after and other operators open', async () => {
    const older = await playRound('op_rv_b');
    const otherOperator = await playRound('op_rv_a');
    const keyB = w.operators.op_rv_b!.key;
    const link = await details(older, keyB);
    const shared = await share(older, keyB);
    const res = await revoke('/operators/op_rv_b');
    assert.equal(res.status, 200, res.text);
    const data = ReplayLinkRevocationResponse.parse(res.json).data;
    assert.deepEqual([data.scope, data.subject_id, data.operator_id], ['operator', 'op_rv_b', 'op_rv_b']);
    assert.deepEqual(await page(link), { status: 410, reason: 'revoked' });
    assert.deepEqual(await page(shared), { status: 410, reason: 'revoked' });
    assert.deepEqual(await page(await details(otherOperator)), opens, 'another operator');
    await nextSecond();
    const newer = await playRound('op_rv_b');
    assert.deepEqual(await page(await details(newer, keyB)), opens, 'a round made after');
    assert.deepEqual(await page(await share(older, keyB)), opens, 'a share link issued after');
  });

  test('unknown rounds and operators are 404; bad bodies 422; only provider-admin keys', async () => {
    assert.equal((await revoke('/rounds/r_00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await revoke('/rounds/no%20such')).status, 404);
    assert.equal((await revoke('/operators/op_nobody')).status, 404);
    const roundId = await playRound();
    for (const body of [{ reason: '' }, { reason: 'x'.repeat(501) }, { reason: 1 }, { scope: 'all' }]) {
      const res = await revoke(`/rounds/${roundId}`, body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal(
      (await call(h.base, 'POST', `/api/admin/v1/rounds/${roundId}/replay-links/revoke`)).status,
      401,
    );
    assert.equal((await revoke(`/rounds/${roundId}`, undefined, key)).status, 403);
    assert.deepEqual(await page(await details(roundId)), opens, 'nothing was revoked');
  });
});
