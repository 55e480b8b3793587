import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import { CATALOG, chainSeed, crashPointCents } from '@opi/games';
import { call, type Harness, SERVICE_SECRET } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';

// The UK's rules for every casino game (issue 26), end to end with real parts only: the API, the
// settlement workflow on the Temporal dev server, PostgreSQL and the sandbox wallet over HTTP.
// GB native (Spark Dice) and crash (dcrash1) titles: 5 s between the end of one game cycle and the
// start of the next (429 cycle_too_soon), no auto-bet; GB slots: a stake cap per spin by currency
// and age band (422 stake_above_cap), the lower cap without an age band; other jurisdictions unaffected.
const OP_GB = 'op_gb26';
const OP = 'op_gb26_none';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const box = createSecretBox(SERVICE_SECRET);
let w: PlayWorld;
let h: Harness;
let keyGb: string;
let key: string;

before(async () => {
  const settings = { default_currency: 'GBP', allowed_currencies: ['GBP', 'EUR', 'USD', 'JPY'] };
  const titles = [slot.symbol, 'cndice', 'cnmines', 'dcrash1'];
  w = await startPlayWorld({
    queue: 'gb-rules-26',
    operatorWalletTitles: ['cndice', 'cnmines'],
    operators: [
      { id: OP_GB, titles, settings: { ...settings, default_jurisdiction: 'GB' } },
      { id: OP, titles, settings },
    ],
  });
  h = w.h;
  keyGb = w.operators[OP_GB]!.key;
  key = w.operators[OP]!.key;
});
after(() => w.close());

const newPlayer = (op: string, currency = 'GBP') =>
  w.newPlayer(op, { prefix: 'gb26', currency, balanceMinor: 1_000_000 });
const runtime: PlayWorld['runtime'] = (...args) => w.runtime(...args);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

function assertTooSoon(res: { status: number; json: any; text: string; headers: Headers }) {
  assert.equal(res.status, 429, res.text);
  assert.equal(res.json.error, 'cycle_too_soon', res.text);
  assert.equal(typeof res.json.detail, 'string');
  assert.ok(res.json.retry_after_ms > 0 && res.json.retry_after_ms <= 5000, res.text);
  const retry = Number(res.headers.get('retry-after'));
  assert.ok(retry >= 1 && retry <= 5, `Retry-After ${retry}`);
}

// ── native (prov_c): Spark Dice ───────────────────────────────────────────────────────────────

async function openDice(k: string, op: string) {
  const l = await w.launch(k, { symbol: 'cndice', currency: 'GBP', external_player_id: await newPlayer(op) });
  const ex = await call(h.game, 'POST', '/api/runtime/native/session-from-grant', {
    body: { grant: l.url.searchParams.get('grant') },
  });
  assert.equal(ex.status, 200, ex.text);
  return { ...l, token: ex.json.token as string, boot: ex.json };
}
const diceBet = (token: string, extra: Record<string, unknown> = {}) =>
  runtime(token, 'POST', '/api/runtime/native/bet', { stake_minor: 100, target: 5000, ...extra });
/** The session's rounds (a crash bet writes its wallet round here too). */
const countRounds = async (sessionId: string) =>
  (
    await h.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM rounds WHERE session_id = $1`, [
      sessionId,
    ])
  ).rows[0]!.n;

describe('GB native titles', () => {
  test('the launch reports 5 s between cycles and no autoplay; a bet right after a cycle ended is 429, one 5 s later is taken', async () => {
    const n = await openDice(keyGb, OP_GB);
    assert.equal(n.json.rules.min_cycle_interval_ms, 5000);
    assert.equal(n.json.rules.autoplay, false);
    assert.equal(n.json.rules.max_stake_minor, null);
    assert.equal(n.boot.rules.min_cycle_interval_ms, 5000);
    assert.equal(n.boot.next_cycle, null, 'no cycle played yet: no wait');
    const first = await diceBet(n.token);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.round.status, 'completed', first.text);
    const ended = await h.db.pool.query<{ last_cycle_ended_at: Date }>(
      `SELECT last_cycle_ended_at FROM sessions WHERE session_id = $1`,
      [n.sessionId],
    );
    assert.ok(ended.rows[0]!.last_cycle_ended_at instanceof Date, 'the cycle end is recorded on the session');
    const state = await runtime(n.token, 'GET', '/api/runtime/native/state');
    assert.ok(state.json.next_cycle.wait_ms > 0 && state.json.next_cycle.wait_ms <= 5000, state.text);
    const tooSoon = await diceBet(n.token);
    assertTooSoon(tooSoon);
    assert.equal(await countRounds(n.sessionId), 1, 'a refused bet writes nothing');
    await sleep(tooSoon.json.retry_after_ms + 200);
    const later = await diceBet(n.token);
    assert.equal(later.status, 200, later.text);
    const { rows } = await h.db.pool.query<{ gap_ms: string }>(
      `SELECT extract(epoch FROM (SELECT max(created_at) FROM rounds WHERE session_id = $1)
                                 - $2::timestamptz) * 1000 AS gap_ms`,
      [n.sessionId, ended.rows[0]!.last_cycle_ended_at],
    );
    assert.ok(
      Number(rows[0]!.gap_ms) >= 5000,
      `the next round started ${rows[0]!.gap_ms} ms after the cycle ended`,
    );
  });

  test('Mines: the bet does not end the cycle, the final reveal does; the next bet right after is 429', async () => {
    const l = await w.launch(keyGb, {
      symbol: 'cnmines',
      currency: 'GBP',
      external_player_id: await newPlayer(OP_GB),
    });
    const ex = await call(h.game, 'POST', '/api/runtime/native/session-from-grant', {
      body: { grant: l.url.searchParams.get('grant') },
    });
    assert.equal(ex.status, 200, ex.text);
    const token = ex.json.token as string;
    const bet = () => runtime(token, 'POST', '/api/runtime/native/bet', { stake_minor: 100, mines: 24 });
    const first = await bet();
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.round.status, 'playing', first.text);
    const before = await h.db.pool.query(`SELECT last_cycle_ended_at FROM sessions WHERE session_id = $1`, [
      l.sessionId,
    ]);
    assert.equal(before.rows[0].last_cycle_ended_at, null, 'an open round has not ended its cycle');
    // 24 mines of 25 cells: the reveal ends the round (a mine, or the one safe cell: all revealed).
    const reveal = await runtime(token, 'POST', '/api/runtime/native/action', {
      round_id: first.json.round.round_id,
      action: 'reveal',
      cell: 0,
    });
    assert.equal(reveal.status, 200, reveal.text);
    await until('the round is completed', async () => {
      const { rows } = await h.db.pool.query(`SELECT status FROM rounds WHERE round_id = $1`, [
        first.json.round.round_id,
      ]);
      return rows[0]?.status === 'completed';
    });
    const after = await h.db.pool.query(`SELECT last_cycle_ended_at FROM sessions WHERE session_id = $1`, [
      l.sessionId,
    ]);
    assert.ok(after.rows[0].last_cycle_ended_at instanceof Date, 'the final stage ended the cycle');
    const tooSoon = await bet();
    assertTooSoon(tooSoon);
    assert.equal(await countRounds(l.sessionId), 1, 'the refused bet wrote nothing');
  });

  test('two concurrent bets: neither passes within the 5 s; after them only one starts a round', async () => {
    const n = await openDice(keyGb, OP_GB);
    const first = await diceBet(n.token);
    assert.equal(first.status, 200, first.text);
    const both = await Promise.all([diceBet(n.token), diceBet(n.token)]);
    for (const res of both) assertTooSoon(res);
    assert.equal(await countRounds(n.sessionId), 1);
    // Once the 5 s have passed, of two bets sent together exactly one starts a round.
    await sleep(Math.max(...both.map((r) => r.json.retry_after_ms)) + 200);
    const race = await Promise.all([diceBet(n.token), diceBet(n.token)]);
    const statuses = race.map((r) => r.status).sort();
    assert.equal(statuses[0], 200, race.map((r) => r.text).join(' | '));
    assert.ok(statuses[1] === 429 || statuses[1] === 409, race.map((r) => r.text).join(' | '));
    assert.equal(await countRounds(n.sessionId), 2);
  });

  test('auto-bet is refused (422 at the field) in GB, ignored elsewhere', async () => {
    const gb = await openDice(keyGb, OP_GB);
    for (const flags of [{ auto_bet: true }, { autoplay: true }, { auto_bets: 10 }, { repeat: 5 }]) {
      const res = await diceBet(gb.token, flags);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.json.detail[0].loc, ['body', Object.keys(flags)[0]]);
    }
    assert.equal(await countRounds(gb.sessionId), 0);
    const elsewhere = await openDice(key, OP);
    assert.equal(elsewhere.json.rules.min_cycle_interval_ms, null);
    assert.equal(elsewhere.json.rules.autoplay, true);
    const res = await diceBet(elsewhere.token, { auto_bet: true });
    assert.equal(res.status, 200, res.text);
  });

  test('not GB: bets follow each other at once', async () => {
    const n = await openDice(key, OP);
    for (let i = 0; i < 2; i++) {
      const res = await diceBet(n.token);
      assert.equal(res.status, 200, res.text);
    }
    const state = await runtime(n.token, 'GET', '/api/runtime/native/state');
    assert.equal(state.json.next_cycle, null);
  });
});

// ── crash (prov_d): dcrash1 ───────────────────────────────────────────────────────────────────

async function openCrash(k: string, op: string) {
  const player = await newPlayer(op, 'USD');
  const l = await w.launch(k, { symbol: 'dcrash1', currency: 'USD', external_player_id: player });
  const auth = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
    headers: { 'x-login-grant': l.url.searchParams.get('login')! },
  });
  assert.equal(auth.status, 200, auth.text);
  return { ...l, player, op, token: auth.json.session_token as string };
}
/** A client seed whose round crashes at once (below 1.10x), so the round ends by itself quickly. */
async function quickSeed(player: string, op: string): Promise<string> {
  const { rows } = await h.db.pool.query<{ root_seed_enc: string; length: number; next_position: number }>(
    `SELECT c.root_seed_enc, c.length, c.next_position FROM crash_seed_chains c JOIN players p ON p.player_id = c.player_id
     WHERE p.external_player_id = $1 AND p.operator_id = $2 AND c.symbol = 'dcrash1' AND c.exhausted_at IS NULL`,
    [player, op],
  );
  const chain = rows[0]!;
  const seed = chainSeed(box.decrypt(chain.root_seed_enc), chain.length, chain.next_position);
  for (let i = 0; i < 100_000; i++) {
    if (crashPointCents(seed, `gb-${i}`, chain.next_position, '97.00') < 110) return `gb-${i}`;
  }
  throw new Error('no client seed found');
}
async function crashBet(
  c: { token: string; player: string; op: string },
  extra: Record<string, unknown> = {},
) {
  const state = await runtime(c.token, 'GET', '/api/runtime/crash/state');
  assert.equal(state.status, 200, state.text);
  return runtime(c.token, 'POST', '/api/runtime/crash/bet', {
    stake_minor: 100,
    client_seed: await quickSeed(c.player, c.op),
    commitment: state.json.next.commitment,
    ...extra,
  });
}
async function crashEnded(token: string, roundId: string) {
  await until('the crash round ended', async () => {
    const r = await runtime(token, 'GET', `/api/runtime/crash/rounds/${roundId}`);
    return r.json?.state === 'crashed' || r.json?.state === 'cashed_out';
  });
}

describe('GB crash titles', () => {
  test('a bet right after the crash is 429 cycle_too_soon; 5 s after it is taken; the automatic cash-out is allowed', async () => {
    const c = await openCrash(keyGb, OP_GB);
    assert.equal(c.json.rules.min_cycle_interval_ms, 5000);
    assert.equal(c.json.rules.autoplay, false);
    // An automatic cash-out target is a cash-out, not a bet: taken under GB.
    const first = await crashBet(c, { auto_cashout: '2.00' });
    assert.equal(first.status, 200, first.text);
    await crashEnded(c.token, first.json.round.round_id);
    const state = await runtime(c.token, 'GET', '/api/runtime/crash/state');
    assert.equal(state.json.rules.min_cycle_interval_ms, 5000);
    assert.ok(state.json.next_cycle.wait_ms > 0, state.text);
    const tooSoon = await crashBet(c);
    assertTooSoon(tooSoon);
    assert.equal(await countRounds(c.sessionId), 1, 'a refused bet writes nothing');
    const { rows } = await h.db.pool.query<{ ended_at: Date; last: Date }>(
      `SELECT cr.ended_at, s.last_cycle_ended_at AS last FROM crash_rounds cr JOIN sessions s USING (session_id)
        WHERE cr.round_id = $1`,
      [first.json.round.round_id],
    );
    assert.equal(rows[0]!.last.getTime(), rows[0]!.ended_at.getTime(), 'the cycle ends at the crash');
    await sleep(tooSoon.json.retry_after_ms + 200);
    const later = await crashBet(c);
    assert.equal(later.status, 200, later.text);
    await crashEnded(c.token, later.json.round.round_id);
  });

  test('auto-bet is refused (422) in GB; not GB: the next bet follows at once', async () => {
    const gb = await openCrash(keyGb, OP_GB);
    for (const flags of [{ auto_bet: true }, { autoplay: 3 }]) {
      const res = await crashBet(gb, flags);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.json.detail[0].loc, ['body', Object.keys(flags)[0]]);
    }
    assert.equal(await countRounds(gb.sessionId), 0);
    const c = await openCrash(key, OP);
    assert.equal(c.json.rules.min_cycle_interval_ms, null);
    const first = await crashBet(c, { auto_bet: true });
    assert.equal(first.status, 200, first.text);
    await crashEnded(c.token, first.json.round.round_id);
    const next = await crashBet(c);
    assert.equal(next.status, 200, next.text);
    await crashEnded(c.token, next.json.round.round_id);
  });
});

// ── slots: the stake cap ────────────────────────────────────────────────────────────────────

async function openSlot(k: string, body: Record<string, unknown>, op = OP_GB) {
  const currency = (body.currency as string | undefined) ?? 'GBP';
  const l = await w.launch(k, {
    symbol: slot.symbol,
    currency,
    external_player_id: await newPlayer(op, currency),
    ...body,
  });
  return { ...l, token: l.token! };
}
const spin = (token: string, bet: bigint | string | number) => w.spin(token, { bet_minor: String(bet) });

function assertAboveCap(res: { status: number; json: any; text: string }, cap: number) {
  assert.equal(res.status, 422, res.text);
  assert.equal(res.json.error, 'stake_above_cap', res.text);
  assert.equal(res.json.max_stake_minor, cap, res.text);
  assert.deepEqual(res.json.detail[0].loc, ['body', 'bet_minor']);
}

describe('GB slot stake caps', () => {
  test('no age band: the lower cap (GBP 2) is the documented default; the page offers only stakes within it', async () => {
    const l = await openSlot(keyGb, {});
    assert.equal(l.json.rules.max_stake_minor, 200);
    assert.equal(l.json.rules.age_band, null);
    const { rows } = await h.db.pool.query(
      `SELECT age_band, max_stake_minor::int AS max_stake_minor FROM sessions WHERE session_id = $1`,
      [l.sessionId],
    );
    assert.deepEqual(rows[0], { age_band: null, max_stake_minor: 200 });
    const read = await runtime(l.token, 'GET', '/api/runtime/session');
    assert.equal(read.json.rules.max_stake_minor, 200);
    const stakes = (read.json.stakes_minor as string[]).map(BigInt);
    assert.ok(stakes.length > 0);
    for (const s of [...stakes, ...read.json.bet_levels.flatMap((l: any) => l.stakes_minor.map(BigInt))])
      assert.ok(s <= 200n, `stake ${s} offered above the cap`);
    assertAboveCap(await spin(l.token, 201), 200);
    assertAboveCap(await spin(l.token, 500), 200);
    const ok = await spin(l.token, stakes[stakes.length - 1]!);
    assert.equal(ok.status, 200, ok.text);
  });

  test('18-24: GBP 2; 25+: GBP 5; recorded on the session', async () => {
    const young = await openSlot(keyGb, { age_band: '18-24' });
    assert.equal(young.json.rules.max_stake_minor, 200);
    assert.equal(young.json.rules.age_band, '18-24');
    assert.equal(young.json.data.rules.age_band, '18-24');
    assertAboveCap(await spin(young.token, 300), 200);
    const adult = await openSlot(keyGb, { age_band: '25+' });
    assert.equal(adult.json.rules.max_stake_minor, 500);
    const { rows } = await h.db.pool.query(`SELECT age_band FROM sessions WHERE session_id = $1`, [
      adult.sessionId,
    ]);
    assert.equal(rows[0].age_band, '25+');
    assertAboveCap(await spin(adult.token, 600), 500);
    // A special bet costs bet x level: within the cap per stake, above it in cost, is refused too.
    const special = await w.spin(adult.token, { bet_minor: '200', mode: 'special', bet_level: 5 });
    assert.equal(special.status, 422, special.text);
    assert.equal(special.json.error, 'stake_above_cap', special.text);
    assert.deepEqual(special.json.detail[0].loc, ['body', 'bet_level']);
    const read = await runtime(adult.token, 'GET', '/api/runtime/session');
    const stakes = (read.json.stakes_minor as string[]).map(BigInt);
    assert.ok(stakes.every((s) => s <= 500n) && stakes.some((s) => s > 200n), stakes.join(','));
    for (const level of read.json.bet_levels as { bet_level: number; stakes_minor: string[] }[])
      for (const st of level.stakes_minor)
        assert.ok(BigInt(st) * BigInt(level.bet_level) <= 500n, `level ${level.bet_level} stake ${st}`);
    const ok = await spin(adult.token, stakes.filter((s) => s > 200n).pop()!);
    assert.equal(ok.status, 200, ok.text);
    // The relaunch sets the band (and the cap) again.
    const again = await w.launch(keyGb, {
      symbol: slot.symbol,
      currency: 'GBP',
      external_player_id: (
        await h.db.pool.query(
          `SELECT p.external_player_id FROM sessions s JOIN players p USING (player_id) WHERE s.session_id = $1`,
          [adult.sessionId],
        )
      ).rows[0].external_player_id,
    });
    assert.equal(again.sessionId, adult.sessionId);
    assert.equal(again.json.rules.max_stake_minor, 200);
    assertAboveCap(await spin(again.token!, 300), 200);
  });

  test('other currencies from the per-currency table; a currency without a cap is refused at launch', async () => {
    const eur = await openSlot(keyGb, { currency: 'EUR', age_band: '25+' });
    assert.equal(eur.json.rules.max_stake_minor, 550);
    const usd = await openSlot(keyGb, { currency: 'USD' });
    assert.equal(usd.json.rules.max_stake_minor, 240);
    const player = `gb26-jpy-${Date.now()}`;
    const jpy = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key: keyGb,
      body: { symbol: slot.symbol, currency: 'JPY', external_player_id: player },
    });
    assert.equal(jpy.status, 422, jpy.text);
    assert.deepEqual(jpy.json.detail[0].loc, ['body', 'currency']);
  });

  test('a malformed age band is 422 at body.age_band; not GB: no cap, the band is only reported', async () => {
    for (const bad of ['18', '25', 'adult', '2001-04-01', 17, null]) {
      const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
        key: keyGb,
        body: { symbol: slot.symbol, currency: 'GBP', external_player_id: 'gb26-x', age_band: bad },
      });
      assert.equal(res.status, 422, `${JSON.stringify(bad)}: ${res.text}`);
      assert.deepEqual(res.json.detail[0].loc, ['body', 'age_band']);
    }
    const l = await openSlot(key, { age_band: '18-24' }, OP);
    assert.equal(l.json.rules.max_stake_minor, null);
    assert.equal(l.json.rules.age_band, '18-24');
    assert.equal(l.json.rules.jurisdiction, null);
    const read = await runtime(l.token, 'GET', '/api/runtime/session');
    const stakes = (read.json.stakes_minor as string[]).map(BigInt);
    const big = stakes.find((s) => s > 500n);
    assert.ok(big, `a stake above GBP 5 is offered outside GB: ${stakes.join(',')}`);
    const res = await spin(l.token, big);
    assert.equal(res.status, 200, res.text);
  });
});
