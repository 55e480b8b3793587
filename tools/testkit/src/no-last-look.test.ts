import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { crashRuntime } from '@opi/game-server/crash/runtime';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, gameUrl, type Harness } from './harness.js';
import { type PlayWorld, startPlayWorld } from './play-world.js';
import { until } from './until.js';

/*
 * Issue 34 point 2, no last look, on the real stack (API, game server, PostgreSQL, Temporal, the
 * sandbox wallet over HTTP). A jackpot hit and a prize-drop award are written with their round,
 * before its debit; a native round's first stage (the Dice roll) with its bet; a crash round's
 * crash point is fixed at the bet. While the sandbox wallet holds each round's debit (latency
 * fault: 9 s on every wallet call), no read tells any of it: the operator's round reads, jackpot
 * contributions and wins, promotional payouts (list and by id), reconciliation, the prize-drop
 * feed, the tournament leaderboard, the native history, the staff portal's round, jackpot and
 * prize-drop reads, the player's history and round read, the crash round and fairness reads, and
 * the replay page. The debits are checked to be still pending after the reads, so every read was
 * made while they were held. Then the wallet answers and the same reads show the results, so the
 * rule hides only what is not yet due.
 */
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const OP = 'op_last_look';
const RUN = randomUUID().slice(0, 8);
const JACKPOT = `ll-jp-${RUN}`;
const DROP = `ll-drop-${RUN}`;
const TOURNAMENT = `ll-t-${RUN}`;
const HOLD_MS = 9_000;

let w: PlayWorld;
let h: Harness;
let key = '';
let staffToken = '';

const admin = (method: string, path: string, body?: unknown) =>
  call(h.base, method, `/api/admin/v1${path}`, { key: ADMIN_KEY, sign: true, ...(body ? { body } : {}) });
const audit = (path: string) => call(h.base, 'GET', `/api/operator/v1${path}`, { key, sign: true });
const provider = (path: string) => call(h.base, 'GET', `/api/provider/v1${path}`, { key, sign: true });
const staff = (path: string) =>
  call(h.base, 'GET', `/api/staff/v1/operators/${OP}${path}`, {
    headers: { authorization: `Bearer ${staffToken}` },
  });
const ok = async (res: Promise<{ status: number; text: string; json: any }>, status = 200) => {
  const r = await res;
  assert.equal(r.status, status, r.text);
  return r.json;
};

before(async () => {
  w = await startPlayWorld({
    queue: 'no-last-look',
    // The spin answers `pending` at once; the worker waits for the held wallet.
    env: { SPIN_WAIT_MS: '300' },
    worker: { settlement: { walletTimeoutMs: 30_000 } },
    operatorWalletTitles: ['cndice'],
    operators: [
      {
        id: OP,
        titles: [slot.symbol, 'cndice', 'dcrash1'],
        settings: { allowed_currencies: ['EUR', 'USD'] },
      },
    ],
  });
  h = w.h;
  key = w.key;
  // A bet held at the wallet stays `debiting` (no abort within the hold).
  crashRuntime(h.gameDeps).options.startWindowMs = 60_000;
  const now = Date.now();
  await ok(
    admin('PUT', `/jackpots/${JACKPOT}`, {
      name: 'Last look jackpot',
      scope: 'operator',
      operator_id: OP,
      titles: [slot.symbol],
      levels: [
        {
          level: 'mini',
          contribution_rate_ppm: 10_000,
          currencies: { EUR: { seed_minor: 500, hit_every_minor: 1 } },
        },
      ],
    }),
    201,
  );
  await ok(
    admin('PUT', `/prize-drops/${DROP}`, {
      name: 'Last look drop',
      starts_at: new Date(now - 60_000).toISOString(),
      ends_at: new Date(now + 86_400_000).toISOString(),
      titles: [slot.symbol],
      currencies: { EUR: { prize_minor: 250, prizes: 10, min_stake_minor: 100, award_every_spins: 1 } },
    }),
    201,
  );
  await ok(admin('PUT', `/prize-drops/${DROP}/operators/${OP}`, { enabled: true }));
  await ok(
    admin('PUT', `/tournaments/${TOURNAMENT}`, {
      name: 'Last look race',
      scoring: 'total_win',
      starts_at: new Date(now - 60_000).toISOString(),
      ends_at: new Date(now + 86_400_000).toISOString(),
      titles: [slot.symbol],
      currencies: { EUR: { min_stake_minor: 100, prizes: [1_000] } },
    }),
    201,
  );
  await ok(admin('PUT', `/tournaments/${TOURNAMENT}/operators/${OP}`, { enabled: true }));
  const created = await ok(
    admin('POST', '/staff', {
      username: `ll.viewer.${RUN}`,
      display_name: 'Last Look Viewer',
      roles: [{ operator_id: OP, role: 'viewer' }],
      password: 'last-look-viewer-password-1',
    }),
    201,
  );
  const login = await ok(
    call(h.base, 'POST', '/api/staff/v1/login', {
      body: { username: created.data.username, password: 'last-look-viewer-password-1' },
    }),
  );
  staffToken = login.data.token;

  // Warm the game server's caches: a player spins until a round feeds the jackpot and wins the drop.
  const warm = await w.newPlayer(OP, { prefix: 'll-warm' });
  const { token } = await w.launch(key, { symbol: slot.symbol, external_player_id: warm });
  await until('the jackpot and the drop reach the game server', async () => {
    const res = await w.spin(token!, { bet_minor: 100 });
    if (res.status !== 200) return false;
    await until('the warm-up round settles', async () => {
      const { rows } = await h.db.pool.query(`SELECT status FROM rounds WHERE round_id = $1`, [
        res.json.round_id,
      ]);
      return rows[0]?.status !== 'open';
    });
    const { rows } = await h.db.pool.query(
      `SELECT jackpot_id, prize_drop_payout_id FROM rounds WHERE round_id = $1`,
      [res.json.round_id],
    );
    const won = await h.db.pool.query(
      `SELECT 1 FROM promo_payouts WHERE promo_id = $1 AND external_player_id = $2`,
      [DROP, warm],
    );
    return rows[0]?.jackpot_id != null && won.rows.length > 0;
  });
});
after(() => w.close());

/** The journal status of a round's debit. */
async function debitStatus(roundId: string): Promise<string | undefined> {
  const { rows } = await h.db.pool.query(`SELECT status FROM wallet_transactions WHERE transaction_id = $1`, [
    `${roundId}:debit`,
  ]);
  return rows[0]?.status;
}

async function replayPage(link: string): Promise<string> {
  const res = await fetch(gameUrl(h, link));
  const html = await res.text();
  assert.equal(res.status, 200, html.slice(0, 300));
  return html;
}

describe('no last look', () => {
  test('while the wallet holds the debits nothing of the rounds’ results is readable; after, it is', async () => {
    const player = await w.newPlayer(OP, { prefix: 'll-p' });
    const slotLaunch = await w.launch(key, { symbol: slot.symbol, external_player_id: player });
    const dicePlayer = await w.newPlayer(OP, { prefix: 'll-d' });
    const diceLaunch = await w.launch(key, { symbol: 'cndice', external_player_id: dicePlayer });
    const ex = await ok(
      call(h.game, 'POST', '/api/runtime/native/session-from-grant', { body: { grant: diceLaunch.grant } }),
    );
    const diceToken = ex.token as string;
    // The crash titles play in USD.
    const crashPlayer = await w.newPlayer(OP, { prefix: 'll-c', currency: 'USD' });
    const crashLaunch = await w.launch(key, {
      symbol: 'dcrash1',
      external_player_id: crashPlayer,
      currency: 'USD',
    });
    const auth = await ok(
      call(h.game, 'POST', '/api/runtime/crash/authorize', {
        headers: { 'x-login-grant': crashLaunch.login! },
      }),
    );
    const crashToken = auth.session_token as string;
    const crashState = await ok(
      call(h.game, 'GET', '/api/runtime/crash/state', { headers: { 'x-session-token': crashToken } }),
    );
    const feedBefore = (await ok(provider('/prize-drops'))).data.items.find((d: any) => d.drop_id === DROP)
      .pools[0].prizes_left as number;
    const staffDropBefore = (await ok(staff(`/prize-drops/${DROP}`))).data.pools[0].awarded_here as number;

    // The wallet holds every call from now on.
    await w.admin.setFaults({ latencyMs: [HOLD_MS, HOLD_MS], latencyRate: 1 });
    const spin = await w.spin(slotLaunch.token!, { bet_minor: 100 });
    assert.equal(spin.status, 200, spin.text);
    assert.equal(spin.json.status, 'pending');
    const roundId = spin.json.round_id as string;
    const diceBet = call(h.game, 'POST', '/api/runtime/native/bet', {
      headers: { 'x-session-token': diceToken },
      body: { stake_minor: 100, target: 5000 },
    });
    const crashBet = call(h.game, 'POST', '/api/runtime/crash/bet', {
      headers: { 'x-session-token': crashToken },
      body: {
        stake_minor: 100,
        client_seed: 'last-look',
        commitment: crashState.next.commitment,
        auto_cashout: '1.01',
      },
    });
    const roundOf = async (sessionId: string) =>
      until(`the round of ${sessionId}`, async () => {
        const { rows } = await h.db.pool.query(`SELECT round_id FROM rounds WHERE session_id = $1`, [
          sessionId,
        ]);
        return rows[0]?.round_id as string | undefined;
      });
    const diceRound = await roundOf(diceLaunch.sessionId);
    const crashRound = await roundOf(crashLaunch.sessionId);

    // What was decided with the rounds, before their debits: the point of the test.
    const decided = await h.db.pool.query(
      `SELECT r.jackpot_win_minor, r.prize_drop_payout_id,
              (SELECT count(*)::int FROM jackpot_hits j WHERE j.round_id = r.round_id) AS hits,
              (SELECT count(*)::int FROM round_stages s WHERE s.round_id = $2) AS dice_stages
         FROM rounds r WHERE r.round_id = $1`,
      [roundId, diceRound],
    );
    const payoutId = decided.rows[0].prize_drop_payout_id as string;
    assert.ok(BigInt(decided.rows[0].jackpot_win_minor) > 0n, 'the spin hit the jackpot');
    assert.equal(decided.rows[0].hits, 1);
    assert.ok(payoutId, 'the spin won the drop');
    assert.equal(decided.rows[0].dice_stages, 1, 'the dice roll is written with the bet');
    // Native and crash debits are journalled when first sent (the slot's with its round).
    for (const id of [roundId, diceRound, crashRound])
      await until(`${id}: its debit sent and held`, async () => (await debitStatus(id)) === 'pending');

    // ── the operator's reads ──
    const round = (await ok(audit(`/rounds/${roundId}`))).data;
    assert.deepEqual([round.status, round.win_minor, round.jackpot_win_minor], ['open', 0, 0], 'round read');
    const listed = (await ok(audit(`/rounds?session_id=${slotLaunch.sessionId}`))).data.items;
    assert.deepEqual(
      listed.map((r: any) => [r.round_id, r.jackpot_win_minor]),
      [[roundId, 0]],
      'round search',
    );
    const contributions = (await ok(audit(`/jackpot-contributions?session_id=${slotLaunch.sessionId}`))).data
      .items;
    assert.deepEqual(
      contributions.map((c: any) => c.jackpot_win_minor),
      [0],
      'jackpot contributions',
    );
    assert.deepEqual((await ok(audit(`/jackpot-wins?round_id=${roundId}`))).data.items, [], 'jackpot wins');
    assert.deepEqual(
      (await ok(audit(`/promo-payouts?promo_id=${DROP}&player_id=${player}`))).data.items,
      [],
      'promo payouts',
    );
    const byId = await audit(`/promo-payouts/${payoutId}`);
    assert.equal(byId.status, 404, `promo payout by id: ${byId.text}`);
    const created = Date.parse(round.created_at);
    const window = `from=${new Date(created - 1).toISOString()}&to=${new Date(created + 1).toISOString()}&currency=EUR`;
    const recon = (await ok(audit(`/reconciliation?${window}`))).data;
    const item = recon.items.find((i: any) => i.round_id === roundId);
    assert.equal(item?.game_delta_minor, -100, 'reconciliation: the round’s game side is its stake only');
    assert.deepEqual(
      recon.jackpots.map((j: any) => [j.hits_pending, j.win_pending_minor, j.hits_paid]),
      recon.jackpots.length ? [[0, 0, 0]] : [],
      'reconciliation: no hit',
    );
    assert.deepEqual(
      recon.promo_payouts.map((p: any) => p.payouts),
      recon.promo_payouts.length ? [0] : [],
      'reconciliation: no award',
    );
    assert.equal(
      recon.currencies.find((c: any) => c.currency === 'EUR')?.game_delta_minor,
      -100,
      'reconciliation totals',
    );
    const feed = (await ok(provider('/prize-drops'))).data.items.find((d: any) => d.drop_id === DROP);
    assert.equal(feed.pools[0].prizes_left, feedBefore, 'the prize-drop feed: no prize gone');
    const board = (await ok(provider(`/tournaments/${TOURNAMENT}/leaderboard?currency=EUR&limit=100`))).data;
    assert.ok(
      !board.leaderboards[0].items.some((i: any) => i.player_id === player),
      'the leaderboard counts no unconfirmed round',
    );
    const nativeSession = await ok(provider(`/native/history?session_id=${diceLaunch.sessionId}`));
    assert.deepEqual(nativeSession.stages, [], 'native session history');
    const nativeRound = (
      await ok(provider(`/native/history/${diceRound}?session_id=${diceLaunch.sessionId}`))
    ).data;
    assert.deepEqual(nativeRound.stages, [], 'native round history: no stage');
    assert.equal(nativeRound.intent.winMinor, null, 'native round history: no win in the intent');

    // ── the staff portal's reads ──
    const staffRound = (await ok(staff(`/rounds/${roundId}`))).data;
    assert.equal(staffRound.jackpot_win_minor, 0, 'staff round');
    assert.deepEqual((await ok(staff(`/rounds/${diceRound}`))).data.stages, [], 'staff dice round stages');
    assert.deepEqual((await ok(staff(`/rounds/${crashRound}`))).data.stages, [], 'staff crash round stages');
    const staffJackpots = (await ok(staff(`/jackpots?round_id=${roundId}`))).data;
    assert.deepEqual(staffJackpots.hits.items, [], 'staff jackpot hits');
    const staffDrop = (await ok(staff(`/prize-drops/${DROP}`))).data;
    assert.equal(staffDrop.pools[0].awarded_here, staffDropBefore, 'staff prize drop: awards');
    assert.ok(
      !staffDrop.awards.items.some((a: any) => a.player_id === player),
      'staff prize drop: award list',
    );

    // ── the player's reads ──
    const history = await ok(
      call(h.game, 'GET', '/api/runtime/history', { headers: { 'x-session-token': slotLaunch.token! } }),
    );
    const mine = history.rounds.find((r: any) => r.round_id === roundId);
    assert.deepEqual([mine.status, mine.win_minor, mine.jackpot_win_minor], ['open', '0', '0'], 'history');
    const status = await ok(w.runtime(slotLaunch.token!, 'GET', `/api/runtime/rounds/${roundId}`));
    assert.deepEqual(
      [status.outcome, status.jackpot_wins, status.prize_drop],
      [null, [], null],
      'round status',
    );
    const crashRead = await ok(
      call(h.game, 'GET', `/api/runtime/crash/rounds/${crashRound}`, {
        headers: { 'x-session-token': crashToken },
      }),
    );
    assert.deepEqual(
      [crashRead.state, crashRead.crash_point, crashRead.fairness.server_seed],
      ['debiting', null, null],
      'crash round',
    );
    assert.equal((await fetch(`${h.game}/games/fairness/${crashRound}`)).status, 404, 'crash fairness');

    // ── the replay page (the operator's details link and the player's share link) ──
    for (const link of [round.round_details_url, mine.replay_url]) {
      const html = await replayPage(link);
      assert.ok(html.includes('data-testid="replay-no-outcome"'), 'replay: no outcome');
      assert.ok(!html.includes('replay-jackpot'), 'replay: no jackpot marker');
      assert.ok(!html.includes('data-testid="replay-cell"'), 'replay: no reels');
    }
    const diceDetail = (await ok(audit(`/rounds/${diceRound}`))).data.round_details_url;
    const dicePage = await replayPage(diceDetail);
    assert.ok(!dicePage.includes('replay-roll') && dicePage.includes('replay-no-outcome'), 'replay: no roll');
    const crashPage = await replayPage((await ok(audit(`/rounds/${crashRound}`))).data.round_details_url);
    assert.ok(!crashPage.includes('replay-curve') && !crashPage.includes('replay-data'), 'replay: no crash');

    // Every read above was made while the wallet held the debits.
    for (const id of [roundId, diceRound, crashRound])
      assert.equal(await debitStatus(id), 'pending', `${id}: the debit was still held`);

    // ── the wallet answers: the same reads tell the results ──
    await w.admin.setFaults({});
    await until(
      'the slot round, its jackpot credit and its prize paid',
      async () => {
        const { rows } = await h.db.pool.query(
          `SELECT r.status, (SELECT count(*)::int FROM jackpot_hits j WHERE j.round_id = r.round_id AND j.status = 'paid') AS paid,
                  (SELECT status FROM promo_payouts WHERE payout_id = $2) AS award
             FROM rounds r WHERE r.round_id = $1`,
          [roundId, payoutId],
        );
        return rows[0]?.status === 'completed' && rows[0].paid === 1 && rows[0].award === 'paid';
      },
      60_000,
    );
    const done = (await ok(audit(`/rounds/${roundId}`))).data;
    assert.equal(BigInt(done.jackpot_win_minor), BigInt(decided.rows[0].jackpot_win_minor));
    assert.equal((await ok(audit(`/jackpot-wins?round_id=${roundId}`))).data.items.length, 1);
    assert.equal((await audit(`/promo-payouts/${payoutId}`)).status, 200);
    const after = await ok(
      call(h.game, 'GET', '/api/runtime/history', { headers: { 'x-session-token': slotLaunch.token! } }),
    );
    assert.equal(
      after.rounds.find((r: any) => r.round_id === roundId).jackpot_win_minor,
      String(decided.rows[0].jackpot_win_minor),
    );
    assert.ok((await replayPage(done.round_details_url)).includes('data-testid="replay-jackpot"'));
    await until('the round counts in the tournament', async () => {
      const b = (await ok(provider(`/tournaments/${TOURNAMENT}/leaderboard?currency=EUR&limit=100`))).data;
      return b.leaderboards[0].items.some((i: any) => i.player_id === player);
    });
    const diceAnswer = await diceBet;
    assert.equal(diceAnswer.status, 200, diceAnswer.text);
    await until('the dice round settles', async () => (await debitStatus(diceRound)) === 'success');
    const diceHistory = (
      await ok(provider(`/native/history/${diceRound}?session_id=${diceLaunch.sessionId}`))
    ).data;
    assert.ok(diceHistory.stages.length >= 1, 'the roll is shown once the debit stands');
    assert.equal((await crashBet).status, 200);
    // Nothing left running when the world closes: the crash round settled, the tournament over.
    await until('the crash round settles', async () => {
      const { rows } = await h.db.pool.query(`SELECT settled FROM crash_rounds WHERE round_id = $1`, [
        crashRound,
      ]);
      return rows[0]?.settled === true;
    });
    await ok(admin('POST', `/tournaments/${TOURNAMENT}/cancel`, {}));
  });
});
