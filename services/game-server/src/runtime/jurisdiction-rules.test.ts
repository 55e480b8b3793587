import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';

// Jurisdiction rules (issue 18) end to end with real parts only: the API, the settlement workflow
// on the Temporal dev server, PostgreSQL and the sandbox wallet over HTTP.
const OP = 'op_juris';
const OP_GB = 'op_juris_gb';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
let w: PlayWorld;
let h: Harness;
let key: string;
let keyGb: string;

before(async () => {
  w = await startPlayWorld({
    queue: 'juris',
    operators: [
      { id: OP, titles: [slot.symbol, 'dcrash1'] },
      { id: OP_GB, titles: [slot.symbol], settings: { default_jurisdiction: 'GB' } },
    ],
  });
  ({ h, key } = w);
  keyGb = w.operators[OP_GB]!.key;
});
after(() => w.close());

const newPlayer = (op = OP) => w.newPlayer(op, { prefix: 'jr', balanceMinor: 1_000_000 });
const launchRaw = (body: Record<string, unknown>, k = key) =>
  call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key: k,
    body: { symbol: slot.symbol, currency: 'EUR', ...body },
  });
async function launch(body: Record<string, unknown>, k = key) {
  const l = await w.launch(k, { symbol: slot.symbol, currency: 'EUR', ...body });
  return { json: l.json, token: l.token!, sessionId: l.sessionId };
}
const runtime: PlayWorld['runtime'] = (...args) => w.runtime(...args);
const spin = (token: string, extra: Record<string, unknown> = {}) => w.spin(token, extra);
const patchOperator = (op: string, body: Record<string, unknown>) =>
  call(h.base, 'PATCH', `/api/admin/v1/operators/${op}`, { key: ADMIN_KEY, sign: true, body });

const NONE = {
  jurisdiction: null,
  min_spin_interval_ms: null,
  min_cycle_interval_ms: null,
  autoplay: true,
  turbo: true,
  reality_check_interval_seconds: null,
  max_stake_minor: null,
  age_band: null,
};
// A GB slot launch in EUR without an age band: the lower cap (EUR 2.20, issue 26).
const GB = {
  jurisdiction: 'GB',
  min_spin_interval_ms: 2500,
  min_cycle_interval_ms: null,
  autoplay: false,
  turbo: false,
  reality_check_interval_seconds: null,
  max_stake_minor: 220,
  age_band: null,
};

describe('operator settings', () => {
  test('default_jurisdiction and reality_check_interval_seconds through the admin API; bad values 422', async () => {
    const got = await call(h.base, 'GET', `/api/admin/v1/operators/${OP_GB}`, { key: ADMIN_KEY, sign: true });
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.data.default_jurisdiction, 'GB');
    assert.equal(got.json.data.reality_check_interval_seconds, null);
    for (const [field, value] of [
      ['default_jurisdiction', 'gb'],
      ['default_jurisdiction', 'XX'],
      ['default_jurisdiction', 'GBR'],
      ['reality_check_interval_seconds', 0],
      ['reality_check_interval_seconds', 1.5],
      ['reality_check_interval_seconds', 86_401],
      ['reality_check_interval_seconds', '60'],
    ] as const) {
      const res = await patchOperator(OP, { [field]: value });
      assert.equal(res.status, 422, `${field}=${value}: ${res.text}`);
      assert.deepEqual(res.json.detail[0].loc, ['body', field]);
    }
    const created = await call(h.base, 'POST', '/api/admin/v1/operators', {
      key: ADMIN_KEY,
      sign: true,
      body: { operator_id: 'op_juris_bad', name: 'x', default_jurisdiction: 'UK' },
    });
    assert.equal(created.status, 422, created.text);
    assert.deepEqual(created.json.detail[0].loc, ['body', 'default_jurisdiction']);
  });
});

describe('launch', () => {
  test('without a jurisdiction and no operator default: no rules in force', async () => {
    const l = await launch({ external_player_id: await newPlayer() });
    assert.deepEqual(l.json.rules, NONE);
    assert.deepEqual(l.json.data.rules, NONE);
  });

  test('GB on the launch: 2.5 s, no autoplay, no turbo; recorded on the session', async () => {
    const l = await launch({ external_player_id: await newPlayer(), jurisdiction: 'GB' });
    assert.deepEqual(l.json.rules, GB);
    const { rows } = await h.db.pool.query(
      `SELECT jurisdiction, min_spin_interval_ms, autoplay_allowed, turbo_allowed FROM sessions WHERE session_id = $1`,
      [l.sessionId],
    );
    assert.deepEqual(rows[0], {
      jurisdiction: 'GB',
      min_spin_interval_ms: 2500,
      autoplay_allowed: false,
      turbo_allowed: false,
    });
    const read = await runtime(l.token, 'GET', '/api/runtime/session');
    assert.deepEqual(read.json.rules, GB);
  });

  test("the operator's default applies; the launch's own jurisdiction wins; subdivisions", async () => {
    const player = await newPlayer(OP_GB);
    assert.deepEqual((await launch({ external_player_id: player }, keyGb)).json.rules, GB);
    const on = await launch({ external_player_id: player, jurisdiction: 'CA-ON' }, keyGb);
    assert.deepEqual(on.json.rules, { ...NONE, jurisdiction: 'CA-ON' });
    const eng = await launch({ external_player_id: player, jurisdiction: 'GB-ENG' }, keyGb);
    assert.deepEqual(eng.json.rules, { ...GB, jurisdiction: 'GB-ENG' });
  });

  test('GB on a crash launch: 5 s between cycles, no autoplay or turbo, no slot stake cap', async () => {
    const res = await launchRaw({
      symbol: 'dcrash1',
      currency: 'USD',
      external_player_id: `jr-${randomUUID().slice(0, 8)}`,
      jurisdiction: 'GB',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.rules, {
      ...NONE,
      jurisdiction: 'GB',
      min_cycle_interval_ms: 5000,
      autoplay: false,
      turbo: false,
    });
  });

  test('a malformed or unknown jurisdiction is 422 at body.jurisdiction, nothing written', async () => {
    const player = `jr-${randomUUID().slice(0, 8)}`;
    for (const bad of [
      'gb',
      'XX',
      'GBR',
      'CA-ONTARIO',
      'CA_ON',
      'CA-',
      ' GB',
      'G',
      '',
      44,
      null,
      ['GB'],
      'GB\u0000',
    ]) {
      const res = await launchRaw({ external_player_id: player, jurisdiction: bad });
      assert.equal(res.status, 422, `${JSON.stringify(bad)}: ${res.text}`);
      assert.deepEqual(res.json.detail[0].loc, ['body', 'jurisdiction']);
    }
    const { rows } = await h.db.pool.query(`SELECT 1 FROM players WHERE external_player_id = $1`, [player]);
    assert.equal(rows.length, 0);
  });
});

describe('GB at the spin', () => {
  test('a second spin within 2.5 s of the first is 429 with retry_after_ms; after 2.5 s it is taken', async () => {
    const l = await launch({ external_player_id: await newPlayer(), jurisdiction: 'GB' });
    const t0 = Date.now();
    const first = await spin(l.token);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.status, 'completed', first.text);
    const answered = Date.now();
    const tooSoon = await spin(l.token);
    const sentAfter = Date.now() - t0;
    // The first round started after t0, so a spin sent less than 2.5 s after t0 is too soon.
    if (sentAfter < 2300) {
      assert.equal(tooSoon.status, 429, tooSoon.text);
      assert.equal(tooSoon.json.error, 'spin_too_soon');
      assert.ok(tooSoon.json.retry_after_ms > 0 && tooSoon.json.retry_after_ms <= 2500, tooSoon.text);
    }
    // The first round started before its answer came: 2.5 s (and a margin) after the answer is late enough.
    await new Promise((r) => setTimeout(r, Math.max(0, answered + 2500 + 300 - Date.now())));
    const later = await spin(l.token);
    assert.equal(later.status, 200, later.text);
    const { rows } = await h.db.pool.query<{ gap_ms: number }>(
      `SELECT extract(epoch FROM max(created_at) - min(created_at)) * 1000 AS gap_ms FROM rounds WHERE session_id = $1`,
      [l.sessionId],
    );
    assert.ok(Number(rows[0]!.gap_ms) >= 2500, `rounds ${rows[0]!.gap_ms} ms apart`);
  });

  test('autoplay and turbo flags are refused (422) in GB, ignored elsewhere', async () => {
    const gb = await launch({ external_player_id: await newPlayer(), jurisdiction: 'GB' });
    for (const flags of [{ autoplay: true }, { auto_spins: 10 }, { turbo: true }, { quick_spin: true }]) {
      const res = await spin(gb.token, flags);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.json.detail[0].loc, ['body', Object.keys(flags)[0]]);
    }
    const { rows } = await h.db.pool.query(`SELECT 1 FROM rounds WHERE session_id = $1`, [gb.sessionId]);
    assert.equal(rows.length, 0);
    const elsewhere = await launch({ external_player_id: await newPlayer(), jurisdiction: 'MT' });
    const res = await spin(elsewhere.token, { autoplay: true, turbo: true });
    assert.equal(res.status, 200, res.text);
  });

  test('the session read reports elapsed time and the net position (wins minus bets)', async () => {
    const l = await launch({ external_player_id: await newPlayer() });
    const a = await spin(l.token);
    assert.equal(a.json.status, 'completed', a.text);
    const b = await spin(l.token);
    assert.equal(b.json.status, 'completed', b.text);
    const read = await runtime(l.token, 'GET', '/api/runtime/session');
    const net =
      BigInt(a.json.win_minor) -
      BigInt(a.json.bet_minor) +
      BigInt(b.json.win_minor) -
      BigInt(b.json.bet_minor);
    assert.equal(read.json.play.net_minor, net.toString());
    assert.ok(read.json.play.elapsed_ms >= 0 && read.json.play.elapsed_ms < 600_000, read.text);
    assert.equal(read.json.reality_check, null);
  });
});

describe('reality check', () => {
  test('spins are refused while a check is due until the player continues; leave is recorded', async () => {
    const set = await patchOperator(OP, { reality_check_interval_seconds: 2 });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.json.data.reality_check_interval_seconds, 2);
    try {
      const l = await launch({ external_player_id: await newPlayer() });
      assert.equal(l.json.rules.reality_check_interval_seconds, 2);
      const notYet = await runtime(l.token, 'POST', '/api/runtime/reality-check', {});
      // Answered before the check is due (2 s after the launch): nothing to acknowledge.
      if (notYet.status !== 200) {
        assert.equal(notYet.status, 409, notYet.text);
        assert.equal(notYet.json.error, 'reality_check_not_due');
      }
      const due = await until('the reality check is due', async () => {
        const r = await runtime(l.token, 'GET', '/api/runtime/session');
        return r.json.reality_check?.due === true && r.json;
      });
      assert.equal(due.reality_check.interval_seconds, 2);
      const refused = await spin(l.token);
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.json.error, 'reality_check_due');
      const ack = await runtime(l.token, 'POST', '/api/runtime/reality-check', { action: 'continue' });
      assert.equal(ack.status, 200, ack.text);
      assert.equal(ack.json.acknowledged, true);
      assert.ok(Date.parse(ack.json.next_due_at) > Date.now(), ack.text);
      assert.equal(ack.json.reality_check.due, false);
      // Taken now unless the next check (2 s on) is already due again on a slow machine.
      const taken = await spin(l.token);
      if (taken.status !== 200) assert.equal(taken.json.error, 'reality_check_due', taken.text);
      await until('the next reality check is due', async () => {
        const r = await runtime(l.token, 'GET', '/api/runtime/session');
        return r.json.reality_check?.due === true;
      });
      const leave = await runtime(l.token, 'POST', '/api/runtime/reality-check', { action: 'leave' });
      assert.equal(leave.status, 200, leave.text);
      assert.equal(leave.json.next_due_at, null);
      assert.equal((await spin(l.token)).status, 409);
      const bad = await runtime(l.token, 'POST', '/api/runtime/reality-check', { action: 'stay' });
      assert.equal(bad.status, 422, bad.text);
      const { rows } = await h.db.pool.query<{ action: string }>(
        `SELECT action FROM reality_checks WHERE session_id = $1 ORDER BY check_id`,
        [l.sessionId],
      );
      assert.deepEqual(rows.map((r) => r.action).slice(-2), ['continue', 'leave']);
    } finally {
      await patchOperator(OP, { reality_check_interval_seconds: null });
    }
  });
});
