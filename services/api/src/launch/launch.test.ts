import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { LaunchUrlResponse } from '@opi/contract';
import { CATALOG } from '@opi/games';
import { hashLaunchToken } from '@opi/play/sessions/tokens';
import { ADMIN_KEY, assign, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';
import { settlementProbe } from '../settlement/settlement-probe.js';

let h: Harness;
let a: { key: string };
let b: { key: string };
const ALL = CATALOG.map((e) => e.symbol);
const slotA = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const slotB = CATALOG.find((e) => e.provider_id === 'prov_b')!;
const native = CATALOG.find((e) => e.provider_id === 'prov_c' && e.integration_mode === 'operator-wallet')!;
const crash1 = CATALOG.find((e) => e.provider_id === 'prov_d' && e.crash_currencies?.length === 1)!;
const crash2 = CATALOG.find((e) => e.provider_id === 'prov_d' && (e.crash_currencies?.length ?? 0) > 1)!;
const demoCrash = CATALOG.find((e) => e.provider_id === 'prov_d' && e.integration_mode === 'demo-only')!;
const blocked = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'blocked')!;
const sandboxNative = CATALOG.filter(
  (e) => e.provider_id === 'prov_c' && e.integration_mode === 'sandbox-only',
);
const optInNative = CATALOG.find(
  (e) =>
    e.provider_id === 'prov_c' &&
    e.integration_mode === 'operator-wallet' &&
    !e.operator_wallet_default &&
    e.symbol !== native.symbol,
)!;
const otherSlotA = CATALOG.find(
  (e) => e.provider_id === 'prov_a' && e.release.status === 'accepted' && e.symbol !== slotA.symbol,
)!;
let n = 0;
const pid = () => `op-player-${process.pid}-${++n}`;

before(async () => {
  h = await startApi();
  a = await createOperator(h.base, 'op_la', { allowed_currencies: ['EUR', 'USD', 'GBP', 'JPY'] });
  b = await createOperator(h.base, 'op_lb', { allowed_currencies: ['EUR', 'USD'] });
  await assign(h.base, 'op_la', ALL);
  await assign(h.base, 'op_lb', ALL);
  await call(h.base, 'PUT', `/api/admin/v1/games/${native.symbol}/operator-wallet`, {
    key: ADMIN_KEY,
    body: { enabled: true },
  });
});
after(() => h.close());

const launch = (key: string, body: Record<string, unknown>) =>
  call(h.base, 'POST', '/api/provider/v1/launch-url', { key, body });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Launches until the answer has `status` (catalog changes reach the launch cache through NOTIFY). */
async function launchUntil(
  status: number,
  key: string,
  body: Record<string, unknown>,
  base = h.base,
  timeoutMs = 5_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(base, 'POST', '/api/provider/v1/launch-url', { key, body });
    if (res.status === status || Date.now() > deadline) return res;
    await sleep(50);
  }
}

async function sessionsOf(externalPlayerId: string): Promise<number> {
  const { rows } = await h.db.pool.query(
    `SELECT count(*)::int AS n FROM sessions s JOIN players p USING (player_id) WHERE p.external_player_id = $1`,
    [externalPlayerId],
  );
  return rows[0].n;
}

async function setOperatorWallet(symbol: string, enabled: boolean) {
  const res = await call(h.base, 'PUT', `/api/admin/v1/games/${symbol}/operator-wallet`, {
    key: ADMIN_KEY,
    body: { enabled },
    sign: true,
  });
  assert.equal(res.status, 200, res.text);
}

describe('launch-url', () => {
  test('prov_a: the LaunchUrlData at the top level and under data; the token is stored only hashed', async () => {
    const res = await launch(a.key, {
      symbol: slotA.symbol,
      external_player_id: pid(),
      device: 'tablet',
      lang: 'en',
    });
    assert.equal(res.status, 200, res.text);
    const parsed = LaunchUrlResponse.safeParse(res.json);
    assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
    assert.equal(res.json.currency, 'EUR', 'the operator currency by default');
    assert.equal(res.json.contract_version, '2026-09-01');
    assert.equal(res.json.amount_unit, 'minor');
    const url = new URL(res.json.launch_url);
    assert.equal(url.origin, 'http://games.test');
    assert.equal(url.pathname, '/gs2c/html5Game.do');
    const token = url.searchParams.get('mgckey')!;
    assert.ok(token.length >= 43);
    const minutes = (Date.parse(res.json.expires_at) - Date.now()) / 60_000;
    assert.ok(minutes > 29 && minutes <= 30, `inactivity deadline ${minutes} min`);
    const { rows } = await h.db.pool.query('SELECT token_hash, device FROM sessions WHERE session_id = $1', [
      res.json.session_id,
    ]);
    assert.equal(rows[0].token_hash, hashLaunchToken(token));
    assert.equal(rows[0].device, 'mobile', 'a tablet is mobile for the slot families');
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  test('symbol or slug; both must name the same game; unknown game 404', async () => {
    assert.equal((await launch(a.key, { slug: slotA.slug, external_player_id: pid() })).status, 200);
    assert.equal(
      (await launch(a.key, { symbol: slotA.symbol, slug: slotA.slug, external_player_id: pid() })).status,
      200,
    );
    const other = CATALOG.find(
      (e) => e.provider_id === 'prov_a' && e.symbol !== slotA.symbol && e.release.status === 'accepted',
    )!;
    assert.equal(
      (await launch(a.key, { symbol: slotA.symbol, slug: other.slug, external_player_id: pid() })).status,
      400,
    );
    assert.equal((await launch(a.key, { symbol: 'no_such_game', external_player_id: pid() })).status, 404);
  });

  test('missing required fields 400; malformed fields 422 with their location', async () => {
    assert.equal((await launch(a.key, { symbol: slotA.symbol })).status, 400);
    assert.equal((await launch(a.key, { external_player_id: pid() })).status, 400);
    assert.equal(
      (await call(h.base, 'POST', '/api/provider/v1/launch-url', { key: a.key, body: '[1]' })).status,
      400,
    );
    for (const [body, loc] of [
      [{ external_player_id: ' padded' }, 'body.external_player_id'],
      [{ external_player_id: 'x'.repeat(65) }, 'body.external_player_id'],
      [{ external_player_id: pid(), currency: 'eur' }, 'body.currency'],
      [{ external_player_id: pid(), coin: 0 }, 'body.coin'],
      [{ external_player_id: pid(), coin: 'abc' }, 'body.coin'],
      [{ external_player_id: pid(), device: 'watch' }, 'body.device'],
      [{ external_player_id: pid(), currency: 'CHF' }, 'body.currency'],
      [{ external_player_id: pid(), coin: '0.001' }, 'body.coin'],
    ] as const) {
      const res = await launch(a.key, { symbol: slotA.symbol, ...body });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.ok(
        res.json.detail.some((d: any) => d.loc.join('.') === loc),
        `${loc} in ${JSON.stringify(res.json.detail)}`,
      );
    }
  });

  test('player ids are global for prov_a/prov_b/prov_c (409 across operators), isolated for prov_d', async () => {
    const id = pid();
    assert.equal((await launch(a.key, { symbol: slotA.symbol, external_player_id: id })).status, 200);
    const taken = await launch(b.key, { symbol: slotA.symbol, external_player_id: id });
    assert.equal(taken.status, 409);
    assert.equal((await launch(b.key, { symbol: native.symbol, external_player_id: id })).status, 409);
    const crashId = pid();
    assert.equal(
      (await launch(a.key, { symbol: crash2.symbol, external_player_id: crashId, currency: 'USD' })).status,
      200,
    );
    assert.equal(
      (await launch(b.key, { symbol: crash2.symbol, external_player_id: crashId, currency: 'USD' })).status,
      200,
    );
    assert.equal(
      (await launch(b.key, { symbol: crash2.symbol, external_player_id: crashId, currency: 'EUR' })).status,
      200,
    );
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM players WHERE external_player_id = $1`,
      [crashId],
    );
    assert.equal(rows[0].n, 3, 'one identity per operator and currency');
  });

  test('crash currencies: title 1 USD only; title 2 USD, EUR, GBP; never the others', async () => {
    assert.equal(
      (await launch(a.key, { symbol: crash1.symbol, external_player_id: pid(), currency: 'USD' })).status,
      200,
    );
    assert.equal(
      (await launch(a.key, { symbol: crash1.symbol, external_player_id: pid(), currency: 'EUR' })).status,
      422,
    );
    assert.equal(
      (await launch(a.key, { symbol: crash1.symbol, external_player_id: pid() })).status,
      422,
      'EUR default refused',
    );
    for (const c of ['USD', 'EUR', 'GBP']) {
      assert.equal(
        (await launch(a.key, { symbol: crash2.symbol, external_player_id: pid(), currency: c })).status,
        200,
        c,
      );
    }
    assert.equal(
      (await launch(a.key, { symbol: crash2.symbol, external_player_id: pid(), currency: 'JPY' })).status,
      422,
    );
  });

  test('return_url rules per family', async () => {
    const ok = (sym: string, url: string) =>
      launch(a.key, {
        symbol: sym,
        external_player_id: pid(),
        return_url: url,
        currency: sym === crash1.symbol ? 'USD' : undefined,
      });
    assert.equal((await ok(slotA.symbol, 'http://casino.example/lobby')).status, 200);
    assert.equal((await ok(slotA.symbol, 'https://casino.example/lobby')).status, 200);
    assert.equal((await ok(slotA.symbol, 'https://u:p@casino.example/')).status, 422);
    assert.equal((await ok(crash1.symbol, 'http://casino.example/')).status, 422);
    assert.equal((await ok(crash1.symbol, 'http://127.0.0.1:5173/done')).status, 200);
    assert.equal((await ok(crash1.symbol, 'https://casino.example/')).status, 200);
  });

  test('prov_c and prov_d: their paths, grants and expiry; coin ignored', async () => {
    const nat = await launch(a.key, { symbol: native.symbol, external_player_id: pid(), coin: -5 });
    assert.equal(nat.status, 422, 'a negative coin is malformed for every family');
    const n2 = await launch(a.key, {
      symbol: native.symbol,
      external_player_id: pid(),
      coin: 2.5,
      device: 'tablet',
    });
    assert.equal(n2.status, 200, n2.text);
    const u = new URL(n2.json.launch_url);
    assert.equal(u.pathname, `/native/${native.slug}/`);
    assert.ok(u.searchParams.get('grant'));
    const min = (Date.parse(n2.json.expires_at) - Date.now()) / 60_000;
    assert.ok(min > 29 && min <= 30, 'a 30-minute play session');
    const { rows } = await h.db.pool.query(
      'SELECT coin_minor, device, grant_expires_at FROM sessions WHERE session_id = $1',
      [n2.json.session_id],
    );
    assert.equal(rows[0].coin_minor, null, 'prov_c ignores the coin');
    assert.equal(rows[0].device, 'tablet', 'only the slot families turn tablets into mobiles');
    const grantMin = (rows[0].grant_expires_at.getTime() - Date.now()) / 60_000;
    assert.ok(grantMin > 4 && grantMin <= 5, 'a 5-minute signed browser grant');
    const c = await launch(a.key, { symbol: crash1.symbol, external_player_id: pid(), currency: 'USD' });
    assert.equal(new URL(c.json.launch_url).pathname, `/games/${crash1.slug}/`);
    const cmin = (Date.parse(c.json.expires_at) - Date.now()) / 60_000;
    assert.ok(cmin > 4 && cmin <= 5, 'a 5-minute login grant');
  });

  test('gated, demo-only, disabled, unassigned and unaccepted titles', async () => {
    assert.equal(
      (await launch(a.key, { symbol: slotB.symbol, external_player_id: pid() })).status,
      409,
      'prov_b switched off',
    );
    await call(h.base, 'PUT', '/api/admin/v1/providers/prov_b/switch', {
      key: ADMIN_KEY,
      body: { enabled: true },
    });
    assert.equal((await launch(a.key, { symbol: slotB.symbol, external_player_id: pid() })).status, 200);
    await call(h.base, 'PUT', '/api/admin/v1/providers/prov_b/switch', {
      key: ADMIN_KEY,
      body: { enabled: false },
    });
    assert.equal(
      (await launch(a.key, { symbol: demoCrash.symbol, external_player_id: pid() })).status,
      409,
      'demo-only',
    );
    assert.equal(
      (await launch(a.key, { symbol: blocked.symbol, external_player_id: pid() })).status,
      403,
      'no accepted release',
    );
    await assign(h.base, 'op_lb', [slotA.symbol], false);
    assert.equal(
      (await launch(b.key, { symbol: slotA.symbol, external_player_id: pid() })).status,
      403,
      'disabled for the operator',
    );
    await call(h.base, 'DELETE', `/api/admin/v1/operators/op_lb/games/${slotA.symbol}`, { key: ADMIN_KEY });
    assert.equal(
      (await launch(b.key, { symbol: slotA.symbol, external_player_id: pid() })).status,
      404,
      'not in the catalog',
    );
    await assign(h.base, 'op_lb', [slotA.symbol], true);
  });

  test('sandbox-only prov_c titles reject operator-wallet launches: 409, nothing written', async () => {
    assert.ok(sandboxNative.length > 0);
    for (const title of sandboxNative) {
      const player = pid();
      const res = await launch(a.key, { symbol: title.symbol, external_player_id: player });
      assert.equal(res.status, 409, `${title.symbol}: ${res.text}`);
      assert.match(res.json.detail, /sandbox-only titles do not accept operator-wallet launches/);
      assert.equal(await sessionsOf(player), 0);
    }
  });

  test('prov_c and prov_d titles with the per-title operator-wallet flag off: 409 until it is on', async () => {
    // prov_c: opt-in per title, off by default (only `native` was switched on above).
    const player = pid();
    const off = await launch(a.key, { symbol: optInNative.symbol, external_player_id: player });
    assert.equal(off.status, 409, off.text);
    assert.match(off.json.detail, /operator-wallet transport is not enabled for this title/);
    assert.equal(await sessionsOf(player), 0);
    await setOperatorWallet(optInNative.symbol, true);
    try {
      const on = await launchUntil(200, a.key, { symbol: optInNative.symbol, external_player_id: player });
      assert.equal(on.status, 200, on.text);
      assert.equal(new URL(on.json.launch_url).pathname, `/native/${optInNative.slug}/`);
    } finally {
      await setOperatorWallet(optInNative.symbol, false);
    }
    const again = await launchUntil(409, a.key, { symbol: optInNative.symbol, external_player_id: pid() });
    assert.equal(again.status, 409, 'switched off again');

    // prov_d: the crash opt-in is on by default; switched off, operator launches are refused.
    await setOperatorWallet(crash2.symbol, false);
    try {
      const crashPlayer = pid();
      const refused = await launchUntil(409, a.key, {
        symbol: crash2.symbol,
        external_player_id: crashPlayer,
        currency: 'EUR',
      });
      assert.equal(refused.status, 409, refused.text);
      assert.match(refused.json.detail, /operator-wallet transport is not enabled for this title/);
      assert.equal(await sessionsOf(crashPlayer), 0);
    } finally {
      await setOperatorWallet(crash2.symbol, true);
    }
    const back = await launchUntil(200, a.key, {
      symbol: crash2.symbol,
      external_player_id: pid(),
      currency: 'EUR',
    });
    assert.equal(back.status, 200, back.text);
  });

  test('a title without a runtime path: 503 (provider runtime not configured), nothing written', async () => {
    await h.db.pool.query(`UPDATE games SET metadata = metadata - 'launch_path' WHERE symbol = $1`, [
      otherSlotA.symbol,
    ]);
    const player = pid();
    try {
      // Until the catalog cache follows the change a launch may still answer 200: wait with other
      // players, then launch this one (which must write nothing).
      const seen = await launchUntil(503, a.key, { symbol: otherSlotA.symbol, external_player_id: pid() });
      assert.equal(seen.status, 503, seen.text);
      const res = await launch(a.key, { symbol: otherSlotA.symbol, external_player_id: player });
      assert.equal(res.status, 503, res.text);
      assert.match(res.json.detail, /Provider runtime not configured/);
      assert.equal(await sessionsOf(player), 0, 'no player session for a launch that cannot open');
      // A request the title would refuse anyway keeps its own status.
      const bad = await launch(a.key, { symbol: otherSlotA.symbol, external_player_id: pid(), coin: 0 });
      assert.equal(bad.status, 422);
    } finally {
      await h.db.pool.query(
        `UPDATE games SET metadata = jsonb_set(metadata, '{launch_path}', to_jsonb($2::text)) WHERE symbol = $1`,
        [otherSlotA.symbol, `/gs2c/html5Game.do?symbol=${otherSlotA.symbol}`],
      );
    }
    const back = await launchUntil(200, a.key, { symbol: otherSlotA.symbol, external_player_id: player });
    assert.equal(back.status, 200, back.text);
    assert.equal(new URL(back.json.launch_url).pathname, '/gs2c/html5Game.do');
  });

  test('the settlement runtime known unreachable: 502 from the cached probe, no round trip per launch', async () => {
    // An API whose Temporal address accepts connections and never answers (a hung or
    // firewalled server): every probe runs into its deadline.
    const sockets = new Set<Socket>();
    const blackHole = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => blackHole.listen(0, '127.0.0.1', r));
    const down = await startApi({
      TEMPORAL_ADDRESS: `127.0.0.1:${(blackHole.address() as AddressInfo).port}`,
      TEMPORAL_TASK_QUEUE: 'launch-502',
    });
    try {
      const probe = settlementProbe(down.deps)!;
      probe.options.refreshAfterMs = 50;
      probe.options.timeoutMs = 500;
      const op = await createOperator(down.base, 'op_l502');
      await assign(down.base, 'op_l502', [slotA.symbol]);
      const player = pid();
      const body = { symbol: slotA.symbol, external_player_id: player };
      // Until two probes in a row have failed, launches pass (no verdict is no proof).
      const tripped = await launchUntil(
        502,
        op.key,
        { symbol: slotA.symbol, external_player_id: pid() },
        down.base,
        20_000,
      );
      assert.equal(tripped.status, 502, tripped.text);
      const res = await call(down.base, 'POST', '/api/provider/v1/launch-url', { key: op.key, body });
      assert.equal(res.status, 502, res.text);
      assert.match(res.json.detail, /Provider runtime unavailable/);
      const verdict = probe.verdict();
      assert.equal(verdict.state, 'unavailable');
      assert.ok(verdict.state === 'unavailable' && verdict.failures >= 2, 'two failed probes in a row');
      const { rows } = await down.db.pool.query(
        `SELECT count(*)::int AS n FROM sessions s JOIN players p USING (player_id) WHERE p.external_player_id = $1`,
        [player],
      );
      assert.equal(rows[0].n, 0, 'a 502 writes no session');
      // The request's own faults come first.
      assert.equal(
        (
          await call(down.base, 'POST', '/api/provider/v1/launch-url', {
            key: op.key,
            body: { symbol: 'no_such_game', external_player_id: pid() },
          })
        ).status,
        404,
      );
      assert.equal(
        (
          await call(down.base, 'POST', '/api/provider/v1/launch-url', {
            key: op.key,
            body: { ...body, currency: 'CHF' },
          })
        ).status,
        422,
      );
      // While the verdict is fresh, launches read it: no probe (no network round trip) per launch.
      probe.options.refreshAfterMs = 60_000;
      await probe.refresh();
      const probes = probe.probes;
      for (let i = 0; i < 10; i++) {
        const r = await call(down.base, 'POST', '/api/provider/v1/launch-url', { key: op.key, body });
        assert.equal(r.status, 502);
      }
      assert.equal(probe.probes, probes, 'ten launches, no probe');
      await probe.settled();
    } finally {
      await down.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => blackHole.close(r));
    }
  });

  test('an inactive operator gets 403; another operator named in the body 403', async () => {
    const op = await createOperator(h.base, 'op_lsleep');
    await assign(h.base, 'op_lsleep', [slotA.symbol]);
    await call(h.base, 'PATCH', '/api/admin/v1/operators/op_lsleep', {
      key: ADMIN_KEY,
      body: { status: 'inactive' },
    });
    assert.equal((await launch(op.key, { symbol: slotA.symbol, external_player_id: pid() })).status, 403);
    assert.equal(
      (await launch(a.key, { symbol: slotA.symbol, external_player_id: pid(), operator_id: 'op_lb' })).status,
      403,
    );
  });

  test('a second launch resumes the session with a fresh token; an unfinished round keeps its currency', async () => {
    const id = pid();
    const first = await launch(a.key, { symbol: slotA.symbol, external_player_id: id, coin: '0.20' });
    const second = await launch(a.key, { symbol: slotA.symbol, external_player_id: id, coin: '0.50' });
    assert.equal(second.json.session_id, first.json.session_id);
    assert.notEqual(second.json.launch_url, first.json.launch_url);
    const { rows: s } = await h.db.pool.query(
      'SELECT token_hash, coin_minor, player_id FROM sessions WHERE session_id = $1',
      [first.json.session_id],
    );
    assert.equal(
      s[0].token_hash,
      hashLaunchToken(new URL(second.json.launch_url).searchParams.get('mgckey')!),
      'the old token is gone',
    );
    assert.equal(s[0].coin_minor, 50n);
    await h.db.pool.query(
      `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, bet_minor, intent)
       VALUES ('r_open_1', 'op_la', $1, $2, $3, 'prov_a', 'EUR', 100, '{}')`,
      [first.json.session_id, s[0].player_id, slotA.symbol],
    );
    const usd = await launch(a.key, { symbol: slotA.symbol, external_player_id: id, currency: 'USD' });
    assert.equal(usd.status, 409);
    assert.match(usd.json.detail, /unfinished round/);
    const resumed = await launch(a.key, { symbol: slotA.symbol, external_player_id: id, coin: '1.00' });
    assert.equal(resumed.status, 200);
    const { rows: s2 } = await h.db.pool.query('SELECT coin_minor FROM sessions WHERE session_id = $1', [
      first.json.session_id,
    ]);
    assert.equal(s2[0].coin_minor, 50n, 'an unfinished round keeps its coin');
  });

  test('production without an HTTPS public game base address: 500', async () => {
    const prod = await startApi({
      NODE_ENV: 'production',
      GAME_BASE_URL: 'http://games.test',
    });
    try {
      const op = await createOperator(prod.base, 'op_prod', { wallet_base_url: 'https://wallet.example/pp' });
      await assign(prod.base, 'op_prod', [slotA.symbol]);
      const res = await call(prod.base, 'POST', '/api/provider/v1/launch-url', {
        key: op.key,
        sign: true,
        body: { symbol: slotA.symbol, external_player_id: pid() },
      });
      assert.equal(res.status, 500);
      assert.match(res.json.detail, /HTTPS/);
    } finally {
      await prod.close();
    }
  });
});

describe('launch-url under concurrency', () => {
  test('simultaneous first launches of one new player create one player, and every launch answers 200', async () => {
    const player = pid();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => launch(a.key, { symbol: slotA.symbol, external_player_id: player })),
    );
    for (const r of results) assert.equal(r.status, 200, r.text);
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM players WHERE external_player_id = $1`,
      [player],
    );
    assert.equal(rows[0].n, 1);
  });

  test('a game renamed in the catalog is found by its new slug at once (the launch cache follows changes)', async () => {
    const player = pid();
    const before = await launch(a.key, { slug: slotA.slug, external_player_id: player });
    assert.equal(before.status, 200, before.text);
    await h.db.pool.query(`UPDATE games SET slug = $2 WHERE symbol = $1`, [
      slotA.symbol,
      `${slotA.slug}-renamed`,
    ]);
    try {
      let res = await launch(a.key, { slug: `${slotA.slug}-renamed`, external_player_id: player });
      for (let i = 0; i < 50 && res.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 50));
        res = await launch(a.key, { slug: `${slotA.slug}-renamed`, external_player_id: player });
      }
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.symbol, slotA.symbol);
      const old = await launch(a.key, { slug: slotA.slug, external_player_id: player });
      assert.equal(old.status, 404);
    } finally {
      await h.db.pool.query(`UPDATE games SET slug = $2 WHERE symbol = $1`, [slotA.symbol, slotA.slug]);
    }
  });
});
