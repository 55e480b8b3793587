import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EnvSchema } from '@opi/config';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, type Harness, startApi } from '@opi/testkit/harness';
import { aboveCeiling, ceilingViolations, jackpotShares } from './ceiling.js';

/*
 * Issue 34, point 7: a jackpot definition that pays back more than JACKPOT_MAX_SHARE_PPM of every
 * stake (Σ rate + Σ seed ÷ hit_every, per currency) is 422 naming the ceiling; a malformed amount
 * inside a level is a 422, never a 500. Real API, real PostgreSQL, the production ceiling.
 */
const slot = CATALOG.filter((e) => e.provider_id === 'prov_a')[0]!;
let h: Harness;

before(async () => {
  h = await startApi({ JACKPOT_MAX_SHARE_PPM: '50000' });
});
after(() => h.close());

const put = (id: string, body: unknown) =>
  call(h.base, 'PUT', `/api/admin/v1/jackpots/${id}`, { key: ADMIN_KEY, sign: true, body });
const def = (levels: unknown[]) => ({ name: 'Ceiling', scope: 'network', titles: [slot.symbol], levels });
const level = (name: string, rate: number, currencies: Record<string, unknown>) => ({
  level: name,
  contribution_rate_ppm: rate,
  currencies,
});
const NEVER = '1000000000000000';

test('the default ceiling is 5 % of every stake, and `none` turns it off', () => {
  assert.equal(EnvSchema.shape.JACKPOT_MAX_SHARE_PPM.parse(undefined), 50_000);
  assert.equal(EnvSchema.shape.JACKPOT_MAX_SHARE_PPM.parse('none'), 'none');
  assert.equal(EnvSchema.shape.JACKPOT_MAX_SHARE_PPM.parse('120000'), 120_000);
  assert.throws(() => EnvSchema.shape.JACKPOT_MAX_SHARE_PPM.parse('0'));
  const tenAtFull = Array.from({ length: 10 }, (_, i) =>
    level(`l${i}`, 100_000, { EUR: { seed_minor: 0, hit_every_minor: NEVER } }),
  ) as never;
  assert.deepEqual(ceilingViolations(tenAtFull, null), []);
  assert.equal(ceilingViolations(tenAtFull, 50_000).length, 1);
});

test('ten levels at 100 % of the stake, and a seed won on every 1.00 spin, are 422 naming the ceiling', async () => {
  const cases: [unknown, RegExp][] = [
    [
      def(
        Array.from({ length: 10 }, (_, i) =>
          level(`l${i}`, 100_000, { EUR: { seed_minor: 0, hit_every_minor: NEVER } }),
        ),
      ),
      /EUR: the levels return 1000000 ppm of every stake \(100\.00 %: rates 1000000 ppm \+ seeds ÷ hit_every 0 ppm\), above the ceiling of 50000 ppm \(5\.00 %, JACKPOT_MAX_SHARE_PPM\)/,
    ],
    [
      def([level('mini', 1, { EUR: { seed_minor: 1000, hit_every_minor: 1 } })]),
      /EUR: the levels return 1000000001 ppm .*JACKPOT_MAX_SHARE_PPM/,
    ],
  ];
  for (const [i, [body, msg]] of cases.entries()) {
    const res = await put(`too-generous-${i}`, body);
    assert.equal(res.status, 422, res.text);
    // The shape of every 422: a `detail` array of {loc, msg, type}.
    assert.equal(res.json.detail.length, 1);
    assert.deepEqual(res.json.detail[0].loc, ['body', 'levels']);
    assert.equal(res.json.detail[0].type, 'value_error');
    assert.match(res.json.detail[0].msg, msg);
    assert.equal(
      (await call(h.base, 'GET', `/api/admin/v1/jackpots/too-generous-${i}`, { key: ADMIN_KEY, sign: true }))
        .status,
      404,
      'nothing stored',
    );
  }
});

test('the share is compared exactly: at the ceiling is taken, a millionth of a ppm above is not, per currency', async () => {
  // 49,999 ppm of rates + a seed of 1 every 1,000,000 (1 ppm): exactly 50,000.
  const at = def([level('mini', 49_999, { EUR: { seed_minor: 1, hit_every_minor: 1_000_000 } })]);
  const ok = await put('at-ceiling', at);
  assert.equal(ok.status, 201, ok.text);
  // 49,999 ppm + 3 every 2,999,999 (1.0000003 ppm): above by a fraction, refused.
  const above = def([level('mini', 49_999, { EUR: { seed_minor: 3, hit_every_minor: 2_999_999 } })]);
  const no = await put('just-above', above);
  assert.equal(no.status, 422, no.text);
  assert.match(no.json.detail[0].msg, /^EUR: the levels return 50001 ppm/);
  // Two levels: their shares add (30,000 + 21,000 = 51,000 in USD; 30,000 + 10,000 in EUR).
  const perCurrency = def([
    level('mini', 20_000, {
      EUR: { seed_minor: 10, hit_every_minor: 1000 },
      USD: { seed_minor: 21, hit_every_minor: 1000 },
    }),
    level('mega', 10_000, {
      EUR: { seed_minor: 0, hit_every_minor: NEVER },
      USD: { seed_minor: 0, hit_every_minor: NEVER },
    }),
  ]);
  const cur = await put('per-currency', perCurrency);
  assert.equal(cur.status, 422, cur.text);
  assert.equal(cur.json.detail.length, 1, cur.text);
  assert.match(
    cur.json.detail[0].msg,
    /^USD: the levels return 51000 ppm of every stake \(5\.10 %: rates 30000 ppm/,
  );
  // The exact arithmetic beside the API's answers.
  const [eur, usd] = jackpotShares(perCurrency.levels as never);
  assert.equal(aboveCeiling(eur!, 40_000n), false);
  assert.equal(aboveCeiling(usd!, 51_000n), false);
  assert.equal(aboveCeiling(usd!, 50_999n), true);
});

test('a malformed amount anywhere in a level is 422, never 500 (the fuzzer’s `"cap_minor": "AAA"`)', async () => {
  const base = { seed_minor: 1000, hit_every_minor: 200_000 };
  const bodies: unknown[] = [
    def([level('mini', 5000, { EUR: { ...base, cap_minor: 'AAA' } })]),
    def([level('mini', 5000, { EUR: { ...base, seed_minor: 'AAA', cap_minor: 5000 } })]),
    def([level('mini', 5000, { EUR: { ...base, cap_minor: 1e300 } })]),
    def([level('mini', 5000, { EUR: { ...base, cap_minor: [] } })]),
    def([level('mini', 5000, { EUR: null })]),
    def([level('mini', 5000, null as never)]),
    def([null]),
    def([{ level: 'mini' }]),
    { ...def([]), levels: 'AAA' },
    { ...def([]), levels: { 0: 1 } },
  ];
  for (const body of bodies) {
    const res = await put('malformed', body);
    assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
    assert.ok(Array.isArray(res.json.detail), res.text);
    for (const d of res.json.detail) assert.deepEqual(Object.keys(d).sort(), ['loc', 'msg', 'type']);
  }
});
