import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import { CATALOG, chainSeed, crashPointCents, msToReach, SLOT_SYMBOLS } from '@opi/games';
import { OPERATOR_SUSPENDED_MESSAGE } from '@opi/play/sessions/takes-bets';
import { ADMIN_KEY, call, type Harness, SERVICE_SECRET } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';

/*
 * Issue 23 point 3, real parts only: a suspended operator (PATCH status inactive through the admin
 * API) or a revoked session starts no new round on any family (slot spin, free round, native bet,
 * crash bet), in this API process and in a second one on the same database, from the answer of the
 * admin call on; rounds recorded before still settle through the settlement workflow (Temporal dev
 * server) against the sandbox wallet over HTTP. Each test has its own operator.
 */
const box = createSecretBox(SERVICE_SECRET);
const slot = CATALOG.find(
  (e) => e.provider_id === 'prov_a' && e.release.status === 'accepted' && SLOT_SYMBOLS.includes(e.symbol),
)!;
let w: PlayWorld;
let h: Harness;
let h2: Harness;
let admin: WalletAdminClient;

before(async () => {
  // A second API process on the same database (its own pool and caches).
  w = await startPlayWorld({ queue: 'suspend', secondApi: true, operatorWalletTitles: ['cnmines'] });
  ({ h, admin } = w);
  h2 = w.h2!;
});
after(() => w.close());

// ── helpers ─────────────────────────────────────────────────────────────────────────────────────

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Op {
  id: string;
  key: string;
}

/** A new operator on the sandbox wallet playing the slot, Ember Mines and Rocket Rise. */
async function newOperator(): Promise<Op> {
  const id = `op_sus_${randomUUID().slice(0, 8)}`;
  const secret = `wsec_${randomUUID().replaceAll('-', '')}`;
  const { key } = await w.addOperator({
    id,
    walletSecret: secret,
    titles: [slot.symbol, 'cnmines', 'dcrash1'],
  });
  return { id, key };
}

async function newPlayer(op: Op, balanceMinor = 100_000): Promise<string> {
  const player = `sus-${randomUUID().slice(0, 8)}`;
  // EUR for the slot and Mines, USD for Rocket Rise (its only currency).
  for (const currency of ['EUR', 'USD'])
    await admin.createPlayer({ operatorId: op.id, playerId: player, currency, balanceMinor });
  return player;
}

async function launch(op: Op, symbol: string, player: string, currency = 'EUR') {
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key: op.key,
    body: { symbol, external_player_id: player, currency },
  });
  assert.equal(res.status, 200, res.text);
  return { url: new URL(res.json.launch_url), sessionId: res.json.session_id as string };
}

async function slotSession(op: Op, player: string) {
  const l = await launch(op, slot.symbol, player);
  return { token: l.url.searchParams.get('mgckey')!, sessionId: l.sessionId };
}

async function minesSession(op: Op, player: string) {
  const l = await launch(op, 'cnmines', player);
  const ex = await call(h.game, 'POST', '/api/runtime/native/session-from-grant', {
    body: { grant: l.url.searchParams.get('grant') },
  });
  assert.equal(ex.status, 200, ex.text);
  return { token: ex.json.token as string, sessionId: l.sessionId };
}

async function crashSession(op: Op, player: string) {
  const l = await launch(op, 'dcrash1', player, 'USD');
  const res = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
    headers: { 'x-login-grant': l.url.searchParams.get('login')! },
  });
  assert.equal(res.status, 200, res.text);
  return { token: res.json.session_token as string, sessionId: l.sessionId };
}

const runtime = (base: string, token: string, method: string, path: string, body?: unknown) =>
  call(base, method, path, {
    headers: { 'x-session-token': token },
    ...(body === undefined ? {} : { body }),
  });
const spin = (token: string, body: Record<string, unknown> = { bet_minor: 100 }, base = h.game) =>
  runtime(base, token, 'POST', '/api/runtime/spin', body);

/** Suspends (or reactivates) the operator through the admin API of `base`. */
async function setStatus(op: Op, status: 'active' | 'inactive', base = h.base) {
  const res = await call(base, 'PATCH', `/api/admin/v1/operators/${op.id}`, {
    key: ADMIN_KEY,
    sign: true,
    body: { status },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.data.status, status);
}

async function revoke(sessionId: string) {
  const res = await call(h.base, 'POST', `/api/admin/v1/sessions/${sessionId}/revoke`, {
    key: ADMIN_KEY,
    sign: true,
    body: { reason: 'issue 23 point 3 test' },
  });
  assert.equal(res.status, 200, res.text);
}

/** What a session has journalled: its rounds and wallet transactions (count and latest). */
async function journalled(sessionId: string) {
  const { rows } = await h.db.pool.query<{ rounds: number; transactions: number }>(
    `SELECT (SELECT count(*) FROM rounds WHERE session_id = $1)::int AS rounds,
            (SELECT count(*) FROM wallet_transactions WHERE session_id = $1)::int AS transactions`,
    [sessionId],
  );
  return rows[0]!;
}

async function balanceOf(op: Op, player: string, currency = 'EUR'): Promise<bigint> {
  return BigInt((await admin.balance(op.id, player, currency)).balance_minor);
}

async function walletTx(roundId: string): Promise<string[]> {
  const { rows } = await h.db.pool.query<{ transaction_type: string; amount_minor: bigint; status: string }>(
    `SELECT transaction_type, amount_minor, status FROM wallet_transactions WHERE round_id = $1 ORDER BY created_at`,
    [roundId],
  );
  return rows.map((r) => `${r.transaction_type}:${r.amount_minor}:${r.status}`);
}

async function settled(roundId: string) {
  return until(`round ${roundId} settled`, async () => {
    const { rows } = await h.db.pool.query<{ status: string; win_minor: bigint; bet_minor: bigint }>(
      `SELECT status, win_minor, bet_minor FROM rounds WHERE round_id = $1`,
      [roundId],
    );
    return rows[0] && rows[0].status !== 'open' ? rows[0] : undefined;
  });
}

/** The refusal of a round of a suspended operator: 403, a clear JSON error. */
function assertSuspended(res: { status: number; json: any; text: string }, what: string) {
  assert.equal(res.status, 403, `${what}: ${res.text}`);
  assert.equal(res.json.error, 'operator_suspended', what);
  assert.equal(res.json.detail, OPERATOR_SUSPENDED_MESSAGE, what);
}

/** A client seed giving the player's next crash round a crash point `want` accepts. */
async function crashSeedFor(sessionId: string, want: (cents: number) => boolean): Promise<string> {
  const { rows } = await h.db.pool.query<{ root_seed_enc: string; length: number; next_position: number }>(
    `SELECT c.root_seed_enc, c.length, c.next_position FROM crash_seed_chains c
       JOIN sessions s ON s.player_id = c.player_id
      WHERE s.session_id = $1 AND c.symbol = 'dcrash1' AND c.exhausted_at IS NULL`,
    [sessionId],
  );
  const chain = rows[0]!;
  const seed = chainSeed(box.decrypt(chain.root_seed_enc), chain.length, chain.next_position);
  for (let i = 0; i < 100_000; i++) {
    const clientSeed = `pick-${i}`;
    if (want(crashPointCents(seed, clientSeed, chain.next_position, '97.00'))) return clientSeed;
  }
  throw new Error('no client seed found');
}

async function crashBet(token: string, sessionId: string, want: (cents: number) => boolean, base = h.game) {
  const state = await runtime(base, token, 'GET', '/api/runtime/crash/state');
  assert.equal(state.status, 200, state.text);
  assert.ok(state.json.next, 'a commitment is offered');
  return runtime(base, token, 'POST', '/api/runtime/crash/bet', {
    stake_minor: 100,
    client_seed: await crashSeedFor(sessionId, want),
    commitment: state.json.next.commitment,
  });
}

/** Waits until a backend of this test's database waits for a row lock in a statement matching `pattern`. */
async function lockWaiter(pattern: string) {
  await until(
    `a statement waiting on a row lock (${pattern})`,
    async () => {
      const { rows } = await h.db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE $1 AND pid <> pg_backend_pid()
            AND datname = current_database()`,
        [pattern],
      );
      return rows[0]!.n > 0;
    },
    15_000,
  );
}

type Answer = Awaited<ReturnType<typeof call>>;

/**
 * Runs `statements` in a transaction held open while `request` is sent, waits until the request
 * waits for a row lock in a statement matching `pattern` (it is past authentication, which read the
 * old state), commits, and returns the request's answer.
 */
/**
 * The spin's one statement as pg_stat_activity shows it: its text is cut at
 * track_activity_query_size (1 kB), so the pattern names its opening (the session row's share
 * lock), not the round's INSERT further in.
 */
const SPIN_STATEMENT = '%FROM sessions WHERE session_id = $3 FOR SHARE%';

async function racing(statements: [string, unknown[]][], request: () => Promise<Answer>, pattern: string) {
  const tx = await h.db.pool.connect();
  try {
    await tx.query('BEGIN');
    for (const [sql, params] of statements) await tx.query(sql, params);
    const pending = request();
    await lockWaiter(pattern);
    await tx.query('COMMIT');
    return await pending;
  } finally {
    await tx.query('ROLLBACK').catch(() => {});
    tx.release();
  }
}
/** The admin PATCH's statements for a suspension (admin/routes.ts). */
const suspension = (op: Op): [string, unknown[]][] => [
  [`SELECT 1 FROM operators WHERE operator_id = $1 FOR UPDATE`, [op.id]],
  [`UPDATE operators SET status = 'inactive', updated_at = now() WHERE operator_id = $1`, [op.id]],
];
/** revokeSession's statement (crash/authorization.ts). */
const revocation = (sessionId: string): [string, unknown[]][] => [
  [
    `UPDATE sessions SET status = CASE WHEN status = 'active' THEN 'revoked' ELSE status END, token_hash = NULL
      WHERE session_id = $1`,
    [sessionId],
  ],
];

// ── tests ───────────────────────────────────────────────────────────────────────────────────────

describe('a suspended operator', () => {
  test('slot: a spin recorded before the suspension settles; the next spin is 403 and journals nothing; the deadline stops sliding', async () => {
    const op = await newOperator();
    const player = await newPlayer(op);
    const { token, sessionId } = await slotSession(op, player);
    const first = await spin(token);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.status, 'completed');
    // A spin whose round is recorded but whose wallet calls are still on the way (slow wallet).
    await admin.setFaults({ latencyMs: [1500, 1500], latencyRate: 1 });
    let inFlight: Awaited<ReturnType<typeof spin>>;
    try {
      const pending = spin(token);
      const roundId = await until('the round recorded', async () => {
        const { rows } = await h.db.pool.query<{ round_id: string }>(
          `SELECT round_id FROM rounds WHERE session_id = $1 AND status = 'open'`,
          [sessionId],
        );
        return rows[0]?.round_id;
      });
      await setStatus(op, 'inactive');
      inFlight = await pending;
      assert.equal(inFlight.json.round_id, roundId);
    } finally {
      await admin.setFaults({});
    }
    assert.equal(inFlight.status, 200, inFlight.text);
    assert.equal(inFlight.json.status, 'completed', 'a round recorded before the suspension settles');
    const r = await settled(inFlight.json.round_id);
    assert.deepEqual(await walletTx(inFlight.json.round_id), [
      `debit:${r.bet_minor}:success`,
      `credit:${r.win_minor}:success`,
    ]);
    const expected = 100_000n - 2n * 100n + BigInt(first.json.win_minor) + BigInt(inFlight.json.win_minor);
    assert.equal(await balanceOf(op, player), expected, 'the credit arrived');

    const before = await journalled(sessionId);
    const refused = await spin(token);
    assertSuspended(refused, 'slot spin');
    assert.deepEqual(await journalled(sessionId), before, 'no round, no wallet transaction');
    assert.equal(await balanceOf(op, player), expected, 'the wallet balance is unchanged');
    // Reads go on (the page can show the balance and the error).
    assert.equal((await runtime(h.game, token, 'GET', '/api/runtime/balance')).status, 200);
    // The inactivity deadline does not slide while the operator is suspended.
    await h.db.pool.query(
      `UPDATE sessions SET expires_at = date_trunc('second', now()) + interval '10 minutes' WHERE session_id = $1`,
      [sessionId],
    );
    const { rows: d0 } = await h.db.pool.query(`SELECT expires_at FROM sessions WHERE session_id = $1`, [
      sessionId,
    ]);
    assert.equal((await runtime(h.game, token, 'GET', '/api/runtime/session')).status, 200);
    assertSuspended(await spin(token), 'slot spin again');
    const { rows: d1 } = await h.db.pool.query(`SELECT expires_at FROM sessions WHERE session_id = $1`, [
      sessionId,
    ]);
    assert.deepEqual(d1[0].expires_at, d0[0].expires_at, 'the deadline stays put');

    // Reactivated: the session plays again (and its deadline slides again).
    await setStatus(op, 'active');
    const again = await spin(token);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.status, 'completed');
  });

  test('free rounds: the next free round is 403, the grant is not counted, nothing is journalled', async () => {
    const op = await newOperator();
    const player = await newPlayer(op);
    const created = await call(h.base, 'POST', '/api/provider/v1/free-rounds', {
      key: op.key,
      sign: true,
      body: {
        campaign_id: `c-${randomUUID().slice(0, 8)}`,
        symbols: [slot.symbol],
        currency: 'EUR',
        bet_minor: 100,
        rounds: 3,
        valid_from: new Date(Date.now() - 3_600_000).toISOString(),
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        players: [player],
      },
    });
    assert.equal(created.status, 201, created.text);
    const { token, sessionId } = await slotSession(op, player);
    const played = await spin(token, { bet_minor: 100, free_round: true });
    assert.equal(played.status, 200, played.text);
    assert.equal(played.json.status, 'completed');
    assert.equal(played.json.free_round.rounds_remaining, 2);
    const balance = await balanceOf(op, player);
    assert.equal(balance, 100_000n + BigInt(played.json.win_minor), 'the free round was credited');

    await setStatus(op, 'inactive');
    const before = await journalled(sessionId);
    assertSuspended(await spin(token, { bet_minor: 100, free_round: true }), 'free round');
    assertSuspended(await spin(token), 'paid spin');
    assert.deepEqual(await journalled(sessionId), before);
    const { rows } = await h.db.pool.query(
      `SELECT rounds_used FROM free_round_grants WHERE operator_id = $1 AND external_player_id = $2`,
      [op.id, player],
    );
    assert.equal(rows[0].rounds_used, 1, 'the refused free round is not counted');
    assert.equal(await balanceOf(op, player), balance);
  });

  test('native (Mines): the open round is still played and cashed out; the next bet is 403 and journals nothing', async () => {
    const op = await newOperator();
    const player = await newPlayer(op);
    const { token, sessionId } = await minesSession(op, player);
    const b = await runtime(h.game, token, 'POST', '/api/runtime/native/bet', {
      stake_minor: 1000,
      mines: 3,
    });
    assert.equal(b.status, 200, b.text);
    const roundId = b.json.round.round_id as string;
    assert.equal(b.json.round.status, 'playing');

    await setStatus(op, 'inactive');
    const { rows } = await h.db.pool.query(`SELECT outcome FROM rounds WHERE round_id = $1`, [roundId]);
    const mines: number[] = rows[0].outcome.mines;
    const safe = Array.from({ length: 25 }, (_, i) => i).find((i) => !mines.includes(i))!;
    const act = (body: Record<string, unknown>) =>
      runtime(h.game, token, 'POST', '/api/runtime/native/action', { round_id: roundId, ...body });
    const revealed = await act({ action: 'reveal', cell: safe });
    assert.equal(revealed.status, 200, revealed.text);
    const done = await act({ action: 'cashout' });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.json.round.status, 'completed', 'the open round is finished by its rule');
    const win = BigInt(done.json.round.win_minor);
    assert.ok(win > 0n);
    assert.deepEqual(await walletTx(roundId), ['debit:1000:success', `credit:${win}:success`]);
    assert.equal(await balanceOf(op, player), 100_000n - 1000n + win, 'the credit arrived');

    const before = await journalled(sessionId);
    const refused = await runtime(h.game, token, 'POST', '/api/runtime/native/bet', {
      stake_minor: 1000,
      mines: 3,
    });
    assertSuspended(refused, 'native bet');
    assert.deepEqual(await journalled(sessionId), before);
    assert.equal(await balanceOf(op, player), 100_000n - 1000n + win);
    assert.equal((await runtime(h.game, token, 'GET', '/api/runtime/native/state')).status, 200);
  });

  test('crash: the running bet is still cashed out and credited; the next bet is 403 and journals nothing', async () => {
    const op = await newOperator();
    const player = await newPlayer(op);
    const { token, sessionId } = await crashSession(op, player);
    const placed = await crashBet(token, sessionId, (c) => c >= 500);
    assert.equal(placed.status, 200, placed.text);
    const roundId = placed.json.round.round_id as string;
    assert.equal(placed.json.round.state, 'running');

    await setStatus(op, 'inactive');
    await sleep(Math.max(0, msToReach(110) + 50 - (Date.now() - Number(placed.json.round.started_at))));
    const out = await runtime(h.game, token, 'POST', '/api/runtime/crash/cashout', { round_id: roundId });
    assert.equal(out.status, 200, out.text);
    assert.equal(out.json.round.state, 'cashed_out', 'a bet placed before the suspension is cashed out');
    const win = BigInt(out.json.round.win_minor);
    const r = await settled(roundId);
    assert.deepEqual([r.status, r.win_minor], ['completed', win]);
    assert.deepEqual(await walletTx(roundId), ['debit:100:success', `credit:${win}:success`]);
    assert.equal(await balanceOf(op, player, 'USD'), 100_000n - 100n + win, 'the credit arrived');

    const before = await journalled(sessionId);
    assertSuspended(await crashBet(token, sessionId, () => true), 'crash bet');
    assert.deepEqual(await journalled(sessionId), before);
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM crash_rounds WHERE session_id = $1`,
      [sessionId],
    );
    assert.equal(rows[0].n, 1, 'no crash round either');
    assert.equal(await balanceOf(op, player, 'USD'), 100_000n - 100n + win);
  });

  test('across processes: suspended through one API process, the other refuses the very next round of every family', async () => {
    const op = await newOperator();
    const player = await newPlayer(op);
    const s = await slotSession(op, player);
    const m = await minesSession(op, player);
    const c = await crashSession(op, player);
    // The second process plays first: its operator cache holds the operator as active.
    const warm = await spin(s.token, { bet_minor: 100 }, h2.game);
    assert.equal(warm.status, 200, warm.text);
    assert.equal(warm.json.status, 'completed');

    await setStatus(op, 'inactive', h.base);
    const t0 = Date.now();
    const refusals = await Promise.all([
      spin(s.token, { bet_minor: 100 }, h2.game),
      runtime(h2.game, m.token, 'POST', '/api/runtime/native/bet', { stake_minor: 100, mines: 3 }),
      crashBet(c.token, c.sessionId, () => true, h2.game),
    ]);
    assertSuspended(refusals[0], 'slot spin on the other process');
    assertSuspended(refusals[1], 'native bet on the other process');
    assertSuspended(refusals[2], 'crash bet on the other process');
    assert.ok(Date.now() - t0 < 5_000, 'within the bound');
    for (const session of [m.sessionId, c.sessionId])
      assert.deepEqual(await journalled(session), { rounds: 0, transactions: 0 });
    assert.equal((await journalled(s.sessionId)).rounds, 1);
  });

  test('atomic: a suspension committed while a bet is past authentication stops its round (slot, native, crash)', async () => {
    const op = await newOperator();
    const player = await newPlayer(op);
    const s = await slotSession(op, player);
    const m = await minesSession(op, player);
    const c = await crashSession(op, player);
    const state = await runtime(h.game, c.token, 'GET', '/api/runtime/crash/state');
    assert.equal(state.status, 200, state.text);
    const seed = await crashSeedFor(c.sessionId, () => true);
    // Each bet authenticates while the operator is still active, then waits in the statement that
    // would record its round until the suspension commits.
    assertSuspended(await racing(suspension(op), () => spin(s.token), SPIN_STATEMENT), 'racing spin');
    await setStatus(op, 'active');
    assertSuspended(
      await racing(
        suspension(op),
        () => runtime(h.game, m.token, 'POST', '/api/runtime/native/bet', { stake_minor: 100, mines: 3 }),
        '%',
      ),
      'racing native bet',
    );
    await setStatus(op, 'active');
    assertSuspended(
      await racing(
        suspension(op),
        () =>
          runtime(h.game, c.token, 'POST', '/api/runtime/crash/bet', {
            stake_minor: 100,
            client_seed: seed,
            commitment: state.json.next.commitment,
          }),
        '%',
      ),
      'racing crash bet',
    );
    for (const session of [s.sessionId, m.sessionId, c.sessionId])
      assert.deepEqual(await journalled(session), { rounds: 0, transactions: 0 });
    assert.equal(await balanceOf(op, player), 100_000n);
    assert.equal(await balanceOf(op, player, 'USD'), 100_000n);
  });
});

describe('a revoked session', () => {
  test('a spin recorded before the revocation settles; the session plays no more (slot, native, crash)', async () => {
    const op = await newOperator();
    const player = await newPlayer(op);
    const s = await slotSession(op, player);
    await admin.setFaults({ latencyMs: [1500, 1500], latencyRate: 1 });
    let inFlight: Awaited<ReturnType<typeof spin>>;
    try {
      const pending = spin(s.token);
      await until('the round recorded', async () => (await journalled(s.sessionId)).rounds === 1);
      await revoke(s.sessionId);
      inFlight = await pending;
    } finally {
      await admin.setFaults({});
    }
    assert.equal(inFlight.status, 200, inFlight.text);
    assert.equal(inFlight.json.status, 'completed', 'a round recorded before the revocation settles');
    const balance = await balanceOf(op, player);
    assert.equal(balance, 100_000n - 100n + BigInt(inFlight.json.win_minor), 'the credit arrived');
    const refused = await spin(s.token);
    assert.equal(refused.status, 401, refused.text);
    assert.deepEqual(await journalled(s.sessionId), { rounds: 1, transactions: 2 });

    const m = await minesSession(op, player);
    const c = await crashSession(op, player);
    await crashBet(c.token, c.sessionId, (cents) => cents <= 150).then((r) =>
      assert.equal(r.status, 200, r.text),
    );
    await settled(
      (await h.db.pool.query(`SELECT round_id FROM rounds WHERE session_id = $1`, [c.sessionId])).rows[0]
        .round_id,
    );
    await revoke(m.sessionId);
    await revoke(c.sessionId);
    const cBefore = await journalled(c.sessionId);
    const nativeBet = await runtime(h.game, m.token, 'POST', '/api/runtime/native/bet', {
      stake_minor: 100,
      mines: 3,
    });
    assert.equal(nativeBet.status, 401, nativeBet.text);
    const crash = await runtime(h.game, c.token, 'POST', '/api/runtime/crash/bet', {
      stake_minor: 100,
      client_seed: 'pick-0',
      commitment: '0'.repeat(64),
    });
    assert.equal(crash.status, 401, crash.text);
    assert.deepEqual(await journalled(m.sessionId), { rounds: 0, transactions: 0 });
    assert.deepEqual(await journalled(c.sessionId), cBefore);
  });

  test('atomic: a revocation committed while a bet is past authentication stops its round (slot, native)', async () => {
    const op = await newOperator();
    const player = await newPlayer(op);
    const s = await slotSession(op, player);
    const m = await minesSession(op, player);
    const spun = await racing(revocation(s.sessionId), () => spin(s.token), SPIN_STATEMENT);
    assert.equal(spun.status, 401, spun.text);
    assert.equal(spun.json.error, 'session_revoked');
    const bet = await racing(
      revocation(m.sessionId),
      () => runtime(h.game, m.token, 'POST', '/api/runtime/native/bet', { stake_minor: 100, mines: 3 }),
      '%',
    );
    assert.equal(bet.status, 401, bet.text);
    assert.equal(bet.json.error, 'session_revoked');
    for (const session of [s.sessionId, m.sessionId])
      assert.deepEqual(await journalled(session), { rounds: 0, transactions: 0 });
    assert.equal(await balanceOf(op, player), 100_000n);
  });
});
