import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, assign, call, type Harness, launchProbe } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';

// The whole spin path, real parts only: API -> engine (CSPRNG) -> round + intent in PostgreSQL ->
// settlement workflow on the Temporal dev server -> signed debit and credit to the sandbox wallet.
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const slotB = CATALOG.find((e) => e.provider_id === 'prov_b' && e.release.status === 'accepted')!;
let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

before(async () => {
  w = await startPlayWorld({ queue: 'spin', operators: [{ id: 'op_spin', titles: [slot.symbol] }] });
  ({ h, admin, key } = w);
});
after(() => w.close());

const launch = async (player: string) =>
  (await w.launch(key, { symbol: slot.symbol, external_player_id: player })).token!;
const spinCall = (token: string, body: unknown) => w.runtime(token, 'POST', '/api/runtime/spin', body);

test('a spin settles through Temporal and the page gets the balance the wallet recorded', async () => {
  await admin.createPlayer({
    operatorId: 'op_spin',
    playerId: 'spin-p1',
    currency: 'EUR',
    balanceMinor: 100_000,
  });
  const token = await launch('spin-p1');
  let expected = 100_000n;
  for (let i = 0; i < 5; i++) {
    const res = await spinCall(token, { bet_minor: 100 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'completed');
    expected += BigInt(res.json.win_minor) - BigInt(res.json.bet_minor);
    const wallet = await admin.balance('op_spin', 'spin-p1', 'EUR');
    assert.equal(BigInt(wallet.balance_minor), expected);
    assert.equal(res.json.balance, wallet.balance, 'the page shows the settled balance');
    const { rows } = await h.db.pool.query(
      `SELECT status, bet_minor, win_minor, outcome IS NOT NULL AS has_outcome FROM rounds WHERE round_id = $1`,
      [res.json.round_id],
    );
    assert.deepEqual(rows[0], {
      status: 'completed',
      bet_minor: BigInt(res.json.bet_minor),
      win_minor: BigInt(res.json.win_minor),
      has_outcome: true,
    });
  }
});

test('bets outside the operator limits are 422; insufficient funds is a rejected round', async () => {
  await admin.createPlayer({ operatorId: 'op_spin', playerId: 'spin-p2', currency: 'EUR', balanceMinor: 50 });
  const token = await launch('spin-p2');
  assert.equal((await spinCall(token, { bet_minor: 1 })).status, 422);
  assert.equal((await spinCall(token, { bet_minor: 10_000_000 })).status, 422);
  assert.equal((await spinCall(token, { bet_minor: 'x' })).status, 422);
  const res = await spinCall(token, { bet_minor: 100 });
  assert.equal(res.status, 200);
  assert.deepEqual([res.json.status, res.json.error], ['rejected', 'insufficient_funds']);
  assert.equal((await admin.balance('op_spin', 'spin-p2', 'EUR')).balance_minor, '50');
});

test('runtime routes refuse a missing or stale token', async () => {
  assert.equal((await spinCall('nope', { bet_minor: 100 })).status, 401);
});

test('what is debited stays within the operator limits: a special bet above the maximum is 422', async () => {
  await admin.createPlayer({
    operatorId: 'op_spin',
    playerId: 'spin-p3',
    currency: 'EUR',
    balanceMinor: 10_000_000,
  });
  const token = await launch('spin-p3');
  // The default maximum is 100000 minor units: the bet itself is allowed, bet x level 2 is not.
  const res = await spinCall(token, { bet_minor: 100_000, mode: 'special', bet_level: 2 });
  assert.equal(res.status, 422, res.text);
  assert.match(res.text, /above the operator's maximum/);
  assert.equal((await admin.balance('op_spin', 'spin-p3', 'EUR')).balance_minor, '10000000');
  const { rows } = await h.db.pool.query(
    `SELECT count(*)::int AS n FROM rounds WHERE session_id = (SELECT session_id FROM sessions s
       JOIN players p ON p.player_id = s.player_id WHERE p.external_player_id = 'spin-p3' LIMIT 1)`,
  );
  assert.equal(rows[0].n, 0, 'no round is written for a refused play');
});

test('prov_b with its switch on, end to end: launch, spins settled by the workflow, the coin kept', async () => {
  const launchB = (body: Record<string, unknown>) =>
    call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key,
      body: { symbol: slotB.symbol, external_player_id: 'spin-b1', ...body },
    });
  const setSwitch = async (enabled: boolean) => {
    const res = await call(h.base, 'PUT', '/api/admin/v1/providers/prov_b/switch', {
      key: ADMIN_KEY,
      body: { enabled },
      sign: true,
    });
    assert.equal(res.status, 200, res.text);
  };
  await assign(h.base, 'op_spin', [slotB.symbol]);
  assert.equal((await launchB({})).status, 409, 'prov_b is off by default');
  await admin.createPlayer({
    operatorId: 'op_spin',
    playerId: 'spin-b1',
    currency: 'EUR',
    balanceMinor: 100_000,
  });
  await setSwitch(true);
  try {
    // The settlement runtime answers: the launch's cached probe says so (no 502).
    const probe = launchProbe(h)!;
    await probe.refresh();
    assert.notEqual(probe.verdict().state, 'unavailable');

    const launched = await launchB({ coin: '0.50', device: 'tablet', return_url: 'http://lobby.example/' });
    assert.equal(launched.status, 200, launched.text);
    assert.equal(launched.json.data.launch_url, launched.json.launch_url);
    assert.deepEqual(launched.json.operator_integration, {
      mode: 'operator-wallet',
      wallet_callback: true,
      balance_refresh: false,
    });
    const url = new URL(launched.json.launch_url);
    assert.equal(url.pathname, '/gs2c/html5Game.do');
    assert.equal(url.searchParams.get('symbol'), slotB.symbol);
    let token = url.searchParams.get('mgckey')!;
    assert.ok(token.length >= 43);
    const minutes = (Date.parse(launched.json.expires_at) - Date.now()) / 60_000;
    assert.ok(minutes > 29 && minutes <= 30, `an inactivity deadline of 30 minutes (${minutes})`);
    const page = await call(h.game, 'GET', url.pathname + url.search);
    assert.equal(page.status, 200, 'the launch URL opens the slot page unchanged');
    const session = await call(h.game, 'GET', '/api/runtime/session', {
      headers: { 'x-session-token': token },
    });
    assert.equal(session.status, 200, session.text);
    assert.deepEqual(
      [session.json.provider_id, session.json.coin_minor, session.json.currency, session.json.device],
      ['prov_b', '50', 'EUR', 'mobile'],
    );

    let expected = 100_000n;
    const rounds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await spinCall(token, { bet_minor: 100 });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.status, 'completed');
      expected += BigInt(res.json.win_minor) - BigInt(res.json.bet_minor);
      const held = await admin.balance('op_spin', 'spin-b1', 'EUR');
      assert.equal(BigInt(held.balance_minor), expected);
      assert.equal(res.json.balance, held.balance, 'the page shows the balance the wallet recorded');
      rounds.push(res.json.round_id);
    }

    // An unfinished round (the wallet answers slowly): a relaunch keeps its coin and currency.
    await admin.setFaults({ latencyMs: [2_000, 2_000], latencyRate: 1 });
    let slow: Awaited<ReturnType<typeof spinCall>> | undefined;
    try {
      const pending = spinCall(token, { bet_minor: 200 });
      const openRound = await (async () => {
        for (let i = 0; i < 100; i++) {
          const { rows } = await h.db.pool.query(
            `SELECT round_id FROM rounds WHERE session_id = $1 AND status = 'open'`,
            [launched.json.session_id],
          );
          if (rows[0]) return rows[0].round_id as string;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('no open round');
      })();
      const usd = await launchB({ currency: 'USD' });
      assert.equal(usd.status, 409, 'the unfinished round keeps its currency');
      const relaunch = await launchB({ coin: '1.00' });
      assert.equal(relaunch.status, 200, relaunch.text);
      assert.equal(relaunch.json.session_id, launched.json.session_id, 'the session resumes');
      token = new URL(relaunch.json.launch_url).searchParams.get('mgckey')!;
      const resumed = await call(h.game, 'GET', '/api/runtime/session', {
        headers: { 'x-session-token': token },
      });
      assert.equal(resumed.json.coin_minor, '50', 'the unfinished round keeps its coin');
      slow = await pending;
      assert.equal(slow.status, 200, slow.text);
      assert.equal(slow.json.round_id, openRound);
    } finally {
      await admin.setFaults({});
    }
    assert.ok(slow);
    assert.equal(slow.json.status, 'completed');
    expected += BigInt(slow.json.win_minor) - BigInt(slow.json.bet_minor);
    rounds.push(slow.json.round_id);
    assert.equal(BigInt((await admin.balance('op_spin', 'spin-b1', 'EUR')).balance_minor), expected);
    // Nothing unfinished: a relaunch takes the new coin.
    const later = await launchB({ coin: '1.00' });
    const refreshed = await call(h.game, 'GET', '/api/runtime/session', {
      headers: { 'x-session-token': new URL(later.json.launch_url).searchParams.get('mgckey')! },
    });
    assert.equal(refreshed.json.coin_minor, '100');

    // Every round settled through the workflow: one debit and one credit each, at the wallet too.
    const { rows } = await h.db.pool.query(
      `SELECT r.round_id, r.provider_id, r.status, r.bet_minor, r.win_minor,
              (SELECT array_agg(t.transaction_type || ':' || t.amount_minor || ':' || t.status ORDER BY t.created_at)
               FROM wallet_transactions t WHERE t.round_id = r.round_id) AS journal,
              (SELECT coalesce(sum(w.player_delta_minor), 0) FROM wallet.transactions w
               WHERE w.operator_id = r.operator_id AND w.round_id = r.round_id)::bigint AS wallet_net
       FROM rounds r WHERE r.round_id = ANY($1) ORDER BY r.created_at`,
      [rounds],
    );
    assert.equal(rows.length, 4);
    for (const r of rows) {
      assert.equal(r.provider_id, 'prov_b');
      assert.equal(r.status, 'completed');
      assert.deepEqual(r.journal, [`debit:${r.bet_minor}:success`, `credit:${r.win_minor}:success`]);
      assert.equal(r.wallet_net, r.win_minor - r.bet_minor, `${r.round_id}: the wallet moved win - bet`);
    }
  } finally {
    await setSwitch(false);
  }
  assert.equal((await launchB({})).status, 409, 'switched off again');
});

test('spins racing on one session: one round between them, the others 409; the debit journalled with the round', async () => {
  await admin.createPlayer({
    operatorId: 'op_spin',
    playerId: 'spin-race',
    currency: 'EUR',
    balanceMinor: 100_000,
  });
  const token = await launch('spin-race');
  const answers = await Promise.all(Array.from({ length: 6 }, () => spinCall(token, { bet_minor: 100 })));
  const statuses = answers.map((a) => a.status).sort();
  assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409], answers.map((a) => a.text).join('\n'));
  const won = answers.find((a) => a.status === 200)!;
  for (const a of answers.filter((x) => x.status === 409)) assert.match(a.json.detail, /still being settled/);
  const { rows } = await h.db.pool.query<{ round_id: string; n: string }>(
    `SELECT r.round_id, (SELECT count(*) FROM wallet_transactions t WHERE t.round_id = r.round_id AND t.transaction_type = 'debit') AS n
     FROM rounds r JOIN sessions s USING (session_id) WHERE s.player_id = (SELECT player_id FROM players WHERE external_player_id = 'spin-race')`,
  );
  assert.deepEqual(
    rows.map((r) => [r.round_id, Number(r.n)]),
    [[won.json.round_id, 1]],
  );
  const again = await spinCall(token, { bet_minor: 100 });
  assert.equal(again.status, 200, 'the next spin is taken once the round settled');
});
