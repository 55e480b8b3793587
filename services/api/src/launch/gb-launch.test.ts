import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LaunchUrlResponse } from '@opi/contract';
import { CATALOG } from '@opi/games';
import { assign, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';

// The launch's GB rules for every family (issue 26): the optional age_band, the slot stake cap per
// currency and age band (the lower cap without a band), 5 s between native and crash cycles, no
// autoplay; recorded on the session. Real API and PostgreSQL.
let h: Harness;
let gb: { key: string };
let mt: { key: string };
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const otherSlot = CATALOG.find(
  (e) => e.provider_id === 'prov_a' && e.release.status === 'accepted' && e.symbol !== slot.symbol,
)!;
const crash = CATALOG.find((e) => e.provider_id === 'prov_d' && (e.crash_currencies?.length ?? 0) > 1)!;
let n = 0;
const pid = () => `gb-launch-${process.pid}-${++n}`;

before(async () => {
  h = await startApi();
  const currencies = { allowed_currencies: ['GBP', 'EUR', 'USD', 'JPY'], default_currency: 'GBP' };
  gb = await createOperator(h.base, 'op_gbl', { ...currencies, default_jurisdiction: 'GB' });
  mt = await createOperator(h.base, 'op_gbl_mt', { ...currencies, default_jurisdiction: 'MT' });
  await assign(h.base, 'op_gbl', [slot.symbol, otherSlot.symbol, crash.symbol]);
  await assign(h.base, 'op_gbl_mt', [slot.symbol, crash.symbol]);
});
after(() => h.close());

const launch = (key: string, body: Record<string, unknown>) =>
  call(h.base, 'POST', '/api/provider/v1/launch-url', { key, body });
async function sessionRow(sessionId: string) {
  const { rows } = await h.db.pool.query(
    `SELECT age_band, max_stake_minor::int AS max_stake_minor, min_cycle_interval_ms, autoplay_allowed
       FROM sessions WHERE session_id = $1`,
    [sessionId],
  );
  return rows[0];
}

describe('launch-url: GB rules (issue 26)', () => {
  test('slot stake cap by age band: 25+ GBP 5, 18-24 GBP 2, no band GBP 2 (the default); in the answer and on the session', async () => {
    for (const [band, cap] of [
      ['25+', 500],
      ['18-24', 200],
      [undefined, 200],
    ] as const) {
      const res = await launch(gb.key, {
        symbol: slot.symbol,
        external_player_id: pid(),
        ...(band ? { age_band: band } : {}),
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(LaunchUrlResponse.safeParse(res.json).success, true, res.text);
      assert.equal(res.json.rules.max_stake_minor, cap, `${band}: ${res.text}`);
      assert.equal(res.json.rules.age_band, band ?? null);
      assert.deepEqual(res.json.data.rules, res.json.rules);
      assert.deepEqual(await sessionRow(res.json.session_id), {
        age_band: band ?? null,
        max_stake_minor: cap,
        min_cycle_interval_ms: null,
        autoplay_allowed: false,
      });
    }
    const eur = await launch(gb.key, {
      symbol: otherSlot.symbol,
      external_player_id: pid(),
      currency: 'EUR',
    });
    assert.equal(eur.status, 200, eur.text);
    assert.equal(eur.json.rules.max_stake_minor, 220);
  });

  test('a GB slot launch in a currency without a cap is 422 at body.currency; a bad age band 422 at body.age_band; nothing written', async () => {
    const player = pid();
    const jpy = await launch(gb.key, { symbol: slot.symbol, external_player_id: player, currency: 'JPY' });
    assert.equal(jpy.status, 422, jpy.text);
    assert.deepEqual(jpy.json.detail[0].loc, ['body', 'currency']);
    for (const bad of ['18', '18-25', 'adult', '1990-01-01', 25, null, ['25+']]) {
      const res = await launch(gb.key, { symbol: slot.symbol, external_player_id: player, age_band: bad });
      assert.equal(res.status, 422, `${JSON.stringify(bad)}: ${res.text}`);
      assert.deepEqual(res.json.detail[0].loc, ['body', 'age_band']);
    }
    const { rows } = await h.db.pool.query(`SELECT 1 FROM players WHERE external_player_id = $1`, [player]);
    assert.equal(rows.length, 0);
  });

  test('a GB crash launch: 5 s between cycles, no autoplay, no stake cap; MT: none of them', async () => {
    const res = await launch(gb.key, { symbol: crash.symbol, external_player_id: pid(), currency: 'GBP' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.rules.min_cycle_interval_ms, 5000);
    assert.equal(res.json.rules.min_spin_interval_ms, null);
    assert.equal(res.json.rules.autoplay, false);
    assert.equal(res.json.rules.max_stake_minor, null);
    assert.equal((await sessionRow(res.json.session_id)).min_cycle_interval_ms, 5000);
    const other = await launch(mt.key, { symbol: crash.symbol, external_player_id: pid(), currency: 'GBP' });
    assert.equal(other.status, 200, other.text);
    assert.equal(other.json.rules.min_cycle_interval_ms, null);
    assert.equal(other.json.rules.autoplay, true);
    const slotMt = await launch(mt.key, {
      symbol: slot.symbol,
      external_player_id: pid(),
      currency: 'JPY',
      age_band: '18-24',
    });
    assert.equal(slotMt.status, 200, slotMt.text);
    assert.equal(slotMt.json.rules.max_stake_minor, null);
    assert.equal(slotMt.json.rules.age_band, '18-24');
  });
});
