import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';

/*
 * Issue 25: prize drops in the provider admin API (define, read, cancel, operator opt-in) and the
 * operator's feed; a drop defined here awards spins played through the game server. Real API,
 * game server, PostgreSQL, Temporal and sandbox wallet.
 */
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const native = CATALOG.find((e) => e.provider_id === 'prov_c')!;
let w: PlayWorld;
let h: Harness;

const admin = (method: string, path: string, body?: unknown) =>
  call(h.base, method, `/api/admin/v1/prize-drops${path}`, {
    key: ADMIN_KEY,
    sign: true,
    ...(body === undefined ? {} : { body }),
  });

const DROP = () => ({
  name: 'Friday Drops',
  starts_at: new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
  ends_at: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
  titles: [slot.symbol],
  currencies: { EUR: { prize_minor: 1500, prizes: 2, min_stake_minor: 50, award_every_spins: 1 } },
});

before(async () => {
  w = await startPlayWorld({
    queue: 'prize-drops-api',
    operators: [
      { id: 'op_pd_a', titles: [slot.symbol] },
      { id: 'op_pd_b', titles: [slot.symbol] },
    ],
  });
  h = w.h;
});
after(() => w?.close());

describe('prize drops (provider admin API)', () => {
  let def: ReturnType<typeof DROP>;
  test('define: 201 with full pools; the same again 200; another body 409', async () => {
    def = DROP();
    const created = await admin('PUT', '/pd-friday', def);
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.data.pools, [
      {
        currency: 'EUR',
        prize_minor: '1500',
        prizes_total: 2,
        prizes_left: 2,
        min_stake_minor: '50',
        award_every_spins: 1,
      },
    ]);
    assert.equal(created.json.data.status, 'active');
    assert.deepEqual(created.json.data.operators, []);
    assert.equal((await admin('PUT', '/pd-friday', def)).status, 200);
    const other = await admin('PUT', '/pd-friday', { ...def, name: 'Other' });
    assert.equal(other.status, 409, other.text);
    assert.equal((await admin('GET', '/pd-friday')).json.data.name, 'Friday Drops');
    assert.ok((await admin('GET', '/')).json.data.items.some((d: any) => d.drop_id === 'pd-friday'));
  });

  test('bad input is a JSON 4xx, never 5xx', async () => {
    const cases: [string, unknown, number][] = [
      ['/pd-bad', { ...DROP(), titles: [native.symbol] }, 422],
      ['/pd-bad', { ...DROP(), titles: ['no-such-title'] }, 422],
      ['/pd-bad', { ...DROP(), ends_at: DROP().starts_at }, 422],
      ['/pd-bad', { ...DROP(), starts_at: '2020-01-01T00:00:00Z', ends_at: '2020-01-02T00:00:00Z' }, 422],
      ['/pd-bad', { ...DROP(), currencies: {} }, 422],
      ['/pd-bad', { ...DROP(), currencies: { eur: DROP().currencies.EUR } }, 422],
      ['/pd-bad', { ...DROP(), currencies: { EUR: { ...DROP().currencies.EUR, prizes: 0 } } }, 422],
      ['/pd-bad', { ...DROP(), currencies: { EUR: { ...DROP().currencies.EUR, prize_minor: '1e3' } } }, 422],
      [
        '/pd-bad',
        { ...DROP(), currencies: { EUR: { ...DROP().currencies.EUR, award_every_spins: 2 ** 40 } } },
        422,
      ],
      ['/pd-bad', { ...DROP(), name: 'x'.repeat(201) }, 422],
      ['/Not_An_Id', DROP(), 404],
      ['/pd-bad', 'not json object', 400],
    ];
    for (const [path, body, status] of cases) {
      const res = await admin('PUT', path, body);
      assert.equal(res.status, status, `${path} ${JSON.stringify(body).slice(150, 400)}: ${res.text}`);
      assert.ok(res.json && typeof res.json === 'object', 'a JSON error');
    }
    assert.equal((await admin('GET', '/pd-bad')).status, 404);
    assert.equal((await admin('PUT', '/pd-friday/operators/nobody', { enabled: true })).status, 404);
    assert.equal((await admin('PUT', '/pd-friday/operators/op_pd_a', { enabled: 'yes' })).status, 422);
    assert.equal((await admin('POST', '/pd-none/cancel')).status, 404);
  });

  test('operators opt in; their feed shows the prizes left; spins win them; a cancel stops new awards', async () => {
    assert.equal((await admin('PUT', '/pd-friday/operators/op_pd_a', { enabled: true })).status, 200);
    const feed = async (op: string) => {
      const res = await call(h.base, 'GET', '/api/provider/v1/prize-drops', {
        key: w.operators[op]!.key,
        sign: true,
      });
      assert.equal(res.status, 200, res.text);
      return res.json.data.items as any[];
    };
    assert.deepEqual(
      (await feed('op_pd_a')).map((d) => [d.drop_id, d.pools[0].prizes_left]),
      [['pd-friday', 2]],
    );
    assert.deepEqual(await feed('op_pd_b'), [], 'not opted in');
    // A spin of an opted-in operator's player wins a prize (every qualifying spin draws one here).
    await w.admin.createPlayer({
      operatorId: 'op_pd_a',
      playerId: 'pd-a1',
      currency: 'EUR',
      balanceMinor: 10_000,
    });
    const token = (
      await w.launch(w.operators.op_pd_a!.key, { symbol: slot.symbol, external_player_id: 'pd-a1' })
    ).token!;
    const spun = await w.runtime(token, 'POST', '/api/runtime/spin', { bet_minor: 100 });
    assert.equal(spun.status, 200, spun.text);
    assert.deepEqual(spun.json.prize_drop, { drop_id: 'pd-friday', amount_minor: '1500' });
    assert.equal((await feed('op_pd_a'))[0].pools[0].prizes_left, 1);
    // Cancelled: the feed says so, and no spin wins any more.
    const cancelled = await admin('POST', '/pd-friday/cancel');
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.json.data.status, 'cancelled');
    assert.ok(cancelled.json.data.cancelled_at);
    await w.admin.createPlayer({
      operatorId: 'op_pd_a',
      playerId: 'pd-a2',
      currency: 'EUR',
      balanceMinor: 10_000,
    });
    const token2 = (
      await w.launch(w.operators.op_pd_a!.key, { symbol: slot.symbol, external_player_id: 'pd-a2' })
    ).token!;
    const after = await w.runtime(token2, 'POST', '/api/runtime/spin', { bet_minor: 100 });
    assert.equal(after.json.prize_drop, null);
    assert.equal((await feed('op_pd_a'))[0].status, 'cancelled');
  });
});
