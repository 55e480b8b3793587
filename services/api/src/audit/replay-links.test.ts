import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  OperatorTransactionResponse,
  ReplayUrlResponse,
  RoundDetailResponse,
  RoundSearchResponse,
  TransactionSearchResponse,
} from '@opi/contract';
import { CATALOG } from '@opi/games';
import { checkReplayLink, SHARE_LINK_TTL_SECONDS } from '@opi/signing';
import { call, GAME_BASE_URL, gameUrl, type Harness, TEST_REPLAY_KEYS } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';

// Issue 26, the links to a round's replay page: `round_details_url` on the audit API's round and
// transaction reads and on the round's credit callback (sent to the sandbox wallet over HTTP by
// the real settlement workflow), and the short-lived share link of
// POST /api/operator/v1/rounds/{round_id}/replay-url. Every link is checked with the replay page's
// own check (checkReplayLink) against the tests' keys: since issue 34 every link is signed with the
// key of REPLAY_LINK_SECRET, whose id is the link's `k`.
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const KEYS = TEST_REPLAY_KEYS;
let w: PlayWorld;
let h: Harness;
let keyA: string;
let keyB: string;
let master: string;
let roundId: string;
let sessionId: string;

before(async () => {
  w = await startPlayWorld({
    queue: 'replay-links',
    operators: [
      { id: 'op_rl_a', titles: [slot.symbol] },
      { id: 'op_rl_b', titles: [slot.symbol] },
    ],
    masterKey: true,
  });
  h = w.h;
  keyA = w.operators.op_rl_a!.key;
  keyB = w.operators.op_rl_b!.key;
  master = w.masterKey!;
  const player = await w.newPlayer('op_rl_a', { prefix: 'rl', balanceMinor: 100_000 });
  const launched = await w.launch(keyA, { symbol: slot.symbol, external_player_id: player });
  sessionId = launched.sessionId;
  const res = await w.spin(launched.token!, { bet_minor: 100 });
  assert.equal(res.status, 200, res.text);
  roundId = res.json.round_id;
  await until(`round ${roundId} settles`, async () => {
    const { rows } = await h.db.pool.query(
      `SELECT r.status, (SELECT count(*)::int FROM wallet_transactions t
                          WHERE t.round_id = r.round_id AND t.status = 'pending') AS pending
         FROM rounds r WHERE r.round_id = $1`,
      [roundId],
    );
    return rows[0]?.status === 'completed' && rows[0].pending === 0;
  });
});
after(() => w.close());

const get = (key: string, path: string) => call(h.base, 'GET', path, { key, sign: true });
const post = (key: string, path: string, body?: unknown) =>
  call(h.base, 'POST', path, { key, sign: true, ...(body === undefined ? {} : { body }) });

/** A link's parts as the replay page receives them, checked as the page checks them. */
function check(link: string, nowMs?: number) {
  const url = new URL(link);
  assert.equal(url.origin, GAME_BASE_URL, 'on the game origin');
  const m = /^\/replay\/([^/]+)$/.exec(url.pathname);
  assert.ok(m, `a /replay/<round_id> path: ${url.pathname}`);
  return {
    url,
    result: checkReplayLink(
      KEYS,
      decodeURIComponent(m[1]!),
      {
        k: url.searchParams.get('k'),
        sig: url.searchParams.get('sig'),
        iat: url.searchParams.get('iat'),
        exp: url.searchParams.get('exp'),
      },
      nowMs,
    ),
  };
}

function assertDetailsLink(link: string | null | undefined, id: string) {
  assert.ok(typeof link === 'string', `a details link for ${id}`);
  const { url, result } = check(link);
  assert.deepEqual([...url.searchParams.keys()], ['k', 'sig'], 'the stable link has no expiry');
  assert.equal(url.searchParams.get('k'), KEYS.current.kid, 'signed with the current key');
  assert.deepEqual(result, {
    ok: true,
    kind: 'details',
    roundId: id,
    keyId: KEYS.current.kid,
    issuedAt: null,
    expiresAt: null,
  });
}

describe('round_details_url', () => {
  test('on every round of the search and on the round detail, with its transactions', async () => {
    const search = await get(keyA, '/api/operator/v1/rounds?limit=200');
    assert.equal(search.status, 200, search.text);
    const items = RoundSearchResponse.parse(search.json).data.items;
    assert.ok(items.length >= 1);
    for (const r of items) assertDetailsLink(r.round_details_url, r.round_id);
    const mine = items.find((r) => r.round_id === roundId)!;

    const detail = await get(keyA, `/api/operator/v1/rounds/${roundId}`);
    assert.equal(detail.status, 200, detail.text);
    const d = RoundDetailResponse.parse(detail.json).data;
    assert.equal(d.round_details_url, mine.round_details_url, 'the same stable link on every read');
    assert.deepEqual(
      d.transactions.map((t) => t.transaction_type),
      ['debit', 'credit'],
    );
    for (const t of d.transactions) assert.equal(t.round_details_url, d.round_details_url);
    // Stable: read again, the same link.
    const again = RoundDetailResponse.parse((await get(keyA, `/api/operator/v1/rounds/${roundId}`)).json);
    assert.equal(again.data.round_details_url, d.round_details_url);
    // Not guessable: another round's link differs in its signature, not just its path.
    const other = items.find((r) => r.round_id !== roundId);
    if (other) {
      const sigOf = (l: string) => new URL(l).searchParams.get('sig');
      assert.notEqual(sigOf(other.round_details_url), sigOf(d.round_details_url));
    }
  });

  test("on the transaction search and the single transaction: its round's link; null for a promotional payout's credit", async () => {
    const search = await get(keyA, `/api/operator/v1/transactions?round_id=${roundId}`);
    assert.equal(search.status, 200, search.text);
    const txs = TransactionSearchResponse.parse(search.json).data.items;
    assert.equal(txs.length, 2);
    for (const t of txs) assertDetailsLink(t.round_details_url, roundId);
    const one = await get(keyA, `/api/operator/v1/transactions/${roundId}:credit`);
    assert.equal(one.status, 200, one.text);
    assert.equal(
      OperatorTransactionResponse.parse(one.json).data.round_details_url,
      txs[0]!.round_details_url,
    );

    // A promo_win credit's round reference is its payout id, not a round: no replay page.
    const { rows } = await h.db.pool.query<{ external_player_id: string; player_id: string }>(
      `SELECT p.external_player_id, p.player_id FROM sessions s JOIN players p ON p.player_id = s.player_id
        WHERE s.session_id = $1`,
      [sessionId],
    );
    const payoutId = `pp_d_replay_links_${Date.now()}`;
    const body = JSON.stringify({ transaction_id: `${payoutId}:credit`, action_type: 'promo_win' });
    await h.db.pool.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
                                        transaction_type, amount_minor, currency, request_body, request_hash, attempts)
       VALUES ($1, 'op_rl_a', $2, $3, $4, $5, 'credit', 900, 'EUR', $6, $7, 1)`,
      [
        `${payoutId}:credit`,
        sessionId,
        payoutId,
        rows[0]!.external_player_id,
        slot.symbol,
        body,
        createHash('sha256').update(body).digest('hex'),
      ],
    );
    const promo = await get(keyA, `/api/operator/v1/transactions/${payoutId}:credit`);
    assert.equal(promo.status, 200, promo.text);
    assert.equal(OperatorTransactionResponse.parse(promo.json).data.round_details_url, null);
    const listed = TransactionSearchResponse.parse(
      (await get(keyA, `/api/operator/v1/transactions?round_id=${payoutId}`)).json,
    ).data.items;
    assert.deepEqual(
      listed.map((t) => t.round_details_url),
      [null],
    );
  });

  test("the round's credit callback carries it, in the bytes the sandbox wallet received", async () => {
    const { rows } = await h.db.pool.query<{
      transaction_id: string;
      request_body: string;
      request_hash: string;
    }>(
      `SELECT transaction_id, request_body, request_hash FROM wallet_transactions
        WHERE round_id = $1 ORDER BY transaction_id`,
      [roundId],
    );
    const byId = new Map(rows.map((r) => [r.transaction_id, r]));
    const credit = byId.get(`${roundId}:credit`)!;
    const debit = byId.get(`${roundId}:debit`)!;
    const sent = JSON.parse(credit.request_body);
    assert.equal(sent.transaction_type, 'credit');
    assertDetailsLink(sent.round_details_url, roundId);
    const audit = RoundDetailResponse.parse((await get(keyA, `/api/operator/v1/rounds/${roundId}`)).json);
    assert.equal(sent.round_details_url, audit.data.round_details_url, 'the same link as the audit API');
    assert.equal(JSON.parse(debit.request_body).round_details_url, undefined, 'the debit does not carry it');
    // The wallet's own idempotency record holds the SHA-256 of the body it received: the journalled bytes.
    const wallet = await h.db.pool.query<{ transaction_id: string; request_hash: string }>(
      `SELECT transaction_id, request_hash FROM wallet.transactions WHERE operator_id = 'op_rl_a' AND round_id = $1`,
      [roundId],
    );
    const received = new Map(wallet.rows.map((r) => [r.transaction_id, r.request_hash]));
    assert.equal(
      received.get(`${roundId}:credit`),
      createHash('sha256').update(credit.request_body).digest('hex'),
      'the wallet received the journalled credit body, round_details_url included',
    );
    assert.equal(credit.request_hash, received.get(`${roundId}:credit`));
  });
});

describe('the links open the replay page on the game server', () => {
  test('the details link and a share link render the round; a tampered signature is 404', async () => {
    const detail = RoundDetailResponse.parse(
      (await get(keyA, `/api/operator/v1/rounds/${roundId}`)).json,
    ).data;
    const share = ReplayUrlResponse.parse(
      (await post(keyA, `/api/operator/v1/rounds/${roundId}/replay-url`)).json,
    ).data;
    for (const link of [detail.round_details_url, share.url]) {
      const res = await fetch(gameUrl(h, link));
      const html = await res.text();
      assert.equal(res.status, 200, `${link}: ${html.slice(0, 300)}`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.ok(html.includes(roundId), 'the page names its round');
    }
    const tampered = new URL(detail.round_details_url);
    const sig = tampered.searchParams.get('sig')!;
    tampered.searchParams.set('sig', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
    const refused = await fetch(gameUrl(h, tampered.toString()));
    assert.equal(refused.status, 404);
    assert.ok(!(await refused.text()).includes(roundId), 'a refused link shows nothing of the round');
  });
});

describe('POST /api/operator/v1/rounds/{round_id}/replay-url', () => {
  test('201: a ten-minute share link the replay page accepts, reusable until it expires', async () => {
    const before = Date.now();
    const res = await post(keyA, `/api/operator/v1/rounds/${roundId}/replay-url`);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const data = ReplayUrlResponse.parse(res.json).data;
    assert.equal(data.round_id, roundId);
    const expires = Date.parse(data.expires_at);
    assert.ok(
      expires >= Math.floor(before / 1000) * 1000 + SHARE_LINK_TTL_SECONDS * 1000 &&
        expires <= Date.now() + SHARE_LINK_TTL_SECONDS * 1000,
      `expires ten minutes on: ${data.expires_at}`,
    );
    const { url, result } = check(data.url);
    assert.deepEqual([...url.searchParams.keys()], ['k', 'iat', 'exp', 'sig']);
    assert.equal(url.searchParams.get('exp'), String(expires / 1000));
    const issued = Number(url.searchParams.get('iat')) * 1000;
    assert.equal(issued, expires - SHARE_LINK_TTL_SECONDS * 1000);
    assert.deepEqual(result, {
      ok: true,
      kind: 'share',
      roundId,
      keyId: KEYS.current.kid,
      issuedAt: new Date(issued),
      expiresAt: new Date(expires),
    });
    // Reusable within its lifetime; refused once it has expired.
    assert.equal(check(data.url, expires - 1).result.ok, true);
    assert.deepEqual(check(data.url, expires).result, { ok: false, reason: 'expired' });
    // Not the details link: its signature does not open the page without its times.
    const stripped = new URL(data.url);
    stripped.searchParams.delete('exp');
    assert.deepEqual(check(stripped.toString()).result, { ok: false, reason: 'malformed' });
    stripped.searchParams.delete('iat');
    assert.deepEqual(check(stripped.toString()).result, { ok: false, reason: 'bad_signature' });

    // An empty JSON object as the body is the same request; a master key naming the operator too.
    assert.equal((await post(keyA, `/api/operator/v1/rounds/${roundId}/replay-url`, {})).status, 201);
    const viaMaster = await post(master, `/api/operator/v1/rounds/${roundId}/replay-url?operator_id=op_rl_a`);
    assert.equal(viaMaster.status, 201, viaMaster.text);
    assert.equal(check(ReplayUrlResponse.parse(viaMaster.json).data.url).result.ok, true);
  });

  test("another operator's round and an unknown round: the same 404", async () => {
    const other = await post(keyB, `/api/operator/v1/rounds/${roundId}/replay-url`);
    const unknown = await post(
      keyA,
      '/api/operator/v1/rounds/r_00000000-0000-4000-8000-000000000000/replay-url',
    );
    assert.equal(other.status, 404, other.text);
    assert.equal(unknown.status, 404, unknown.text);
    assert.deepEqual(other.json, unknown.json, 'nothing tells that the round exists elsewhere');
    assert.equal(other.json.url, undefined);
    const viaMaster = await post(master, `/api/operator/v1/rounds/${roundId}/replay-url?operator_id=op_rl_b`);
    assert.equal(viaMaster.status, 404, viaMaster.text);
  });

  test('bad input: 422 for a malformed round id or body, 415 and 400 for a body that is not JSON', async () => {
    for (const id of ['a'.repeat(129), 'r%20space', 'r%2Fslash', '%E2%9C%93']) {
      const res = await post(keyA, `/api/operator/v1/rounds/${id}/replay-url`);
      assert.equal(res.status, 422, `${id}: ${res.text}`);
      assert.deepEqual(res.json.detail[0].loc, ['path', 'round_id']);
    }
    const extra = await post(keyA, `/api/operator/v1/rounds/${roundId}/replay-url`, { ttl: 60 });
    assert.equal(extra.status, 422, extra.text);
    assert.equal(extra.json.detail[0].loc[0], 'body');
    const notJson = await call(h.base, 'POST', `/api/operator/v1/rounds/${roundId}/replay-url`, {
      key: keyA,
      sign: true,
      body: '{',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(notJson.status, 400, notJson.text);
    const text = await call(h.base, 'POST', `/api/operator/v1/rounds/${roundId}/replay-url`, {
      key: keyA,
      sign: true,
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(text.status, 415, text.text);
  });

  test('signed and scoped like its siblings: no key, an unsigned request, a master key naming no operator', async () => {
    const path = `/api/operator/v1/rounds/${roundId}/replay-url`;
    assert.equal((await call(h.base, 'POST', path)).status, 401);
    const unsigned = await call(h.base, 'POST', path, { key: keyA });
    assert.equal(unsigned.status, 401, unsigned.text);
    assert.equal(unsigned.json.url, undefined);
    const stale = await call(h.base, 'POST', path, { key: keyA, sign: true, timestamp: '1000000000' });
    assert.equal(stale.status, 401, stale.text);
    const noScope = await post(master, path);
    assert.equal(noScope.status, 400, noScope.text);
    assert.match(noScope.json.detail, /must name the operator/);
    // GET is not this route.
    assert.equal((await get(keyA, path)).status, 405);
  });
});
