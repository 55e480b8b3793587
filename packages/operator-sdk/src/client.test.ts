import assert from 'node:assert/strict';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, assign, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';
import { createOperatorClient, OperatorApiError } from './index.js';

// The SDK against the running API (production signing: SIGNED_REQUESTS=required), directly and
// through a proxy that loses answers, to check what is retried and that no nonce is sent twice.
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
let h: Harness;
let key = '';
let master = '';
let proxy: Server;
let proxyBase = '';
/** What the proxy does with the next requests, in order: forward, lose the answer, or 503. */
let plan: ('forward' | 'lose' | 'unavailable')[] = [];
const proxied: { method: string; url: string; nonce: string | undefined; fate: string }[] = [];

before(async () => {
  h = await startApi({ SIGNED_REQUESTS: 'required' });
  key = (await createOperator(h.base, 'op_sdk', { wallet_base_url: 'http://127.0.0.1:9/wallet' })).key;
  await assign(h.base, 'op_sdk', [slot.symbol]);
  master = (await call(h.base, 'POST', '/api/admin/v1/master-keys', { key: ADMIN_KEY, sign: true, body: {} }))
    .json.data.api_key;
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const fate = plan.shift() ?? 'forward';
      proxied.push({ method: req.method!, url: req.url!, nonce: req.headers['x-pp-nonce'] as string, fate });
      if (fate === 'unavailable') {
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end('{"detail":"Service Unavailable"}');
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && k !== 'host') headers[k] = v;
      const upstream = await fetch(h.base + req.url, {
        method: req.method!,
        headers,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      });
      const text = await upstream.text();
      // The service did the work (and spent the nonce); the client never hears of it.
      if (fate === 'lose') return req.socket.destroy();
      res.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'text/plain',
      });
      res.end(text);
    });
  });
  proxy.listen(0, '127.0.0.1');
  await new Promise((r) => proxy.once('listening', r));
  proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

after(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((r) => proxy.close(() => r()));
  await h.close();
});

describe('the typed client against the running API', () => {
  test('catalog, artwork, launch, balance refresh', async () => {
    const sdk = createOperatorClient({ baseUrl: h.base, apiKey: key });
    const games = await sdk.listGames();
    assert.equal(games.success, true);
    assert.deepEqual(
      games.data.items.map((g) => g.symbol),
      [slot.symbol],
    );
    assert.equal((await sdk.listGames({ provider_id: 'prov_c' })).data.total, 0);
    assert.equal((await sdk.getGame(slot.symbol)).data.slug, slot.slug);
    const art = await fetch(sdk.gameArtUrl(slot.symbol, { thumbnail_format: 'horizontal' }));
    assert.equal(art.status, 200);
    assert.match(art.headers.get('content-type') ?? '', /^image\//);

    const launch = await sdk.createLaunchUrl(
      { symbol: slot.symbol, external_player_id: 'sdk-player-1', currency: 'EUR' },
      { requestId: 'sdk-launch-1' },
    );
    assert.equal(launch.success, true);
    assert.equal(launch.data.session_id, launch.session_id);
    assert.match(launch.launch_url, /^http:\/\/games\.test\//);
    const refresh = await sdk.refreshPlayerBalance({ external_player_id: 'sdk-player-1', reason: 'deposit' });
    assert.equal(refresh.sessions_found, 1);
    assert.equal(refresh.subscribers_notified, 0);
  });

  test('operator audit reads, paged iteration, CSV', async () => {
    const sdk = createOperatorClient({ baseUrl: h.base, apiKey: key });
    const contract = await sdk.getContract();
    assert.equal(contract.data.operator_id, 'op_sdk');
    assert.equal(contract.data.version, '2026-09-01');
    const { rows } = await h.db.pool.query(
      `SELECT session_id FROM sessions WHERE operator_id = 'op_sdk' LIMIT 1`,
    );
    assert.equal((await sdk.getSession(rows[0].session_id)).data.player_id, 'sdk-player-1');
    assert.deepEqual((await sdk.searchTransactions({ limit: 5 })).data.items, []);
    const all = [];
    for await (const t of sdk.transactions({ currency: 'EUR' })) all.push(t);
    assert.deepEqual(all, []);
    assert.deepEqual((await sdk.searchRounds()).data.items, []);
    assert.equal((await sdk.getReconciliation()).data.balanced, true);
    assert.match(await sdk.getReconciliationCsv(), /^currency,rounds,transactions,/);
    // A master key acts for the operator it names.
    const asMaster = createOperatorClient({ baseUrl: h.base, apiKey: master, operatorId: 'op_sdk' });
    assert.equal((await asMaster.getContract()).data.operator_id, 'op_sdk');
  });

  test('the jackpot feed: the network jackpots the operator is opted in to', async () => {
    const sdk = createOperatorClient({ baseUrl: h.base, apiKey: key });
    assert.deepEqual((await sdk.listJackpots()).data.items, []);
    const admin = (method: string, path: string, body: unknown) =>
      call(h.base, method, `/api/admin/v1${path}`, { key: ADMIN_KEY, sign: true, body });
    const defined = await admin('PUT', '/jackpots/sdk-net', {
      name: 'SDK network',
      scope: 'network',
      titles: [slot.symbol],
      levels: [
        {
          level: 'mini',
          contribution_rate_ppm: 5000,
          currencies: { EUR: { seed_minor: 2500, hit_every_minor: 100_000 } },
        },
      ],
    });
    assert.equal(defined.status, 201, defined.text);
    assert.equal((await admin('PUT', '/jackpots/sdk-net/operators/op_sdk', { enabled: true })).status, 200);
    const [jackpot] = (await sdk.listJackpots()).data.items;
    assert.equal(jackpot?.jackpot_id, 'sdk-net');
    assert.deepEqual(jackpot?.levels[0]?.pools[0], {
      currency: 'EUR',
      amount_minor: '2500',
      seed_minor: '2500',
      cap_minor: null,
      hit_every_minor: '100000',
    });
  });

  test('tournaments, their leaderboards and prize drops', async () => {
    const sdk = createOperatorClient({ baseUrl: h.base, apiKey: key });
    const admin = (method: string, path: string, body: unknown) =>
      call(h.base, method, `/api/admin/v1${path}`, { key: ADMIN_KEY, sign: true, body });
    assert.deepEqual((await sdk.listTournaments()).data.items, []);
    assert.deepEqual((await sdk.listPrizeDrops()).data.items, []);
    const window = {
      starts_at: new Date(Date.now() - 60_000).toISOString(),
      ends_at: new Date(Date.now() + 3_600_000).toISOString(),
      titles: [slot.symbol],
    };
    // The tournament's rows as its definition writes them (this harness runs no Temporal server, so
    // the admin route, which starts the tournament's workflow, answers 503 here).
    await h.db.pool.query(
      `WITH t AS (
         INSERT INTO tournaments (tournament_id, name, scoring, starts_at, ends_at, status)
         VALUES ('sdk-cup', 'SDK Cup', 'total_win', $1, $2, 'running')
       ), tt AS (INSERT INTO tournament_titles VALUES ('sdk-cup', $3))
       , o AS (INSERT INTO tournament_operators (tournament_id, operator_id, opted_in) VALUES ('sdk-cup', 'op_sdk', true))
       , c AS (INSERT INTO tournament_currencies VALUES ('sdk-cup', 'EUR', 10))
       INSERT INTO tournament_prizes VALUES ('sdk-cup', 'EUR', 1, 1000), ('sdk-cup', 'EUR', 2, 500)`,
      [window.starts_at, window.ends_at, slot.symbol],
    );
    const d = await admin('PUT', '/prize-drops/sdk-drop', {
      name: 'SDK Drop',
      ...window,
      currencies: { EUR: { prize_minor: 300, prizes: 10, award_every_spins: 20 } },
    });
    assert.equal(d.status, 201, d.text);
    assert.equal(
      (await admin('PUT', '/prize-drops/sdk-drop/operators/op_sdk', { enabled: true })).status,
      200,
    );
    assert.deepEqual(
      (await sdk.listTournaments()).data.items.map((x) => [x.tournament_id, x.status]),
      [['sdk-cup', 'running']],
    );
    const board = await sdk.getTournamentLeaderboard('sdk-cup', { currency: 'EUR', limit: 5 });
    assert.deepEqual(board.data.leaderboards, [{ currency: 'EUR', items: [] }]);
    assert.equal(board.data.frozen, false);
    const [drop] = (await sdk.listPrizeDrops()).data.items;
    assert.deepEqual(
      [drop?.drop_id, drop?.pools[0]?.prizes_left, drop?.pools[0]?.prize_minor],
      ['sdk-drop', 10, '300'],
    );
    await assert.rejects(sdk.getTournamentLeaderboard('no-such-cup'), (err: any) => err.status === 404);
  });

  test('jackpot and promotional money: contributions, wins and payouts, paged; another operator’s payout is 404', async () => {
    const sdk = createOperatorClient({ baseUrl: h.base, apiKey: key });
    assert.deepEqual((await sdk.searchJackpotContributions({ limit: 5 })).data.items, []);
    assert.deepEqual((await sdk.searchJackpotWins({ status: 'paid' })).data.items, []);
    // Two payouts as a tournament's freeze writes them (ranks 1 and 2 of one tournament).
    const { rows } = await h.db.pool.query(
      `SELECT session_id, player_id, symbol FROM sessions WHERE operator_id = 'op_sdk' LIMIT 1`,
    );
    const ids = ['a', 'b'].map((c) => `pp_t_sdk-cup_${c.repeat(32)}`);
    for (const [i, id] of ids.entries()) {
      await h.db.pool.query(
        `INSERT INTO promo_payouts (payout_id, promo_type, promo_id, operator_id, external_player_id, player_id,
                                    currency, amount_minor, rank, session_id, game_symbol, created_at)
         VALUES ($1, 'tournament', 'sdk-cup', 'op_sdk', $2, $3, 'EUR', $4, $5::int, $6, $7, now() + $5::int * interval '1 ms')`,
        [
          id,
          `sdk-player-${i + 1}`,
          rows[0].player_id,
          2000 - i * 500,
          i + 1,
          rows[0].session_id,
          rows[0].symbol,
        ],
      );
    }
    const first = await sdk.searchPromoPayouts({ promo_id: 'sdk-cup', limit: 1 });
    assert.equal(first.data.items[0]?.payout_id, ids[1]);
    assert.ok(first.data.next_cursor);
    const all = [];
    for await (const p of sdk.promoPayouts({ promo_type: 'tournament', limit: 1 })) all.push(p);
    assert.deepEqual(
      all.map((p) => [p.payout_id, p.rank, p.amount_minor, p.status, p.transaction_status]),
      [
        [ids[1], 2, 1500, 'pending', null],
        [ids[0], 1, 2000, 'pending', null],
      ],
    );
    const one = await sdk.getPromoPayout(ids[0]!);
    assert.equal(one.data.transaction_id, `${ids[0]}:credit`);
    await assert.rejects(sdk.getPromoPayout('pp_t_nope_0'), (err: OperatorApiError) => err.status === 404);
    const recon = (await sdk.getReconciliation()).data;
    assert.equal(recon.balanced, false, 'pending payouts');
    assert.equal(recon.promo_payouts[0]?.ledger_minor, 3500);
    assert.equal(recon.promo_payouts[0]?.pending_payouts, 2);
    const wins = [];
    for await (const w of sdk.jackpotWins()) wins.push(w);
    const contributions = [];
    for await (const c of sdk.jackpotContributions({ currency: 'EUR' })) contributions.push(c);
    assert.deepEqual([wins, contributions], [[], []]);
    await h.db.pool.query(`DELETE FROM promo_payouts WHERE promo_id = 'sdk-cup'`);
  });

  test('errors carry the status, the detail and the request id', async () => {
    const sdk = createOperatorClient({ baseUrl: h.base, apiKey: key });
    await assert.rejects(sdk.getGame('no_such_game', { requestId: 'sdk-req-404' }), (err: unknown) => {
      assert.ok(err instanceof OperatorApiError);
      assert.equal(err.status, 404);
      assert.equal(typeof err.detail, 'string');
      assert.equal(err.requestId, 'sdk-req-404');
      assert.equal(err.details.attempts, 1, 'a 404 is not retried');
      return true;
    });
    await assert.rejects(
      sdk.createLaunchUrl({ symbol: slot.symbol, external_player_id: 'sdk-player-1', currency: 'eur' }),
      (err: OperatorApiError) => {
        assert.equal(err.status, 422);
        assert.deepEqual((err.detail as { loc: string[] }[])[0]!.loc, ['body', 'currency']);
        return true;
      },
    );
    const unsigned = createOperatorClient({ baseUrl: h.base, apiKey: key, sign: false });
    await assert.rejects(unsigned.listGames(), (err: OperatorApiError) => err.status === 401);
    const wrongKey = createOperatorClient({ baseUrl: h.base, apiKey: 'opk_wrong_key_0123456789' });
    await assert.rejects(wrongKey.listGames(), (err: OperatorApiError) => err.status === 401);
  });
});

describe('safe retries', () => {
  const fast = { attempts: 3, baseDelayMs: 10, maxDelayMs: 20 };

  test('a read whose answer was lost is retried with a fresh nonce (the first one is spent)', async () => {
    const sdk = createOperatorClient({ baseUrl: proxyBase, apiKey: key, retry: fast });
    proxied.length = 0;
    plan = ['lose', 'unavailable', 'forward'];
    const games = await sdk.listGames();
    assert.equal(games.data.total, 1);
    assert.deepEqual(
      proxied.map((p) => p.fate),
      ['lose', 'unavailable', 'forward'],
    );
    const nonces = proxied.map((p) => p.nonce);
    assert.equal(new Set(nonces).size, 3, `three attempts, three nonces: ${nonces}`);
    // The lost attempt reached the service: its nonce is spent, so reusing it would have been refused.
    const spent = await h.db.pool.query('SELECT 1 FROM request_nonces WHERE nonce = $1', [nonces[0]]);
    assert.equal(spent.rowCount, 1);
  });

  test('a launch whose answer was lost is not repeated', async () => {
    const sdk = createOperatorClient({ baseUrl: proxyBase, apiKey: key, retry: fast });
    proxied.length = 0;
    plan = ['lose'];
    await assert.rejects(
      sdk.createLaunchUrl({ symbol: slot.symbol, external_player_id: 'sdk-player-2' }),
      (err: OperatorApiError) => {
        assert.equal(err.status, undefined);
        assert.equal(err.details.attempts, 1);
        return true;
      },
    );
    assert.equal(proxied.length, 1);
    plan = ['unavailable'];
    await assert.rejects(
      sdk.createLaunchUrl({ symbol: slot.symbol, external_player_id: 'sdk-player-2' }),
      (err: OperatorApiError) => err.status === 503 && err.details.attempts === 1,
    );
  });

  test('a launch that never left (connection refused) is retried; reads give up after the attempts', async () => {
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await new Promise((r) => closed.once('listening', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const sdk = createOperatorClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: key,
      retry: fast,
      fetch: counting,
    });
    await assert.rejects(
      sdk.createLaunchUrl({ symbol: slot.symbol, external_player_id: 'sdk-player-3' }),
      (err: OperatorApiError) => err.details.attempts === 3 && /ECONNREFUSED/.test(err.message),
    );
    assert.equal(calls, 3);
  });

  test('an integer beyond 2^53 fails the call instead of being rounded', async () => {
    const sdk = createOperatorClient({
      baseUrl: 'http://sdk.test',
      apiKey: key,
      fetch: async () =>
        new Response('{"success":true,"data":{"items":[],"total":9007199254740993}}', {
          status: 200,
          headers: { 'content-type': 'application/json' },
        }),
    });
    await assert.rejects(sdk.listGames(), /beyond 2\^53/);
  });
});
