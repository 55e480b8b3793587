import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GameResponse, GamesListResponse, ServiceErrorResponse } from '@opi/contract';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, assign, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';

let h: Harness;
let opA: { key: string; keyId: string };
let opB: { key: string; keyId: string };
let master: string;
const ALL = CATALOG.map((e) => e.symbol);
const byFamily = (p: string) => CATALOG.filter((e) => e.provider_id === p);
const live = (p: string) =>
  byFamily(p)
    .filter((e) => e.integration_mode === 'operator-wallet' && e.release.status === 'accepted')
    .map((e) => e.symbol)
    .sort();

before(async () => {
  h = await startApi();
  opA = await createOperator(h.base, 'op_alpha');
  opB = await createOperator(h.base, 'op_beta');
  await assign(h.base, 'op_alpha', ALL);
  await assign(h.base, 'op_beta', ALL.slice(0, 3));
  const m = await call(h.base, 'POST', '/api/admin/v1/master-keys', {
    key: ADMIN_KEY,
    body: { label: 'test' },
  });
  master = m.json.data.api_key;
});
after(() => h.close());

const games = async (key: string, query = '', headers: Record<string, string> = {}) => {
  const res = await call(h.base, 'GET', `/api/provider/v1/games${query}`, { key, headers });
  return res;
};
const symbols = (res: { json: any }) =>
  (res.json.data.items as { symbol: string }[]).map((g) => g.symbol).sort();

describe('health and routing', () => {
  test('GET /health is 200 without credentials', async () => {
    const res = await call(h.base, 'GET', '/health');
    assert.equal(res.status, 200);
  });
  test('unknown routes answer 404 JSON, also under the API prefixes', async () => {
    for (const path of ['/api/provider/v1/nothing', '/api/admin/v1/nothing', '/x/../etc/passwd', '/%00']) {
      const res = await call(h.base, 'GET', path, { key: opA.key });
      assert.equal(res.status, 404, path);
      assert.ok(ServiceErrorResponse.safeParse(res.json).success, path);
    }
  });
});

describe('authentication', () => {
  test('missing key 401, invalid key 401', async () => {
    const missing = await call(h.base, 'GET', '/api/provider/v1/games');
    assert.equal(missing.status, 401);
    assert.deepEqual(missing.json, { detail: 'Missing API key' });
    const invalid = await games('opk_not-a-real-key');
    assert.equal(invalid.status, 401);
    assert.deepEqual(invalid.json, { detail: 'Invalid API key' });
  });
  test('the key is accepted in all three header forms', async () => {
    const forms: Record<string, string>[] = [
      { 'x-provider-api-key': opA.key },
      { 'x-api-key': opA.key },
      { authorization: `Bearer ${opA.key}` },
    ];
    for (const headers of forms) {
      const res = await call(h.base, 'GET', '/api/provider/v1/games', { headers });
      assert.equal(res.status, 200, JSON.stringify(Object.keys(headers)));
    }
  });
  test('an inactive operator gets 403', async () => {
    const op = await createOperator(h.base, 'op_sleepy');
    await call(h.base, 'PATCH', '/api/admin/v1/operators/op_sleepy', {
      key: ADMIN_KEY,
      body: { status: 'inactive' },
    });
    const res = await games(op.key);
    assert.equal(res.status, 403);
    assert.deepEqual(res.json, { detail: 'Operator is inactive' });
  });
  test('a revoked key gets 401', async () => {
    const op = await createOperator(h.base, 'op_revoked');
    assert.equal((await games(op.key)).status, 200);
    const del = await call(h.base, 'DELETE', `/api/admin/v1/api-keys/${op.keyId}`, { key: ADMIN_KEY });
    assert.equal(del.status, 200);
    assert.equal((await games(op.key)).status, 401);
    const again = await call(h.base, 'DELETE', `/api/admin/v1/api-keys/${op.keyId}`, { key: ADMIN_KEY });
    assert.equal(again.status, 404);
  });
});

describe('operator scope', () => {
  test('an operator key naming another operator gets 403 through every channel', async () => {
    const viaQuery = await games(opA.key, '?operator_id=op_beta');
    const viaHeader = await games(opA.key, '', { 'x-operator-id': 'op_beta' });
    const viaBody = await call(h.base, 'GET', '/api/provider/v1/games', {
      key: opA.key,
      body: { operator_id: 'op_beta' },
    });
    const oneOfMany = await games(opA.key, '?operator_id=op_alpha&operator_id=op_beta');
    for (const res of [viaQuery, viaHeader, viaBody, oneOfMany]) {
      assert.equal(res.status, 403);
      assert.deepEqual(res.json, { detail: 'This key belongs to another operator' });
    }
  });
  test('an operator key naming its own operator is fine', async () => {
    assert.equal((await games(opA.key, '?operator_id=op_alpha')).status, 200);
  });
  test('a master key must name the operator; unknown operator 404', async () => {
    const none = await games(master);
    assert.equal(none.status, 400);
    assert.match(none.json.detail, /must name the operator/);
    const viaQuery = await games(master, '?operator_id=op_beta');
    assert.equal(viaQuery.status, 200);
    assert.equal(viaQuery.json.data.operator_id, 'op_beta');
    assert.deepEqual(symbols(viaQuery), symbols(await games(opB.key)));
    const viaHeader = await games(master, '', { 'x-operator-id': 'op_alpha' });
    assert.equal(viaHeader.json.data.operator_id, 'op_alpha');
    assert.equal((await games(master, '?operator_id=op_nobody')).status, 404);
    const conflicting = await games(master, '?operator_id=op_alpha', { 'x-operator-id': 'op_beta' });
    assert.equal(conflicting.status, 400);
  });
  test('provider-admin keys reach only the admin API, and no other key reaches it', async () => {
    const adminOnProvider = await games(ADMIN_KEY);
    assert.equal(adminOnProvider.status, 403);
    for (const key of [opA.key, master]) {
      const res = await call(h.base, 'GET', '/api/admin/v1/games', { key });
      assert.equal(res.status, 403);
    }
    assert.equal((await call(h.base, 'GET', '/api/admin/v1/games')).status, 401);
  });
});

describe('catalog availability by family, switch, flag and registry', () => {
  test('default catalog: prov_a accepted titles and the two opted-in crash titles only', async () => {
    const res = await games(opA.key);
    assert.equal(res.status, 200);
    assert.ok(
      GamesListResponse.safeParse(res.json).success,
      JSON.stringify(GamesListResponse.safeParse(res.json).error),
    );
    const crash = byFamily('prov_d').filter(
      (e) => e.integration_mode === 'operator-wallet' && e.operator_wallet_default,
    );
    assert.equal(crash.length, 2);
    const expected = [...live('prov_a'), ...crash.map((e) => e.symbol)].sort();
    assert.ok(live('prov_a').length >= 4);
    assert.deepEqual(symbols(res), expected);
    assert.equal(res.json.data.total, expected.length);
    assert.equal(res.json.data.provider_id, null);
    for (const g of res.json.data.items) {
      assert.deepEqual(g.operator_availability.blockers, []);
      assert.equal(g.operator_integration.mode, 'operator-wallet');
      assert.equal(g.operator_integration.balance_refresh, g.provider_id === 'prov_a');
      assert.equal(g.release_readiness.accepted, true);
      assert.match(g.thumbnail_url, /^http:\/\/api\.test\/api\/provider\/v1\/game-art\//);
    }
  });
  test('the provider filter: canonical ids, unknown ids give an empty list', async () => {
    const a = await games(opA.key, '?provider_id=prov_a');
    assert.deepEqual(symbols(a), live('prov_a'));
    assert.equal(a.json.data.provider_id, 'prov_a');
    const unknown = await games(opA.key, '?provider_id=prov_z');
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.json.data.items, []);
    const gated = await games(opA.key, '?provider_id=prov_b');
    assert.deepEqual(gated.json.data.items, []);
  });
  test('prov_b appears only with its switch on', async () => {
    const on = await call(h.base, 'PUT', '/api/admin/v1/providers/prov_b/switch', {
      key: ADMIN_KEY,
      body: { enabled: true },
    });
    assert.equal(on.status, 200);
    assert.deepEqual(symbols(await games(opA.key, '?provider_id=prov_b')), live('prov_b'));
    assert.ok(live('prov_b').length >= 3);
    await call(h.base, 'PUT', '/api/admin/v1/providers/prov_b/switch', {
      key: ADMIN_KEY,
      body: { enabled: false },
    });
    assert.deepEqual(symbols(await games(opA.key, '?provider_id=prov_b')), []);
  });
  test('prov_c titles appear only with their per-title flag on; sandbox-only never', async () => {
    assert.deepEqual(symbols(await games(opA.key, '?provider_id=prov_c')), []);
    const titles = byFamily('prov_c');
    for (const t of titles) {
      const res = await call(h.base, 'PUT', `/api/admin/v1/games/${t.symbol}/operator-wallet`, {
        key: ADMIN_KEY,
        body: { enabled: true },
      });
      assert.equal(res.status, 200);
    }
    assert.deepEqual(symbols(await games(opA.key, '?provider_id=prov_c')), live('prov_c'));
    assert.ok(titles.some((t) => t.integration_mode === 'sandbox-only'));
    for (const t of titles) {
      await call(h.base, 'PUT', `/api/admin/v1/games/${t.symbol}/operator-wallet`, {
        key: ADMIN_KEY,
        body: { enabled: false },
      });
    }
  });
  test('the per-title flag is refused for families without one', async () => {
    const slot = byFamily('prov_a')[0]!;
    const res = await call(h.base, 'PUT', `/api/admin/v1/games/${slot.symbol}/operator-wallet`, {
      key: ADMIN_KEY,
      body: { enabled: true },
    });
    assert.equal(res.status, 409);
  });
  test('the demo-only crash title never appears, even with its flag on', async () => {
    const demo = byFamily('prov_d').find((e) => e.integration_mode === 'demo-only')!;
    await call(h.base, 'PUT', `/api/admin/v1/games/${demo.symbol}/operator-wallet`, {
      key: ADMIN_KEY,
      body: { enabled: true },
    });
    assert.ok(!symbols(await games(opA.key)).includes(demo.symbol));
    const one = await call(h.base, 'GET', `/api/provider/v1/games/${demo.symbol}`, { key: opA.key });
    assert.equal(one.status, 404);
  });
  test('the assignment view keeps blocked assigned entries and explains every blocker', async () => {
    const res = await call(h.base, 'GET', '/api/admin/v1/operators/op_alpha/games', { key: ADMIN_KEY });
    assert.equal(res.status, 200);
    assert.equal(res.json.data.total, CATALOG.length);
    for (const g of res.json.data.items) {
      assert.equal(g.operator_availability.launch_available, g.operator_availability.blockers.length === 0);
      assert.equal(g.blocker_text.length, g.operator_availability.blockers.length);
    }
    const blocked = CATALOG.find((e) => e.release.status === 'blocked')!;
    const entry = res.json.data.items.find((g: any) => g.symbol === blocked.symbol);
    assert.ok(entry.operator_availability.blockers.includes('release_acceptance'));
    assert.equal(entry.release_readiness.status, 'blocked');
    const sandbox = res.json.data.items.find((g: any) => g.operator_integration.mode === 'sandbox-only');
    assert.ok(sandbox.operator_availability.blockers.includes('transport_unavailable'));
    const prov_b = res.json.data.items.find((g: any) => g.provider_id === 'prov_b');
    assert.deepEqual(prov_b.operator_availability.blockers, ['transport_unavailable']);
  });
  test('unassigned and disabled assignments are hidden from the operator', async () => {
    const some = live('prov_a')[0]!;
    await assign(h.base, 'op_alpha', [some], false);
    assert.ok(!symbols(await games(opA.key)).includes(some));
    const view = await call(h.base, 'GET', '/api/admin/v1/operators/op_alpha/games', { key: ADMIN_KEY });
    assert.deepEqual(
      view.json.data.items.find((g: any) => g.symbol === some).operator_availability.blockers,
      ['disabled'],
    );
    await assign(h.base, 'op_alpha', [some], true);
    const del = await call(h.base, 'DELETE', `/api/admin/v1/operators/op_alpha/games/${some}`, {
      key: ADMIN_KEY,
    });
    assert.equal(del.status, 200);
    assert.ok(!symbols(await games(opA.key)).includes(some));
    await assign(h.base, 'op_alpha', [some], true);
    assert.ok(symbols(await games(opA.key)).includes(some));
  });
  test('an operator without a configured wallet sees nothing (operator_configuration)', async () => {
    const op = await createOperator(h.base, 'op_nowallet', { wallet_base_url: null });
    await assign(h.base, 'op_nowallet', ALL);
    assert.deepEqual((await games(op.key)).json.data.items, []);
    const view = await call(h.base, 'GET', '/api/admin/v1/operators/op_nowallet/games', { key: ADMIN_KEY });
    const a = view.json.data.items.find((g: any) => g.symbol === live('prov_a')[0]);
    assert.deepEqual(a.operator_availability.blockers, ['operator_configuration']);
    assert.equal(a.operator_availability.configuration_ready, false);
  });
  test('the release registry is fail-closed on the exact installed version', async () => {
    const blocked = CATALOG.find((e) => e.release.status === 'blocked' && e.provider_id === 'prov_a')!;
    assert.ok(!symbols(await games(opA.key)).includes(blocked.symbol));
    const other = await call(h.base, 'PUT', `/api/admin/v1/release-registry/${blocked.symbol}`, {
      key: ADMIN_KEY,
      body: { status: 'accepted', registry_version: '0.0.1-other', detail: 'wrong version' },
    });
    assert.equal(other.status, 200);
    assert.ok(!symbols(await games(opA.key)).includes(blocked.symbol), 'another version does not unblock');
    await call(h.base, 'PUT', `/api/admin/v1/release-registry/${blocked.symbol}`, {
      key: ADMIN_KEY,
      body: {
        status: 'accepted',
        registry_version: blocked.installed_version,
        detail: 'QA signed off',
        evidence: ['QA-1'],
      },
    });
    const after = await call(h.base, 'GET', `/api/provider/v1/games/${blocked.symbol}`, { key: opA.key });
    assert.equal(after.status, 200);
    assert.deepEqual(after.json.data.release_readiness.evidence, ['QA-1']);
    await call(h.base, 'PUT', `/api/admin/v1/release-registry/${blocked.symbol}`, {
      key: ADMIN_KEY,
      body: {
        status: 'blocked',
        registry_version: blocked.installed_version,
        detail: 'reverted',
        reasons: ['test'],
      },
    });
    assert.equal(
      (await call(h.base, 'GET', `/api/provider/v1/games/${blocked.symbol}`, { key: opA.key })).status,
      404,
    );
  });
});

describe('one game', () => {
  test('by symbol or slug', async () => {
    const e = CATALOG.find((x) => x.symbol === live('prov_a')[1])!;
    for (const id of [e.symbol, e.slug]) {
      const res = await call(h.base, 'GET', `/api/provider/v1/games/${id}`, { key: opA.key });
      assert.equal(res.status, 200);
      assert.ok(GameResponse.safeParse(res.json).success);
      assert.equal(res.json.data.symbol, e.symbol);
      assert.equal(res.json.data.slug, e.slug);
      assert.deepEqual(res.json.data.features, e.features);
    }
  });
  test('unknown game or not in the operator catalog: 404', async () => {
    assert.equal(
      (await call(h.base, 'GET', '/api/provider/v1/games/no_such_game', { key: opA.key })).status,
      404,
    );
    const notAssigned = live('prov_a').find((s) => !ALL.slice(0, 3).includes(s))!;
    assert.equal(
      (await call(h.base, 'GET', `/api/provider/v1/games/${notAssigned}`, { key: opB.key })).status,
      404,
    );
  });
});

describe('admin API', () => {
  test('operator creation returns the generated wallet secret once; duplicates 409; bad input 422', async () => {
    const res = await call(h.base, 'POST', '/api/admin/v1/operators', {
      key: ADMIN_KEY,
      body: { operator_id: 'op_gamma', name: 'Gamma', bet_limits: { min: '20', max: '5000' } },
    });
    assert.equal(res.status, 201);
    assert.match(res.json.data.wallet_secret, /^wsec_/);
    assert.deepEqual(res.json.data.bet_limits, { min: '20', max: '5000' });
    const read = await call(h.base, 'GET', '/api/admin/v1/operators/op_gamma', { key: ADMIN_KEY });
    assert.equal(read.json.data.wallet_secret, undefined);
    assert.equal(read.json.data.wallet_secret_configured, true);
    const dup = await call(h.base, 'POST', '/api/admin/v1/operators', {
      key: ADMIN_KEY,
      body: { operator_id: 'op_gamma', name: 'G' },
    });
    assert.equal(dup.status, 409);
    const bad = await call(h.base, 'POST', '/api/admin/v1/operators', {
      key: ADMIN_KEY,
      body: {
        operator_id: 'Bad Id',
        name: '',
        default_currency: 'eur',
        bet_limits: { min: '50', max: '10' },
      },
    });
    assert.equal(bad.status, 422);
    const locs = bad.json.detail.map((d: any) => d.loc.join('.'));
    for (const loc of ['body.operator_id', 'body.name', 'body.default_currency', 'body.bet_limits.max']) {
      assert.ok(locs.includes(loc), `${loc} in ${locs}`);
    }
    for (const d of bad.json.detail) assert.deepEqual(Object.keys(d).sort(), ['loc', 'msg', 'type']);
  });
  test('PATCH changes fields and can rotate the wallet secret', async () => {
    const res = await call(h.base, 'PATCH', '/api/admin/v1/operators/op_gamma', {
      key: ADMIN_KEY,
      body: { rotate_wallet_secret: true, default_currency: 'GBP' },
    });
    assert.equal(res.status, 200);
    assert.match(res.json.data.wallet_secret, /^wsec_/);
    assert.equal(res.json.data.default_currency, 'GBP');
    assert.ok(res.json.data.allowed_currencies.includes('GBP'));
    assert.equal(
      (await call(h.base, 'PATCH', '/api/admin/v1/operators/op_gamma', { key: ADMIN_KEY, body: {} })).status,
      422,
    );
    assert.equal(
      (
        await call(h.base, 'PATCH', '/api/admin/v1/operators/op_none', {
          key: ADMIN_KEY,
          body: { name: 'x' },
        })
      ).status,
      404,
    );
  });
  test('keys are shown once and are high-entropy', async () => {
    const k = await call(h.base, 'POST', '/api/admin/v1/operators/op_gamma/api-keys', {
      key: ADMIN_KEY,
      body: {},
    });
    assert.equal(k.status, 201);
    assert.match(k.json.data.api_key, /^opk_[A-Za-z0-9_-]{43}$/);
    const { rows } = await h.db.pool.query('SELECT key_hash, key_enc FROM api_keys WHERE key_id = $1', [
      k.json.data.key_id,
    ]);
    assert.ok(!rows[0].key_enc.includes(k.json.data.api_key), 'the raw key is not stored');
    assert.notEqual(rows[0].key_hash, k.json.data.api_key);
    const unknownOp = await call(h.base, 'POST', '/api/admin/v1/operators/op_none/api-keys', {
      key: ADMIN_KEY,
      body: {},
    });
    assert.equal(unknownOp.status, 404);
  });
  test('GET /api/admin/v1/games lists every installed title with version, mode, flags and readiness', async () => {
    const res = await call(h.base, 'GET', '/api/admin/v1/games', { key: ADMIN_KEY });
    assert.equal(res.json.data.total, CATALOG.length);
    for (const g of res.json.data.items) {
      const e = CATALOG.find((x) => x.symbol === g.symbol)!;
      assert.equal(g.installed_version, e.installed_version);
      assert.equal(g.integration_mode, e.integration_mode);
      assert.equal(g.family, e.family);
      assert.equal(typeof g.flags.operator_wallet_enabled, 'boolean');
      assert.equal(g.operator_availability.assigned, null);
      assert.ok(g.operator_availability.blockers.includes('operator_scope_required'));
    }
  });
});
