import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { BalanceRefreshResponse } from '@opi/contract';
import { CATALOG } from '@opi/games';
import { hashLaunchToken, newLaunchToken } from '@opi/play/sessions/tokens';
import { ADMIN_KEY, call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';

/*
 * Balance refresh signalling end to end: a game page's event stream (GET /api/runtime/events),
 * POST /api/provider/v1/player-balance-refresh, and the NOTIFY fan-out between two API processes
 * (two harnesses on one database).
 */

const OP = 'op_br';
const slots = CATALOG.filter((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted');
const slotA = slots[0]!;
const slotB = slots[1]!;
const provB = CATALOG.find((e) => e.provider_id === 'prov_b')!;
const provC = CATALOG.find((e) => e.provider_id === 'prov_c')!;
const provD = CATALOG.find((e) => e.provider_id === 'prov_d')!;

let w: PlayWorld;
let a: Harness;
let b: Harness;
let admin: WalletAdminClient;
let key: string;
let otherKey: string;
let master: string;

before(async () => {
  w = await startPlayWorld({
    temporal: false,
    secondApi: true,
    operators: [
      { id: OP, titles: [slotA.symbol, slotB.symbol] },
      { id: 'op_br_other', wallet: 'none' },
    ],
  });
  ({ h: a, admin, key } = w);
  b = w.h2!;
  // The tests drive the heartbeat themselves (a timer tick would refresh a row made stale here).
  a.gameDeps.refresh.stopHeartbeat();
  b.gameDeps.refresh.stopHeartbeat();
  otherKey = w.operators.op_br_other!.key;
  master = (await call(a.base, 'POST', '/api/admin/v1/master-keys', { key: ADMIN_KEY, body: { label: 't' } }))
    .json.data.api_key;
});
after(() => w.close());

// --- helpers -------------------------------------------------------------------------------------

interface SseBlock {
  event?: string;
  data?: any;
  comment?: string;
}

/** A game page's event stream, read with fetch() streaming as the page does. */
async function subscribe(base: string, token: string) {
  const abort = new AbortController();
  const res = await fetch(`${base}/api/runtime/events`, {
    headers: { 'x-session-token': token },
    signal: abort.signal,
  });
  const blocks: SseBlock[] = [];
  const waiters: (() => void)[] = [];
  let done = false;
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  if (res.ok && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done: end } = await reader.read();
          if (end) break;
          buf += decoder.decode(value, { stream: true });
          let cut = buf.indexOf('\n\n');
          while (cut >= 0) {
            const block: SseBlock = {};
            for (const line of buf.slice(0, cut).split('\n')) {
              if (line.startsWith(':')) block.comment = line.slice(1).trim();
              else if (line.startsWith('event: ')) block.event = line.slice(7);
              else if (line.startsWith('data: ')) block.data = JSON.parse(line.slice(6));
            }
            blocks.push(block);
            buf = buf.slice(cut + 2);
            cut = buf.indexOf('\n\n');
          }
          wake();
        }
      } catch {}
      done = true;
      wake();
    })();
  }
  const stream = {
    res,
    get ended() {
      return done;
    },
    /** The next event (or, with `comments`, the next block), or a failure after `ms`. */
    async next(opts: { ms?: number; comments?: boolean } = {}): Promise<SseBlock> {
      const deadline = Date.now() + (opts.ms ?? 5000);
      for (;;) {
        if (!opts.comments) while (blocks[0]?.comment !== undefined) blocks.shift();
        if (blocks.length > 0) break;
        if (done) throw new Error('stream ended');
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no event in time');
        await new Promise<void>((r) => {
          const t = setTimeout(r, left);
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
      return blocks.shift()!;
    },
    /** Asserts no event arrives within `ms`. */
    async none(ms = 300): Promise<void> {
      await new Promise((r) => setTimeout(r, ms));
      assert.deepEqual(
        blocks.filter((b) => b.comment === undefined),
        [],
        'no event expected',
      );
    },
    close: () => abort.abort(),
  };
  return stream;
}

/** Subscribes and reads `ready`: from then on the page counts as present. */
async function openPage(base: string, token: string) {
  const s = await subscribe(base, token);
  assert.equal(s.res.status, 200);
  const ready = await s.next();
  assert.equal(ready.event, 'ready');
  assert.match(ready.data.subscriber_id, /^sub_[0-9a-f-]{36}$/);
  return Object.assign(s, { subscriberId: ready.data.subscriber_id as string });
}

async function launch(player: string, symbol = slotA.symbol, currency = 'EUR') {
  const res = await call(a.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol, external_player_id: player, currency },
  });
  assert.equal(res.status, 200, res.text);
  return { token: new URL(res.json.launch_url).searchParams.get('mgckey')!, sessionId: res.json.session_id };
}

function refresh(body: unknown, opts: { base?: string; key?: string } = {}) {
  return call(opts.base ?? a.base, 'POST', '/api/provider/v1/player-balance-refresh', {
    key: opts.key ?? key,
    body,
    sign: true,
  });
}

/** A 200 checked against the contract; returns the body. */
async function refreshOk(body: unknown, opts: { base?: string; key?: string } = {}) {
  const res = await refresh(body, opts);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  BalanceRefreshResponse.parse(res.json);
  return res.json;
}

async function presence(subscriberId: string) {
  const { rows } = await a.db.pool.query(`SELECT * FROM subscriber_presence WHERE subscriber_id = $1`, [
    subscriberId,
  ]);
  return rows[0];
}

async function eventually(check: () => Promise<boolean>, what: string, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A session of another family for the same player, inserted as launch would (token hashed). */
async function foreignSession(player: string, symbol: string, providerId: string) {
  const { rows } = await a.db.pool.query<{ player_id: string }>(
    `SELECT player_id FROM players WHERE external_player_id = $1 AND scope = 'global'`,
    [player],
  );
  const { token, hash } = newLaunchToken();
  const sessionId = `s_${randomUUID()}`;
  await a.db.pool.query(
    `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency, token_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, 'EUR', $6, now() + interval '30 minutes')`,
    [sessionId, OP, rows[0]!.player_id, symbol, providerId, hash],
  );
  assert.equal(hashLaunchToken(token), hash);
  return { token, sessionId };
}

// --- the stream ----------------------------------------------------------------------------------

describe('GET /api/runtime/events', () => {
  test('answers a text/event-stream, uncached, that starts with ready', async () => {
    const { token, sessionId } = await launch('br-stream-1');
    const page = await openPage(a.game, token);
    assert.equal(page.res.headers.get('content-type'), 'text/event-stream');
    assert.equal(page.res.headers.get('cache-control'), 'no-store');
    assert.equal(page.res.headers.get('content-encoding'), null);
    const row = await presence(page.subscriberId);
    assert.equal(row.session_id, sessionId);
    assert.equal(row.api_instance, a.gameDeps.refresh.instance);
    await a.gameDeps.refresh.heartbeat();
    assert.deepEqual(await page.next({ comments: true }), { comment: 'keepalive' });
    page.close();
  });

  test('needs the session token; other families get 409', async () => {
    const none = await call(a.game, 'GET', '/api/runtime/events');
    assert.equal(none.status, 401);
    assert.equal(typeof none.json.detail, 'string');
    const apiKey = await call(a.game, 'GET', '/api/runtime/events', { key });
    assert.equal(apiKey.status, 401, 'an API key is not a session token');
    await launch('br-stream-2');
    const native = await foreignSession('br-stream-2', provC.symbol, 'prov_c');
    const res = await call(a.game, 'GET', '/api/runtime/events', {
      headers: { 'x-session-token': native.token },
    });
    assert.equal(res.status, 409);
    assert.match(res.json.detail, /prov_a/);
    const { rows } = await a.db.pool.query(`SELECT 1 FROM subscriber_presence WHERE session_id = $1`, [
      native.sessionId,
    ]);
    assert.equal(rows.length, 0);
  });

  test('a disconnect removes the presence row', async () => {
    const { token, sessionId } = await launch('br-disconnect');
    const page = await openPage(a.game, token);
    assert.ok(await presence(page.subscriberId));
    assert.equal(a.gameDeps.refresh.localCount(sessionId), 1);
    page.close();
    await eventually(async () => (await presence(page.subscriberId)) === undefined, 'presence row deleted');
    assert.equal(a.gameDeps.refresh.localCount(sessionId), 0);
    const res = await refreshOk({ external_player_id: 'br-disconnect' });
    assert.equal(res.sessions[0].active_subscribers, 0);
    assert.equal(res.subscribers_notified, 0);
  });

  test('a session holds at most 3 streams across both game-server processes: the oldest are superseded wherever they are held', async () => {
    const { token, sessionId } = await launch('br-limit-across');
    const hubs = [a.gameDeps.refresh, b.gameDeps.refresh];
    // Six opens, alternately on A and B: each new stream supersedes the oldest, held by the other.
    const pages = [];
    for (let i = 0; i < 6; i++) pages.push(await openPage(i % 2 === 0 ? a.game : b.game, token));
    const superseded = pages.slice(0, 3);
    const kept = pages.slice(3);
    for (const old of superseded) {
      assert.deepEqual(await old.next(), { event: 'closed', data: { reason: 'superseded' } });
      await eventually(async () => old.ended, 'the superseded stream ended');
    }
    assert.ok(
      kept.every((p) => !p.ended),
      'the three newest stay',
    );
    assert.equal(hubs[0]!.localCount(sessionId) + hubs[1]!.localCount(sessionId), 3);
    assert.equal(hubs[0]!.localCount(sessionId), 1, 'A holds the 5th');
    assert.equal(hubs[1]!.localCount(sessionId), 2, 'B holds the 4th and the 6th');
    const { rows } = await a.db.pool.query<{ subscriber_id: string }>(
      `SELECT subscriber_id FROM subscriber_presence WHERE session_id = $1 ORDER BY connected_at`,
      [sessionId],
    );
    assert.deepEqual(
      rows.map((r) => r.subscriber_id),
      kept.map((p) => p.subscriberId),
    );
    // A refresh counts and reaches the three.
    const res = await refreshOk({ external_player_id: 'br-limit-across' });
    assert.equal(res.subscribers_notified, 3);
    for (const p of kept) assert.equal((await p.next()).event, 'balance-refresh');
    // `superseded` comes alone: mixed with session ids (or a signal) the payload is refused whole.
    const notify = (payload: unknown) =>
      a.db.pool.query(`SELECT pg_notify('opi_balance_refresh', $1)`, [JSON.stringify(payload)]);
    await notify({
      session_ids: [sessionId],
      request_id: null,
      reason: null,
      superseded: [kept[0]!.subscriberId],
    });
    await notify({ session_ids: [], request_id: 'r', reason: null, superseded: [kept[0]!.subscriberId] });
    for (const p of kept) await p.none();
    await notify({ session_ids: [], request_id: null, reason: null, superseded: [kept[0]!.subscriberId] });
    assert.deepEqual(await kept[0]!.next(), { event: 'closed', data: { reason: 'superseded' } });
    for (const p of kept) p.close();
  });

  test('opens at the same time on both processes still leave 3 (the session lock orders them)', async () => {
    const { token, sessionId } = await launch('br-limit-burst');
    const pages = await Promise.all(
      Array.from({ length: 8 }, (_, i) => subscribe(i % 2 === 0 ? a.game : b.game, token)),
    );
    for (const p of pages) assert.equal(p.res.status, 200);
    // Every stream got ready; the superseded ones then `closed` and ended.
    await eventually(async () => pages.filter((p) => !p.ended).length === 3, 'three streams left');
    const count = async () =>
      (await a.db.pool.query(`SELECT 1 FROM subscriber_presence WHERE session_id = $1`, [sessionId]))
        .rowCount;
    await eventually(async () => (await count()) === 3, 'three presence rows');
    assert.equal(a.gameDeps.refresh.localCount(sessionId) + b.gameDeps.refresh.localCount(sessionId), 3);
    // Each superseded page was told why (a stream superseded in its own process before its row was
    // written ends without `ready`).
    for (const p of pages.filter((p) => p.ended)) {
      const events: SseBlock[] = [];
      for (;;) {
        try {
          events.push(await p.next({ ms: 100 }));
        } catch {
          break;
        }
      }
      assert.deepEqual(events.at(-1), { event: 'closed', data: { reason: 'superseded' } });
      assert.ok(events.length <= 2 && (events.length === 1 || events[0]!.event === 'ready'));
    }
    for (const p of pages) p.close();
  });

  test('a superseded stream whose NOTIFY was lost comes back for one heartbeat only, then ends', async () => {
    const { token, sessionId } = await launch('br-limit-lost');
    const page = await openPage(a.game, token);
    // Another process opened three newer streams and deleted this row, but the NOTIFY was lost.
    await a.db.pool.query(
      `WITH gone AS (DELETE FROM subscriber_presence WHERE subscriber_id = $2)
       INSERT INTO subscriber_presence (subscriber_id, session_id, api_instance, connected_at)
       SELECT 'sub_newer_' || i, $1, 'elsewhere', now() + i * interval '1 millisecond' FROM generate_series(1, 3) i`,
      [sessionId, page.subscriberId],
    );
    await page.none();
    // The heartbeat puts the row back (with its first connected_at, so as the oldest) and trims.
    await a.gameDeps.refresh.heartbeat();
    assert.deepEqual(await page.next(), { event: 'closed', data: { reason: 'superseded' } });
    await eventually(async () => page.ended, 'stream ended');
    assert.equal(await presence(page.subscriberId), undefined);
    const { rows } = await a.db.pool.query<{ subscriber_id: string }>(
      `SELECT subscriber_id FROM subscriber_presence WHERE session_id = $1 ORDER BY subscriber_id`,
      [sessionId],
    );
    assert.deepEqual(
      rows.map((r) => r.subscriber_id),
      ['sub_newer_1', 'sub_newer_2', 'sub_newer_3'],
    );

    // Likewise a row left stale (its process could not hear NOTIFY for a while) that is fresh again.
    const second = await openPage(a.game, token);
    // Its open kept the 2 newest others beside it.
    assert.equal(await presence('sub_newer_1'), undefined);
    // Stale (not counted by the open of sub_newer_4 below); made the oldest of the four.
    await a.db.pool.query(
      `UPDATE subscriber_presence SET last_seen_at = now() - interval '60 seconds', connected_at = now() - interval '70 seconds'
        WHERE subscriber_id = $1`,
      [second.subscriberId],
    );
    await a.db.pool.query(
      `INSERT INTO subscriber_presence (subscriber_id, session_id, api_instance) VALUES ('sub_newer_4', $1, 'elsewhere')`,
      [sessionId],
    );
    // The heartbeat makes it fresh again: counted with the three newer ones, it goes.
    await a.gameDeps.refresh.heartbeat();
    assert.deepEqual(await second.next(), { event: 'closed', data: { reason: 'superseded' } });
    await a.db.pool.query(`DELETE FROM subscriber_presence WHERE session_id = $1`, [sessionId]);
  });

  test('ending the streams (shutdown) ends the response and deletes the process rows', async () => {
    const { token } = await launch('br-shutdown');
    const page = await openPage(b.game, token);
    b.gameDeps.refresh.closeStreams();
    await eventually(async () => page.ended, 'stream ended');
    await eventually(async () => (await presence(page.subscriberId)) === undefined, 'rows deleted');
  });
});

// --- the refresh endpoint ------------------------------------------------------------------------

describe('POST /api/provider/v1/player-balance-refresh', () => {
  test('signals the open page, which then reads the new balance through the wallet', async () => {
    const player = 'br-player-1';
    await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor: 1_000 });
    const { token, sessionId } = await launch(player);
    const page = await openPage(a.game, token);
    await admin.deposit({
      operatorId: OP,
      playerId: player,
      currency: 'EUR',
      amountMinor: 250,
      reference: 'd1',
    });

    const res = await refreshOk({ external_player_id: player, request_id: 'dep-1', reason: 'deposit' });
    const data = {
      operator_id: OP,
      external_player_id: player,
      request_id: 'dep-1',
      reason: 'deposit',
      sessions_found: 1,
      sessions_notified: 1,
      subscribers_notified: 1,
      sessions: [
        {
          session_id: sessionId,
          game_symbol: slotA.symbol,
          currency: 'EUR',
          active_subscribers: 1,
          notified: true,
        },
      ],
    };
    assert.deepEqual(res, { success: true, ...data, data });

    assert.deepEqual(await page.next(), {
      event: 'balance-refresh',
      data: { request_id: 'dep-1', reason: 'deposit' },
    });
    const balance = await call(a.game, 'GET', '/api/runtime/balance', {
      headers: { 'x-session-token': token },
    });
    assert.equal(balance.status, 200, balance.text);
    assert.equal(balance.json.balance, '12.50');
    page.close();
  });

  test('two API processes: the page on B hears a refresh sent to A, counted from A', async () => {
    const { token, sessionId } = await launch('br-two');
    const onB = await openPage(b.game, token);
    const onA = await openPage(a.game, token);
    assert.equal((await presence(onB.subscriberId)).api_instance, b.gameDeps.refresh.instance);
    assert.notEqual(a.gameDeps.refresh.instance, b.gameDeps.refresh.instance);

    const res = await refreshOk({ external_player_id: 'br-two', reason: 'manual adjustment' });
    assert.equal(res.sessions_found, 1);
    assert.equal(res.subscribers_notified, 2);
    assert.deepEqual(res.sessions[0], {
      session_id: sessionId,
      game_symbol: slotA.symbol,
      currency: 'EUR',
      active_subscribers: 2,
      notified: true,
    });
    assert.equal(res.request_id, null);
    const expected = { event: 'balance-refresh', data: { request_id: null, reason: 'manual adjustment' } };
    assert.deepEqual(await onB.next(), expected);
    assert.deepEqual(await onA.next(), expected);

    // And the other way round: sent to B, heard on A.
    await refreshOk({ external_player_id: 'br-two', request_id: 'r2' }, { base: b.base });
    assert.deepEqual(await onA.next(), {
      event: 'balance-refresh',
      data: { request_id: 'r2', reason: null },
    });
    assert.deepEqual(await onB.next(), {
      event: 'balance-refresh',
      data: { request_id: 'r2', reason: null },
    });
    onA.close();
    onB.close();
  });

  test('filters: currency, game symbol or slug, session id; only matching pages hear it', async () => {
    const player = 'br-filters';
    const eur = await launch(player, slotA.symbol, 'EUR');
    const usd = await launch(player, slotA.symbol, 'USD');
    const other = await launch(player, slotB.symbol, 'EUR');
    const pages = {
      eur: await openPage(a.game, eur.token),
      usd: await openPage(b.game, usd.token),
      other: await openPage(a.game, other.token),
    };
    const ids = (r: { sessions: { session_id: string }[] }) => r.sessions.map((s) => s.session_id).sort();

    const all = await refreshOk({ external_player_id: player });
    assert.deepEqual(ids(all), [eur.sessionId, usd.sessionId, other.sessionId].sort());
    assert.equal(all.sessions_notified, 3);
    assert.equal(all.subscribers_notified, 3);
    for (const p of Object.values(pages)) assert.equal((await p.next()).event, 'balance-refresh');

    const byCurrency = await refreshOk({ external_player_id: player, currency: 'USD', request_id: 'c' });
    assert.deepEqual(ids(byCurrency), [usd.sessionId]);
    assert.equal(byCurrency.sessions[0].currency, 'USD');
    assert.deepEqual((await pages.usd.next()).data, { request_id: 'c', reason: null });
    await pages.eur.none();
    await pages.other.none();

    const bySlug = await refreshOk({ external_player_id: player, game_symbol: slotB.slug });
    assert.deepEqual(ids(bySlug), [other.sessionId]);
    assert.equal(bySlug.sessions[0].game_symbol, slotB.symbol);
    assert.equal((await pages.other.next()).event, 'balance-refresh');

    const bySymbol = await refreshOk({
      external_player_id: player,
      game_symbol: slotA.symbol,
      currency: 'EUR',
    });
    assert.deepEqual(ids(bySymbol), [eur.sessionId]);
    assert.equal((await pages.eur.next()).event, 'balance-refresh');

    const bySession = await refreshOk({ external_player_id: player, session_id: usd.sessionId });
    assert.deepEqual(ids(bySession), [usd.sessionId]);
    assert.equal((await pages.usd.next()).event, 'balance-refresh');

    const noMatch = await refreshOk({ external_player_id: player, session_id: 's_unknown' });
    assert.equal(noMatch.sessions_found, 0);
    assert.equal(noMatch.sessions_notified, 0);
    const elsewhere = await refreshOk({
      external_player_id: player,
      session_id: eur.sessionId,
      currency: 'USD',
    });
    assert.equal(elsewhere.sessions_found, 0);
    for (const p of Object.values(pages)) {
      await p.none();
      p.close();
    }
  });

  test('other families: a game filter is 409, unfiltered they are skipped, unknown game 404', async () => {
    const player = 'br-families';
    const slot = await launch(player);
    const native = await foreignSession(player, provC.symbol, 'prov_c');
    for (const g of [provB.symbol, provC.symbol, provC.slug, provD.symbol]) {
      const res = await refresh({ external_player_id: player, game_symbol: g });
      assert.equal(res.status, 409, g);
      assert.match(res.json.detail, /prov_a/);
    }
    const bySession = await refresh({ external_player_id: player, session_id: native.sessionId });
    assert.equal(bySession.status, 409);
    const unfiltered = await refreshOk({ external_player_id: player });
    assert.deepEqual(
      unfiltered.sessions.map((s: { session_id: string }) => s.session_id),
      [slot.sessionId],
    );
    assert.equal(unfiltered.sessions_found, 1);
    const unknown = await refresh({ external_player_id: player, game_symbol: 'no-such-game' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.detail, 'Game not found');
  });

  test('stale presence (a dead process) is not counted; the heartbeat refreshes and purges', async () => {
    const { token, sessionId } = await launch('br-stale');
    const page = await openPage(a.game, token);
    await a.db.pool.query(
      `UPDATE subscriber_presence SET last_seen_at = now() - interval '60 seconds' WHERE subscriber_id = $1`,
      [page.subscriberId],
    );
    await a.db.pool.query(
      `INSERT INTO subscriber_presence (subscriber_id, session_id, api_instance, connected_at, last_seen_at)
       VALUES ('sub_dead_recent', $1, 'dead-process', now() - interval '2 minutes', now() - interval '50 seconds'),
              ('sub_dead_old', $1, 'dead-process', now() - interval '1 hour', now() - interval '10 minutes')`,
      [sessionId],
    );
    const stale = await refreshOk({ external_player_id: 'br-stale' });
    assert.equal(stale.sessions[0].active_subscribers, 0);
    assert.equal(stale.sessions[0].notified, true, 'a signal is sent to every found session');
    assert.equal(stale.subscribers_notified, 0);
    assert.equal((await page.next()).event, 'balance-refresh', 'the signal still reaches the page');

    await a.gameDeps.refresh.heartbeat();
    assert.deepEqual(await page.next({ comments: true }), { comment: 'keepalive' });
    const fresh = await refreshOk({ external_player_id: 'br-stale' });
    assert.equal(fresh.sessions[0].active_subscribers, 1);
    assert.ok(await presence('sub_dead_recent'), 'not yet purged');
    assert.equal(await presence('sub_dead_old'), undefined, 'purged after 5 minutes');
    page.close();
  });

  test('the heartbeat re-inserts a purged row of a live page', async () => {
    const { token } = await launch('br-reinsert');
    const page = await openPage(a.game, token);
    await a.db.pool.query(`DELETE FROM subscriber_presence WHERE subscriber_id = $1`, [page.subscriberId]);
    assert.equal((await refreshOk({ external_player_id: 'br-reinsert' })).subscribers_notified, 0);
    await page.next(); // the signal
    await a.gameDeps.refresh.heartbeat();
    assert.equal((await refreshOk({ external_player_id: 'br-reinsert' })).subscribers_notified, 1);
    page.close();
  });

  test('only active, unexpired sessions of this operator are found', async () => {
    const expired = await launch('br-expired');
    await a.db.pool.query(
      `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE session_id = $1`,
      [expired.sessionId],
    );
    assert.equal((await refreshOk({ external_player_id: 'br-expired' })).sessions_found, 0);
    const closed = await launch('br-closed');
    await a.db.pool.query(`UPDATE sessions SET status = 'closed' WHERE session_id = $1`, [closed.sessionId]);
    assert.equal((await refreshOk({ external_player_id: 'br-closed' })).sessions_found, 0);
    await launch('br-mine');
    const other = await refreshOk({ external_player_id: 'br-mine' }, { key: otherKey });
    assert.equal(other.operator_id, 'op_br_other');
    assert.equal(other.sessions_found, 0, "another operator's player is not found");
  });

  test('an unknown player is 200 with nothing found; request_id and reason echo as null', async () => {
    const res = await refreshOk({ external_player_id: 'br-nobody' });
    const data = {
      operator_id: OP,
      external_player_id: 'br-nobody',
      request_id: null,
      reason: null,
      sessions_found: 0,
      sessions_notified: 0,
      subscribers_notified: 0,
      sessions: [],
    };
    assert.deepEqual(res, { success: true, ...data, data });
  });

  test('master keys name the operator; operator keys may not name another', async () => {
    const { sessionId } = await launch('br-master');
    const res = await refreshOk({ external_player_id: 'br-master', operator_id: OP }, { key: master });
    assert.equal(res.operator_id, OP);
    assert.equal(res.sessions[0].session_id, sessionId);
    assert.equal((await refresh({ external_player_id: 'br-master' }, { key: master })).status, 400);
    const unknownOp = await refresh(
      { external_player_id: 'br-master', operator_id: 'op_none' },
      { key: master },
    );
    assert.equal(unknownOp.status, 404);
    const foreign = await refresh({ external_player_id: 'br-master', operator_id: OP }, { key: otherKey });
    assert.equal(foreign.status, 403);
    assert.equal((await refresh({ external_player_id: 'br-master', operator_id: OP })).status, 200);
  });

  test('400, 401, 422 as elsewhere', async () => {
    assert.equal(
      (await refresh({ external_player_id: 'p' }, { key: 'pk_wrong_0000000000000000' })).status,
      401,
    );
    const unsigned = await call(a.base, 'POST', '/api/provider/v1/player-balance-refresh', {
      body: { external_player_id: 'p' },
    });
    assert.equal(unsigned.status, 401);
    for (const body of [[], 'text', null, {}, { currency: 'EUR' }]) {
      const res = await refresh(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(typeof res.json.detail, 'string');
    }
    for (const [body, field] of [
      [{ external_player_id: '' }, 'external_player_id'],
      [{ external_player_id: ' padded' }, 'external_player_id'],
      [{ external_player_id: 'x'.repeat(65) }, 'external_player_id'],
      [{ external_player_id: 7 }, 'external_player_id'],
      [{ external_player_id: 'p', currency: 'eur' }, 'currency'],
      [{ external_player_id: 'p', game_symbol: '' }, 'game_symbol'],
      [{ external_player_id: 'p', session_id: 5 }, 'session_id'],
      [{ external_player_id: 'p', request_id: 'r'.repeat(129) }, 'request_id'],
      [{ external_player_id: 'p', reason: 'x\u0000y' }, 'reason'],
    ] as const) {
      const res = await refresh(body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(res.json.detail[0].loc, ['body', field]);
    }
  });
});
