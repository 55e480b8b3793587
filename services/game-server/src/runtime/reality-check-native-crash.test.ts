import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import { chainSeed, crashPointCents } from '@opi/games';
import { call, type Harness, SERVICE_SECRET } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';

// The reality check on native (prov_c) and crash (prov_d) titles (issue 18), end to end with real
// parts only: the API, the settlement workflow on the Temporal dev server, PostgreSQL and the
// sandbox wallet over HTTP. The operator's interval is 60 s; a check is made due by moving the
// session's reality_check_due_at into the past (the clock is the database's, as in production).
const OP = 'op_rc_nc';
const OP_NONE = 'op_rc_nc_none';
const INTERVAL_S = 60;
const box = createSecretBox(SERVICE_SECRET);
let w: PlayWorld;
let h: Harness;
let key: string;
let keyNone: string;

before(async () => {
  const settings = { default_currency: 'EUR', allowed_currencies: ['EUR', 'USD'] };
  const titles = ['cndice', 'dcrash1'];
  w = await startPlayWorld({
    queue: 'rc-nc',
    operatorWalletTitles: ['cndice'],
    operators: [
      { id: OP, titles, settings: { ...settings, reality_check_interval_seconds: INTERVAL_S } },
      { id: OP_NONE, titles, settings },
    ],
  });
  ({ h, key } = w);
  keyNone = w.operators[OP_NONE]!.key;
});
after(() => w.close());

const newPlayer = (op = OP, currency = 'EUR') =>
  w.newPlayer(op, { prefix: 'rcnc', currency, balanceMinor: 1_000_000 });
const launch = (body: Record<string, unknown>, k = key) =>
  w.launch(k, { return_url: 'https://lobby.example/back', ...body });
const runtime: PlayWorld['runtime'] = (...args) => w.runtime(...args);
/** Makes the session's reality check due now (as if its interval had passed). */
async function makeDue(sessionId: string): Promise<void> {
  await h.db.pool.query(
    `UPDATE sessions SET reality_check_due_at = now() - interval '1 second' WHERE session_id = $1`,
    [sessionId],
  );
}
async function countRounds(sessionId: string): Promise<{ rounds: number; crash: number; wallet: number }> {
  const { rows } = await h.db.pool.query(
    `SELECT (SELECT count(*) FROM rounds WHERE session_id = $1)::int AS rounds,
            (SELECT count(*) FROM crash_rounds WHERE session_id = $1)::int AS crash,
            (SELECT count(*) FROM wallet_transactions WHERE session_id = $1)::int AS wallet`,
    [sessionId],
  );
  return rows[0];
}
function assertRefusedForRealityCheck(res: { status: number; json: any; text: string }) {
  assert.equal(res.status, 409, res.text);
  assert.equal(res.json.error, 'reality_check_due', res.text);
  assert.equal(typeof res.json.detail, 'string');
  assert.ok(Date.parse(res.json.reality_check_due_at) <= Date.now() + 5_000, res.text);
}

// ── native (prov_c): Spark Dice ───────────────────────────────────────────────────────────────

async function openNative(k = key, op = OP) {
  const l = await launch({ symbol: 'cndice', currency: 'EUR', external_player_id: await newPlayer(op) }, k);
  const ex = await call(h.game, 'POST', '/api/runtime/native/session-from-grant', {
    body: { grant: l.url.searchParams.get('grant') },
  });
  assert.equal(ex.status, 200, ex.text);
  return { ...l, token: ex.json.token as string, boot: ex.json };
}
const diceBet = (token: string) =>
  runtime(token, 'POST', '/api/runtime/native/bet', { stake_minor: 100, target: 5000 });

describe('native titles', () => {
  test('the launch reports the interval and records it on the session; the state carries play and reality_check', async () => {
    const n = await openNative();
    assert.equal(n.json.rules.reality_check_interval_seconds, INTERVAL_S);
    assert.equal(n.json.data.rules.reality_check_interval_seconds, INTERVAL_S);
    const { rows } = await h.db.pool.query(
      `SELECT reality_check_interval_seconds, reality_check_due_at > now() AS later FROM sessions WHERE session_id = $1`,
      [n.sessionId],
    );
    assert.deepEqual(rows[0], { reality_check_interval_seconds: INTERVAL_S, later: true });
    assert.equal(n.boot.rules.reality_check_interval_seconds, INTERVAL_S);
    assert.equal(n.boot.reality_check.interval_seconds, INTERVAL_S);
    assert.equal(n.boot.reality_check.due, false);
    assert.equal(n.boot.play.net_minor, '0');
    // Without an operator interval: none reported, none scheduled.
    const none = await openNative(keyNone, OP_NONE);
    assert.equal(none.json.rules.reality_check_interval_seconds, null);
    assert.equal(none.boot.reality_check, null);
  });

  test('a bet while the check is due is 409 reality_check_due and writes nothing; after continue it is taken', async () => {
    const n = await openNative();
    const first = await diceBet(n.token);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.round.status, 'completed', first.text);
    await makeDue(n.sessionId);
    const before = await countRounds(n.sessionId);
    const due = await runtime(n.token, 'GET', '/api/runtime/native/state');
    assert.equal(due.json.reality_check.due, true, due.text);
    const net = BigInt(first.json.round.win_minor) - 100n;
    assert.equal(due.json.play.net_minor, net.toString());
    assert.ok(due.json.play.elapsed_ms >= 0, due.text);
    assertRefusedForRealityCheck(await diceBet(n.token));
    assert.deepEqual(await countRounds(n.sessionId), before, 'a refused bet writes no round');
    const ack = await runtime(n.token, 'POST', '/api/runtime/reality-check', { action: 'continue' });
    assert.equal(ack.status, 200, ack.text);
    assert.equal(ack.json.reality_check.due, false);
    assert.equal(ack.json.play.net_minor, net.toString());
    const nextIn = Date.parse(ack.json.next_due_at) - Date.now();
    assert.ok(nextIn > (INTERVAL_S - 10) * 1000 && nextIn <= (INTERVAL_S + 10) * 1000, ack.text);
    const taken = await diceBet(n.token);
    assert.equal(taken.status, 200, taken.text);
    assert.equal(taken.json.round.status, 'completed', taken.text);
    const { rows } = await h.db.pool.query(
      `SELECT action, net_minor::text FROM reality_checks WHERE session_id = $1`,
      [n.sessionId],
    );
    assert.deepEqual(rows, [{ action: 'continue', net_minor: net.toString() }]);
  });

  test('leave is recorded and the check stays due: bets still refused', async () => {
    const n = await openNative();
    await makeDue(n.sessionId);
    const left = await runtime(n.token, 'POST', '/api/runtime/reality-check', { action: 'leave' });
    assert.equal(left.status, 200, left.text);
    assert.equal(left.json.next_due_at, null);
    assertRefusedForRealityCheck(await diceBet(n.token));
    assert.equal((await countRounds(n.sessionId)).rounds, 0);
  });
});

// ── crash (prov_d): dcrash1 ───────────────────────────────────────────────────────────────────

async function openCrash(k = key, op = OP) {
  const player = await newPlayer(op, 'USD');
  const l = await launch({ symbol: 'dcrash1', currency: 'USD', external_player_id: player }, k);
  const auth = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
    headers: { 'x-login-grant': l.url.searchParams.get('login')! },
  });
  assert.equal(auth.status, 200, auth.text);
  return { ...l, player, token: auth.json.session_token as string };
}
/** A client seed whose round crashes at once (below 1.10x), so the round ends by itself quickly. */
async function quickSeed(player: string): Promise<string> {
  const { rows } = await h.db.pool.query<{ root_seed_enc: string; length: number; next_position: number }>(
    `SELECT c.root_seed_enc, c.length, c.next_position FROM crash_seed_chains c JOIN players p ON p.player_id = c.player_id
     WHERE p.external_player_id = $1 AND p.operator_id = $2 AND c.symbol = 'dcrash1' AND c.exhausted_at IS NULL`,
    [player, OP],
  );
  const chain = rows[0]!;
  const seed = chainSeed(box.decrypt(chain.root_seed_enc), chain.length, chain.next_position);
  for (let i = 0; i < 100_000; i++) {
    if (crashPointCents(seed, `rc-${i}`, chain.next_position, '97.00') < 110) return `rc-${i}`;
  }
  throw new Error('no client seed found');
}
async function crashBet(token: string, player: string) {
  const state = await runtime(token, 'GET', '/api/runtime/crash/state');
  assert.equal(state.status, 200, state.text);
  return runtime(token, 'POST', '/api/runtime/crash/bet', {
    stake_minor: 100,
    client_seed: await quickSeed(player),
    commitment: state.json.next.commitment,
  });
}

describe('crash titles', () => {
  test('the launch reports the interval; the state carries rules, play and reality_check', async () => {
    const c = await openCrash();
    assert.equal(c.json.rules.reality_check_interval_seconds, INTERVAL_S);
    const state = await runtime(c.token, 'GET', '/api/runtime/crash/state');
    assert.equal(state.status, 200, state.text);
    assert.equal(state.json.rules.reality_check_interval_seconds, INTERVAL_S);
    assert.equal(state.json.reality_check.due, false);
    assert.equal(state.json.play.net_minor, '0');
    const none = await openCrash(keyNone, OP_NONE);
    assert.equal(none.json.rules.reality_check_interval_seconds, null);
    const noneState = await runtime(none.token, 'GET', '/api/runtime/crash/state');
    assert.equal(noneState.json.reality_check, null);
  });

  test('a bet while the check is due is 409 reality_check_due and writes nothing; after continue it is taken', async () => {
    const c = await openCrash();
    const first = await crashBet(c.token, c.player);
    assert.equal(first.status, 200, first.text);
    const roundId = first.json.round.round_id as string;
    await until('the first round settled', async () => {
      const { rows } = await h.db.pool.query(`SELECT status FROM rounds WHERE round_id = $1`, [roundId]);
      return rows[0]?.status === 'completed';
    });
    await makeDue(c.sessionId);
    const before = await countRounds(c.sessionId);
    const state = await runtime(c.token, 'GET', '/api/runtime/crash/state');
    assert.equal(state.json.reality_check.due, true, state.text);
    assert.equal(state.json.play.net_minor, '-100', 'the round crashed below 1.10x: the stake is lost');
    assertRefusedForRealityCheck(await crashBet(c.token, c.player));
    assert.deepEqual(await countRounds(c.sessionId), before, 'a refused bet writes no round');
    // The page answers with its crash session token on the shared runtime route.
    const ack = await runtime(c.token, 'POST', '/api/runtime/reality-check', { action: 'continue' });
    assert.equal(ack.status, 200, ack.text);
    assert.equal(ack.json.reality_check.due, false);
    assert.equal(ack.json.play.net_minor, '-100');
    const again = await runtime(c.token, 'POST', '/api/runtime/reality-check', { action: 'continue' });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.json.error, 'reality_check_not_due');
    const taken = await crashBet(c.token, c.player);
    assert.equal(taken.status, 200, taken.text);
    await until('the second round settled', async () => {
      const { rows } = await h.db.pool.query(`SELECT status FROM rounds WHERE round_id = $1`, [
        taken.json.round.round_id,
      ]);
      return rows[0]?.status === 'completed';
    });
  });

  test('leave is recorded and bets stay refused; a demo page has no rules', async () => {
    const c = await openCrash();
    await makeDue(c.sessionId);
    const left = await runtime(c.token, 'POST', '/api/runtime/reality-check', { action: 'leave' });
    assert.equal(left.status, 200, left.text);
    assertRefusedForRealityCheck(await crashBet(c.token, c.player));
    const { rows } = await h.db.pool.query(`SELECT action FROM reality_checks WHERE session_id = $1`, [
      c.sessionId,
    ]);
    assert.deepEqual(
      rows.map((r) => r.action),
      ['leave'],
    );
    const demo = await call(h.game, 'POST', '/api/runtime/crash/demo', { body: { slug: 'dcrash1' } });
    assert.equal(demo.status, 201, demo.text);
    const demoState = await runtime(demo.json.session_token, 'GET', '/api/runtime/crash/state');
    assert.equal(demoState.status, 200, demoState.text);
    assert.equal(demoState.json.rules, null);
    assert.equal(demoState.json.reality_check, null);
  });
});
