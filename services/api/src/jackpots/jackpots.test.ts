import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';

/*
 * Issue 25, first part: jackpot definitions, operators taking part, the operator's lobby feed, and
 * the pool invariant the database holds (docs/jackpots-and-promotions.md). Real API, real
 * PostgreSQL; contributions and hits come with the spin (next part).
 */

const slots = CATALOG.filter((e) => e.provider_id === 'prov_a');
const slot = slots[0]!;
const slot2 = slots[1]!;
const native = CATALOG.find((e) => e.provider_id === 'prov_c')!;

let h: Harness;
let keyA = '';
let keyB = '';

const admin = (method: string, path: string, body?: unknown) =>
  call(h.base, method, `/api/admin/v1${path}`, {
    key: ADMIN_KEY,
    sign: true,
    ...(body === undefined ? {} : { body }),
  });
const feed = async (key: string) => {
  const res = await call(h.base, 'GET', '/api/provider/v1/jackpots', { key, sign: true });
  assert.equal(res.status, 200, res.text);
  return res.json.data.items as { jackpot_id: string; levels: { level: string; pools: any[] }[] }[];
};

const NETWORK = {
  name: 'Aurora Network',
  scope: 'network',
  titles: [slot.symbol, slot2.slug],
  levels: [
    {
      level: 'mini',
      contribution_rate_ppm: 5000,
      currencies: {
        EUR: { seed_minor: 1000, hit_every_minor: 200_000 },
        USD: { seed_minor: 1000, cap_minor: '5000', hit_every_minor: '200000' },
      },
    },
    {
      level: 'mega',
      contribution_rate_ppm: 1500,
      currencies: {
        EUR: { seed_minor: 1_000_000, hit_every_minor: 500_000_000 },
        USD: { seed_minor: 1_000_000, hit_every_minor: 500_000_000 },
      },
    },
  ],
};

before(async () => {
  h = await startApi();
  keyA = (await createOperator(h.base, 'op_jp_a')).key;
  keyB = (await createOperator(h.base, 'op_jp_b')).key;
});
after(async () => {
  await h?.close();
});

describe('jackpot definitions (provider admin API)', () => {
  test('a network jackpot: 201 with every pool at its seed; the same again 200; another body 409', async () => {
    const created = await admin('PUT', '/jackpots/aurora-net', NETWORK);
    assert.equal(created.status, 201, created.text);
    const j = created.json.data;
    assert.deepEqual(j.titles, [slot.symbol, slot2.symbol].sort());
    assert.deepEqual(
      j.levels.map((l: any) => l.level),
      ['mini', 'mega'],
    );
    const usdMini = j.levels[0].pools.find((p: any) => p.currency === 'USD');
    assert.deepEqual(usdMini, {
      currency: 'USD',
      amount_minor: '1000',
      seed_minor: '1000',
      cap_minor: '5000',
      hit_every_minor: '200000',
    });
    for (const t of j.totals) {
      assert.equal(
        BigInt(t.amount_micros),
        BigInt(t.seeded_micros),
        `${t.level} ${t.currency} starts at its seed`,
      );
      assert.deepEqual([t.contributions_micros, t.wins_micros, t.reserve_micros, t.hits], ['0', '0', '0', 0]);
    }
    assert.deepEqual(j.operators, []);

    const again = await admin('PUT', '/jackpots/aurora-net', NETWORK);
    assert.equal(again.status, 200, again.text);
    const changed = await admin('PUT', '/jackpots/aurora-net', { ...NETWORK, name: 'Another name' });
    assert.equal(changed.status, 409, changed.text);
    assert.match(changed.json.detail, /already defined differently/);
  });

  test('bad definitions are 422 naming the field, and nothing is written', async () => {
    const cases: [unknown, RegExp][] = [
      [{ ...NETWORK, titles: [native.symbol] }, /slot titles/],
      [{ ...NETWORK, titles: ['no-such-title'] }, /unknown titles/],
      [{ ...NETWORK, scope: 'operator' }, /operator_id/],
      [{ ...NETWORK, operator_id: 'op_jp_a' }, /operator_id/],
      [{ ...NETWORK, scope: 'operator', operator_id: 'op_nobody' }, /unknown operator/],
      [{ ...NETWORK, levels: [NETWORK.levels[0], { ...NETWORK.levels[0] }] }, /unique/],
      [
        {
          ...NETWORK,
          levels: [
            NETWORK.levels[0],
            { ...NETWORK.levels[1], currencies: { EUR: NETWORK.levels[1]!.currencies.EUR } },
          ],
        },
        /same currencies/,
      ],
      [
        {
          ...NETWORK,
          levels: [
            {
              ...NETWORK.levels[0],
              currencies: { EUR: { seed_minor: 100, cap_minor: 100, hit_every_minor: 1 } },
            },
          ],
        },
        /cap_minor/,
      ],
      [{ ...NETWORK, levels: [{ ...NETWORK.levels[0], contribution_rate_ppm: 0 }] }, /contribution_rate_ppm/],
      [
        {
          ...NETWORK,
          levels: [{ ...NETWORK.levels[0], currencies: { eur: { seed_minor: 1, hit_every_minor: 1 } } }],
        },
        /currenc/,
      ],
      [
        {
          ...NETWORK,
          levels: [
            {
              ...NETWORK.levels[0],
              currencies: { EUR: { seed_minor: '99999999999999999999', hit_every_minor: 1 } },
            },
          ],
        },
        /seed_minor/,
      ],
    ];
    for (const [body, why] of cases) {
      const res = await admin('PUT', '/jackpots/bad-one', body);
      assert.equal(res.status, 422, `${JSON.stringify(body).slice(0, 120)}: ${res.text}`);
      assert.match(res.text, why);
    }
    assert.equal((await admin('GET', '/jackpots/bad-one')).status, 404);
    assert.equal((await admin('GET', '/jackpots/NOT-AN-ID')).status, 404);
    assert.equal((await admin('PUT', '/jackpots/NOT-AN-ID', NETWORK)).status, 404);
  });

  test('operators: a network jackpot reaches an operator’s feed only while it is opted in', async () => {
    assert.deepEqual(await feed(keyA), []);
    const inA = await admin('PUT', '/jackpots/aurora-net/operators/op_jp_a', { enabled: true });
    assert.equal(inA.status, 200, inA.text);
    assert.deepEqual(inA.json.data, { jackpot_id: 'aurora-net', operator_id: 'op_jp_a', opted_in: true });
    const a = await feed(keyA);
    assert.deepEqual(
      a.map((j) => j.jackpot_id),
      ['aurora-net'],
    );
    assert.equal(a[0]!.levels[1]!.pools.find((p) => p.currency === 'EUR').amount_minor, '1000000');
    assert.equal((a[0] as any).totals, undefined, 'operators see no running totals');
    assert.deepEqual(await feed(keyB), [], 'another operator sees nothing');
    assert.deepEqual((await admin('GET', '/jackpots/aurora-net')).json.data.operators, ['op_jp_a']);

    assert.equal(
      (await admin('PUT', '/jackpots/aurora-net/operators/op_jp_a', { enabled: false })).status,
      200,
    );
    assert.deepEqual(await feed(keyA), []);
    assert.equal(
      (await admin('PUT', '/jackpots/aurora-net/operators/op_nobody', { enabled: true })).status,
      404,
    );
    assert.equal((await admin('PUT', '/jackpots/no-such/operators/op_jp_a', { enabled: true })).status, 404);
    assert.equal(
      (await admin('PUT', '/jackpots/aurora-net/operators/op_jp_a', { enabled: 'yes' })).status,
      422,
    );
  });

  test('an operator jackpot is its operator’s alone, in by definition', async () => {
    const res = await admin('PUT', '/jackpots/b-own', {
      ...NETWORK,
      name: 'B only',
      scope: 'operator',
      operator_id: 'op_jp_b',
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.data.operators, ['op_jp_b']);
    assert.deepEqual(
      (await feed(keyB)).map((j) => j.jackpot_id),
      ['b-own'],
    );
    assert.deepEqual(await feed(keyA), []);
    const opt = await admin('PUT', '/jackpots/b-own/operators/op_jp_a', { enabled: true });
    assert.equal(opt.status, 409, opt.text);
    const list = await admin('GET', '/jackpots');
    assert.deepEqual(
      list.json.data.items.map((j: any) => j.jackpot_id),
      ['aurora-net', 'b-own'],
    );
  });

  test('the database refuses a pool that would create or lose money, to the micro', async () => {
    const pool = h.deps.pool;
    // A contribution that moves the pool and the total together is fine.
    await pool.query(
      `UPDATE jackpot_pools SET amount_micros = amount_micros + 500000, contributions_micros = contributions_micros + 500000
        WHERE jackpot_id = 'aurora-net' AND level = 'mini' AND currency = 'EUR'`,
    );
    // One that moves only the pool (money from nowhere), or a win in part of a minor unit, is refused.
    await assert.rejects(
      pool.query(
        `UPDATE jackpot_pools SET amount_micros = amount_micros + 1
          WHERE jackpot_id = 'aurora-net' AND level = 'mini' AND currency = 'EUR'`,
      ),
      /jackpot_pool_balances/,
    );
    await assert.rejects(
      pool.query(
        `UPDATE jackpot_pools SET amount_micros = amount_micros - 1, wins_micros = wins_micros + 1
          WHERE jackpot_id = 'aurora-net' AND level = 'mini' AND currency = 'EUR'`,
      ),
      /check constraint/,
    );
    // Past the cap (USD mini: 5000 minor) the pool cannot grow: contributions go to the reserve.
    await assert.rejects(
      pool.query(
        `UPDATE jackpot_pools SET amount_micros = 5000000001, contributions_micros = contributions_micros + 4000000001
          WHERE jackpot_id = 'aurora-net' AND level = 'mini' AND currency = 'USD'`,
      ),
      /check constraint/,
    );
    const eur = (await admin('GET', '/jackpots/aurora-net')).json.data.levels[0].pools.find(
      (p: any) => p.currency === 'EUR',
    );
    assert.equal(eur.amount_minor, '1000', 'half a minor unit in the pool shows as the whole units only');
  });
});
