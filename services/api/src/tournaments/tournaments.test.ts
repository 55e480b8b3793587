import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import { startPayPromo, WORKFLOW_BUNDLE_PATH } from '@opi/workflows';
import { Worker } from '@temporalio/worker';

/*
 * Issue 25, tournaments and promotional payouts (docs/jackpots-and-promotions.md), real parts
 * only: the admin API defines tournaments a couple of seconds ahead; real spins through the game
 * server settle through Temporal at the sandbox wallet; the database's trigger scores the settled
 * rounds; at the end the workflow freezes the leaderboard and pays each prize as a promo_win
 * credit, exactly once. A cancelled tournament pays nothing.
 */

const slots = CATALOG.filter((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted');
const slot = slots[0]!;
const slot2 = slots[1]!;
const native = CATALOG.find((e) => e.provider_id === 'prov_c')!;

let w: PlayWorld;
let keyA = '';
let keyB = '';
let keyC = '';
// The window is set once the world is up: a start ten seconds ahead, an end fourteen seconds later.
let T0 = 0;
let STARTS = '';
let ENDS = '';
const sleepUntil = async (at: number) => {
  const ms = at - Date.now();
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
};

const admin = (method: string, path: string, body?: unknown) =>
  call(w.h.base, method, `/api/admin/v1${path}`, {
    key: ADMIN_KEY,
    sign: true,
    ...(body === undefined ? {} : { body }),
  });
const provider = (key: string, path: string) =>
  call(w.h.base, 'GET', `/api/provider/v1${path}`, { key, sign: true });

let RACE: Record<string, unknown> = {};
let TIES: Record<string, unknown> = {};
before(async () => {
  w = await startPlayWorld({
    queue: 'tournaments',
    client: true,
    operators: [
      { id: 'op_tn_a', titles: [slot.symbol, slot2.symbol] },
      { id: 'op_tn_b', titles: [slot.symbol] },
      { id: 'op_tn_c', titles: [slot.symbol] },
    ],
  });
  keyA = w.operators.op_tn_a!.key;
  keyB = w.operators.op_tn_b!.key;
  keyC = w.operators.op_tn_c!.key;
  T0 = Date.now();
  // Margins for a busy machine: the definition tests and the launches come before the start, the
  // counted spins, the ties and the cancel before the end.
  STARTS = new Date(T0 + 10_000).toISOString();
  ENDS = new Date(T0 + 24_000).toISOString();
  RACE = {
    name: 'Weekend race',
    scoring: 'total_win',
    starts_at: STARTS,
    ends_at: ENDS,
    titles: [slot.slug],
    currencies: { EUR: { min_stake_minor: 200, prizes: [5_000, '3000', 1_000] } },
  };
  TIES = {
    name: 'Multiplier ties',
    scoring: 'max_multiplier',
    starts_at: STARTS,
    ends_at: ENDS,
    titles: [slot2.symbol],
    currencies: { EUR: { min_stake_minor: 100, prizes: [900, 600, 300] } },
  };
  for (const [id, body] of [
    ['race', RACE],
    ['ties', TIES],
    ['called-off', { ...RACE, name: 'Called off' }],
  ] as const) {
    const res = await admin('PUT', `/tournaments/${id}`, body);
    assert.equal(res.status, 201, res.text);
  }
  for (const [t, op] of [
    ['race', 'op_tn_a'],
    ['race', 'op_tn_b'],
    ['ties', 'op_tn_a'],
    ['ties', 'op_tn_b'],
    ['called-off', 'op_tn_a'],
  ]) {
    const res = await admin('PUT', `/tournaments/${t}/operators/${op}`, { enabled: true });
    assert.equal(res.status, 200, res.text);
  }
});
after(() => w?.close());

describe('tournament definitions (provider admin API)', () => {
  test('201 with the definition; the same again 200; another body 409; listed', async () => {
    const again = await admin('PUT', '/tournaments/race', RACE);
    assert.equal(again.status, 200, again.text);
    const t = again.json.data;
    assert.equal(t.status, 'scheduled');
    assert.deepEqual(t.titles, [slot.symbol]);
    assert.deepEqual(t.currencies, [
      {
        currency: 'EUR',
        min_stake_minor: '200',
        prizes: [
          { rank: 1, amount_minor: '5000' },
          { rank: 2, amount_minor: '3000' },
          { rank: 3, amount_minor: '1000' },
        ],
      },
    ]);
    assert.deepEqual(t.operators, ['op_tn_a', 'op_tn_b']);
    assert.equal(Date.parse(t.starts_at), Date.parse(STARTS));
    assert.deepEqual(t.payouts, []);
    const changed = await admin('PUT', '/tournaments/race', {
      ...RACE,
      ends_at: new Date(T0 + 60_000).toISOString(),
    });
    assert.equal(changed.status, 409, changed.text);
    assert.match(changed.json.detail, /already defined differently/);
    const list = await admin('GET', '/tournaments');
    assert.deepEqual(list.json.data.items.map((x: any) => x.tournament_id).sort(), [
      'called-off',
      'race',
      'ties',
    ]);
  });

  test('bad definitions are 422 naming the field, and nothing is written', async () => {
    const future = (s: number) => new Date(Date.now() + s * 1000).toISOString();
    const cases: [unknown, RegExp][] = [
      [{ ...RACE, titles: ['no-such-title'] }, /unknown titles/],
      [{ ...RACE, titles: [native.symbol] }, /slot titles/],
      [{ ...RACE, starts_at: future(60), ends_at: future(30) }, /ends_at must be after starts_at/],
      // One instant for both (two calls may fall in two milliseconds on a loaded machine).
      ((at) => [{ ...RACE, starts_at: at, ends_at: at }, /ends_at/])(future(60)) as [unknown, RegExp],
      [{ ...RACE, starts_at: future(-120), ends_at: future(-60) }, /in the future/],
      [{ ...RACE, ends_at: future(400 * 86_400) }, /within 366 days/],
      [{ ...RACE, ends_at: '9999-12-31T23:59:59Z' }, /ends_at/],
      [{ ...RACE, starts_at: 'tomorrow' }, /starts_at/],
      [{ ...RACE, currencies: {} }, /currencies/],
      [{ ...RACE, currencies: { EUR: { min_stake_minor: 100, prizes: [] } } }, /prizes/],
      [{ ...RACE, currencies: { EUR: { min_stake_minor: 100, prizes: [100, 200] } } }, /must not increase/],
      [{ ...RACE, currencies: { EUR: { min_stake_minor: 0, prizes: [100] } } }, /min_stake_minor/],
      [{ ...RACE, currencies: { EUR: { min_stake_minor: 1, prizes: ['99999999999999999999'] } } }, /prizes/],
      [{ ...RACE, currencies: { EUR: { min_stake_minor: 1, prizes: [-5] } } }, /prizes/],
      [{ ...RACE, currencies: { eur: { min_stake_minor: 1, prizes: [5] } } }, /currenc/],
      [{ ...RACE, currencies: { EUR: { min_stake_minor: 1, prizes: Array(101).fill(1) } } }, /prizes/],
      // Not numbers at all (a refinement must not throw on them: 422, never 500).
      [{ ...RACE, currencies: { EUR: { min_stake_minor: 'x', prizes: ['abc', '5'] } } }, /prizes/],
      [{ ...RACE, currencies: { EUR: { min_stake_minor: 1, prizes: [5, '1e3', {}] } } }, /prizes/],
      [{ ...RACE, currencies: { EUR: { min_stake_minor: 1, prizes: 'x' } } }, /prizes/],
      [{ ...RACE, scoring: 'most_spins' }, /scoring/],
      [{ ...RACE, name: '' }, /name/],
      [{ ...RACE, name: 'x'.repeat(201) }, /name/],
    ];
    for (const [body, why] of cases) {
      const res = await admin('PUT', '/tournaments/bad-one', body);
      assert.equal(res.status, 422, `${JSON.stringify(body).slice(0, 160)}: ${res.text}`);
      assert.match(res.text, why);
    }
    assert.equal((await admin('PUT', '/tournaments/bad-one', '{"name":')).status, 400);
    assert.equal((await admin('GET', '/tournaments/bad-one')).status, 404);
    assert.equal((await admin('GET', '/tournaments/NOT-AN-ID')).status, 404);
    assert.equal((await admin('PUT', '/tournaments/NOT-AN-ID', RACE)).status, 404);
    assert.equal((await admin('POST', '/tournaments/no-such/cancel')).status, 404);
    assert.equal(
      (await admin('PUT', '/tournaments/race/operators/op_nobody', { enabled: true })).status,
      404,
    );
    assert.equal((await admin('PUT', '/tournaments/race/operators/op_tn_a', { enabled: 'yes' })).status, 422);
    assert.equal(
      (await admin('PUT', '/tournaments/no-such/operators/op_tn_a', { enabled: true })).status,
      404,
    );
  });

  test('operators see the tournaments they are in; a leaderboard of one they are not in is 404', async () => {
    const a = await provider(keyA, '/tournaments');
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.json.data.items.map((t: any) => t.tournament_id).sort(), [
      'called-off',
      'race',
      'ties',
    ]);
    assert.equal(a.json.data.items[0].operators, undefined, 'operators see no other operators');
    const b = await provider(keyB, '/tournaments');
    assert.deepEqual(b.json.data.items.map((t: any) => t.tournament_id).sort(), ['race', 'ties']);
    assert.deepEqual((await provider(keyC, '/tournaments')).json.data.items, []);
    assert.equal((await provider(keyC, '/tournaments/race/leaderboard')).status, 404);
    assert.equal((await provider(keyB, '/tournaments/called-off/leaderboard')).status, 404);
    assert.equal((await provider(keyA, '/tournaments/no-such/leaderboard')).status, 404);
    assert.equal((await provider(keyA, '/tournaments/race/leaderboard?limit=0')).status, 422);
    assert.equal((await provider(keyA, '/tournaments/race/leaderboard?limit=abc')).status, 422);
    assert.equal((await provider(keyA, '/tournaments/race/leaderboard?currency=eur')).status, 422);
    const empty = await provider(keyA, '/tournaments/race/leaderboard');
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.json.data, {
      tournament_id: 'race',
      status: 'scheduled',
      frozen: false,
      leaderboards: [{ currency: 'EUR', items: [] }],
    });
  });
});

describe('a tournament played, frozen and paid', () => {
  const players = {
    a1: `tn-a1-${randomUUID().slice(0, 6)}`,
    a2: `tn-a2-${randomUUID().slice(0, 6)}`,
    poor: `tn-poor-${randomUUID().slice(0, 6)}`,
    b1: `tn-b1-${randomUUID().slice(0, 6)}`,
    c1: `tn-c1-${randomUUID().slice(0, 6)}`,
  };
  const opOf = { a1: 'op_tn_a', a2: 'op_tn_a', poor: 'op_tn_a', b1: 'op_tn_b', c1: 'op_tn_c' } as const;
  const keyOf = () => ({ op_tn_a: keyA, op_tn_b: keyB, op_tn_c: keyC });
  const tokens: Record<string, string> = {};
  const counted: Record<string, bigint> = {};
  /** Records and settles a round in SQL for the ties (set by the ties test). */
  let lateRound: () => Promise<void> = async () => {};

  test('rounds count only once settled, in the window, in an opted-in operator, at the minimum stake', async () => {
    for (const [name, id] of Object.entries(players)) {
      const op = opOf[name as keyof typeof opOf];
      await w.newPlayer(op, { playerId: id, balanceMinor: name === 'poor' ? 50 : 1_000_000 });
      tokens[name] = (await w.launch(keyOf()[op], { symbol: slot.symbol, external_player_id: id })).token!;
    }
    // Before the start: settled, but not counted.
    assert.ok(Date.now() < Date.parse(STARTS) - 500, 'the test reached the spins before the start');
    const early = await w.spin(tokens.a1!, { bet_minor: 200 });
    assert.equal(early.json.status, 'completed', early.text);

    await sleepUntil(Date.parse(STARTS) + 300);
    const spin = async (name: string, bet: number) => {
      const res = await w.spin(tokens[name]!, { bet_minor: bet });
      assert.equal(res.status, 200, res.text);
      return res.json as { status: string; win_minor: string; error?: string };
    };
    for (let i = 0; i < 4; i++) {
      for (const name of ['a1', 'b1', 'c1']) {
        const r = await spin(name, 200);
        assert.equal(r.status, 'completed');
        if (name !== 'c1') counted[name] = (counted[name] ?? 0n) + BigInt(r.win_minor);
      }
      // Below the minimum stake: settled, not counted.
      assert.equal((await spin('a2', 100)).status, 'completed');
    }
    // A debit the wallet refuses: the round is rejected and never counts.
    const refused = await spin('poor', 200);
    assert.deepEqual([refused.status, refused.error], ['rejected', 'insufficient_funds']);

    const { rows } = await w.h.db.pool.query(
      `SELECT external_player_id, score::text, rounds_counted FROM tournament_scores WHERE tournament_id = 'race'
        ORDER BY external_player_id`,
    );
    const scores = Object.fromEntries(rows.map((r) => [r.external_player_id, [r.score, r.rounds_counted]]));
    assert.deepEqual(scores, {
      [players.a1]: [`${counted.a1}.00000000`, 4],
      [players.b1]: [`${counted.b1}.00000000`, 4],
    });
    assert.equal(
      (await admin('GET', '/tournaments/race')).json.data.status,
      'running',
      'the workflow set it running at its start',
    );
  });

  test('ties: the earlier score first, then the lower player id; free and rejected rounds never count', async () => {
    // Rounds recorded and settled in SQL (as the settlement's recording statement does), to make
    // exact ties: t2 reaches 3x first; t1 and t3 reach it together (one transaction, one time).
    const ids = ['t1', 't2', 't3', 't4'].map((n) => `tn-tie-${n}-${randomUUID().slice(0, 4)}`);
    const [t1, t2, t3, t4] = ids as [string, string, string, string];
    const sessions: Record<string, { session: string; player: string }> = {};
    for (const id of ids) {
      await w.newPlayer('op_tn_a', { playerId: id, balanceMinor: 0 });
      const l = await w.launch(keyA, { symbol: slot2.symbol, external_player_id: id });
      const { rows } = await w.h.db.pool.query(`SELECT player_id FROM sessions WHERE session_id = $1`, [
        l.sessionId,
      ]);
      sessions[id] = { session: l.sessionId, player: rows[0].player_id };
    }
    const round = async (id: string, bet: number, win: number, extra: Record<string, unknown> = {}) => {
      const roundId = `r_tie_${randomUUID()}`;
      await w.h.db.pool.query(
        `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                             bet_minor, win_minor, intent, free_round_campaign_id)
         VALUES ($1, 'op_tn_a', $2, $3, $4, 'prov_a', 'EUR', 'open', $5, $6, '{}', $7)`,
        [
          roundId,
          sessions[id]!.session,
          sessions[id]!.player,
          slot2.symbol,
          bet,
          win,
          extra.campaign ?? null,
        ],
      );
      return roundId;
    };
    const settle = (roundIds: string[], status = 'completed') =>
      w.h.db.pool.query(`UPDATE rounds SET status = $2, settled_at = now() WHERE round_id = ANY($1)`, [
        roundIds,
        status,
      ]);
    await settle([await round(t2, 100, 300)]);
    await new Promise((r) => setTimeout(r, 20));
    // t3 and t1 in one statement: the same time; the lower id ranks first.
    await settle([await round(t3, 200, 600), await round(t1, 1000, 3000)]);
    await settle([await round(t4, 100, 200)]);
    // t4 would lead with these, but a free round and a rejected round never count, nor one below
    // the minimum stake, nor a round settled a second time.
    await settle([await round(t4, 100, 100_000, { campaign: 'fr-1' })]);
    await settle([await round(t4, 100, 100_000)], 'rejected');
    await settle([await round(t4, 99, 100_000)]);
    lateRound = async () => {
      await settle([await round(t4, 100, 100_000)]);
    };
    const twice = await round(t4, 100, 250);
    await settle([twice]);
    await settle([twice]);

    const board = await provider(keyA, '/tournaments/ties/leaderboard');
    assert.equal(board.status, 200, board.text);
    const [first, second] = [t1, t3].sort();
    assert.deepEqual(
      board.json.data.leaderboards[0].items.map((e: any) => [e.rank, e.player_id, e.score, e.prize_minor]),
      [
        [1, t2, '3.00000000', '900'],
        [2, first, '3.00000000', '600'],
        [3, second, '3.00000000', '300'],
        [4, t4, '2.50000000', null],
      ],
    );
    const { rows } = await w.h.db.pool.query(
      `SELECT rounds_counted FROM tournament_scores WHERE tournament_id = 'ties' AND external_player_id = $1`,
      [t4],
    );
    assert.equal(rows[0].rounds_counted, 2);
  });

  test('the live leaderboard: own players in full, other operators’ players masked; top N', async () => {
    const a = await provider(keyA, '/tournaments/race/leaderboard');
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.data.frozen, false);
    const items = a.json.data.leaderboards[0].items as any[];
    assert.equal(items.length, 2);
    const mine = items.find((e) => e.own)!;
    const theirs = items.find((e) => !e.own)!;
    assert.equal(mine.player_id, players.a1);
    assert.equal(mine.display_id, players.a1);
    assert.equal(theirs.player_id, null);
    assert.match(theirs.display_id, /^player-[0-9a-f]{10}$/);
    assert.ok(!a.text.includes(players.b1), 'another operator’s player id is never sent');
    const b = await provider(keyB, '/tournaments/race/leaderboard?limit=1&currency=EUR');
    assert.equal(b.json.data.leaderboards[0].items.length, 1);
    assert.ok(!b.text.includes(players.a1));
    const usd = await provider(keyB, '/tournaments/race/leaderboard?currency=USD');
    assert.deepEqual(usd.json.data.leaderboards, []);
  });

  test('a tournament cancelled before its end pays nothing', async () => {
    const { rows } = await w.h.db.pool.query(
      `SELECT count(*)::int AS n FROM tournament_scores WHERE tournament_id = 'called-off'`,
    );
    assert.ok(rows[0].n >= 1, 'its rounds counted while it ran');
    const res = await admin('POST', '/tournaments/called-off/cancel');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data.status, 'cancelled');
    assert.ok(res.json.data.cancelled_at);
    assert.equal((await admin('POST', '/tournaments/called-off/cancel')).status, 200, 'a repeat is harmless');
    assert.equal(
      (await admin('PUT', '/tournaments/called-off/operators/op_tn_b', { enabled: true })).status,
      409,
    );
    // The workflow ends (woken by the signal) without writing anything.
    const handle = w.client!.workflow.getHandle('tournament-called-off');
    assert.deepEqual(await handle.result(), { status: 'cancelled', payouts: 0 });
    // Rounds settled after the cancel no longer count.
    const before = (
      await w.h.db.pool.query(
        `SELECT sum(rounds_counted)::int AS n FROM tournament_scores WHERE tournament_id = 'called-off'`,
      )
    ).rows[0].n;
    await w.spin(tokens.a1!, { bet_minor: 200 }).then((r) => {
      counted.a1 = (counted.a1 ?? 0n) + BigInt(r.json.win_minor);
    });
    const after = (
      await w.h.db.pool.query(
        `SELECT sum(rounds_counted)::int AS n FROM tournament_scores WHERE tournament_id = 'called-off'`,
      )
    ).rows[0].n;
    assert.equal(after, before);
  });

  test('at the end: the leaderboard frozen, each prize paid once as a promo_win credit, no session needed', async () => {
    // Every session closed before the end: the payouts need none.
    await w.h.db.pool.query(`UPDATE sessions SET status = 'closed'`);
    await sleepUntil(Date.parse(ENDS));
    const race = await until(
      'the race paid',
      async () => {
        const t = (await admin('GET', '/tournaments/race')).json.data;
        return t.status === 'paid' ? t : undefined;
      },
      30_000,
      200,
    );
    assert.ok(race.frozen_at && race.paid_at);
    const ranked = Object.entries(counted)
      .filter(([, win]) => win > 0n)
      .sort(([an, a], [bn, b]) => (a === b ? 0 : a > b ? -1 : 1) || an.localeCompare(bn));
    const expected = ranked.slice(0, 3).map(([name, win], i) => ({
      rank: i + 1,
      player_id: players[name as keyof typeof players],
      operator_id: opOf[name as keyof typeof opOf],
      amount_minor: ['5000', '3000', '1000'][i],
      win,
    }));
    // Equal totals would tie on time: only check the ordering when the totals differ.
    if (!(ranked.length === 2 && ranked[0]![1] === ranked[1]![1]))
      assert.deepEqual(
        race.payouts.map((p: any) => [p.rank, p.player_id, p.operator_id, p.amount_minor, p.status]),
        expected.map((e) => [e.rank, e.player_id, e.operator_id, e.amount_minor, 'paid']),
      );
    assert.equal(race.payouts.length, expected.length);

    const pool = w.h.db.pool;
    for (const p of race.payouts) {
      assert.match(p.payout_id, /^pp_t_race_[0-9a-f]{32}$/);
      const { rows: credits } = await pool.query(
        `SELECT transaction_type, amount_minor::text, player_id FROM wallet.transactions
          WHERE operator_id = $1 AND round_id = $2`,
        [p.operator_id, p.payout_id],
      );
      assert.deepEqual(credits, [
        { transaction_type: 'credit', amount_minor: p.amount_minor, player_id: p.player_id },
      ]);
      const { rows: journal } = await pool.query(
        `SELECT status, request_body FROM wallet_transactions WHERE round_id = $1`,
        [p.payout_id],
      );
      assert.equal(journal.length, 1);
      assert.equal(journal[0].status, 'success');
      const body = JSON.parse(journal[0].request_body);
      assert.deepEqual(
        [body.action_type, body.promo_type, body.promo_id, body.rank, body.round_id, body.transaction_id],
        ['promo_win', 'tournament', 'race', p.rank, p.payout_id, `${p.payout_id}:credit`],
      );
      assert.equal(body.game_symbol, slot.symbol);
      // Starting the payout again pays nothing.
      const again = await startPayPromo(w.client!, w.taskQueue, p.payout_id);
      assert.equal(again.started, false);
    }
    // The frozen board is the standings: the same for everyone afterwards.
    const board = await provider(keyA, '/tournaments/race/leaderboard');
    assert.equal(board.json.data.frozen, true);
    assert.equal(board.json.data.status, 'paid');
    assert.equal(board.json.data.leaderboards[0].items.length, Object.keys(counted).length);
    const { rows: standings } = await pool.query(
      `SELECT rank, external_player_id, score::text, prize_minor::text FROM tournament_standings
        WHERE tournament_id = 'race' ORDER BY rank`,
    );
    assert.deepEqual(standings.map((s) => s.external_player_id).sort(), [players.a1, players.b1].sort());

    // The ties: three prizes, in the tie order, paid.
    const ties = await until(
      'the ties paid',
      async () => {
        const t = (await admin('GET', '/tournaments/ties')).json.data;
        return t.status === 'paid' ? t : undefined;
      },
      30_000,
      200,
    );
    assert.deepEqual(
      ties.payouts.map((p: any) => [p.rank, p.amount_minor, p.status]),
      [
        [1, '900', 'paid'],
        [2, '600', 'paid'],
        [3, '300', 'paid'],
      ],
    );
    for (const p of ties.payouts) {
      const bal = await w.admin.balance('op_tn_a', p.player_id, 'EUR');
      assert.equal(bal.balance_minor, p.amount_minor, `${p.player_id} got its prize once`);
    }
    // A round settled after the end never counts; a cancel after the end is 409 and pays on.
    const countedRounds = `SELECT sum(rounds_counted)::int AS n FROM tournament_scores WHERE tournament_id = 'ties'`;
    const before = await pool.query(countedRounds);
    await lateRound();
    assert.equal((await pool.query(countedRounds)).rows[0].n, before.rows[0].n);
    assert.equal((await admin('POST', '/tournaments/race/cancel')).status, 409);
    const repeat = await admin('PUT', '/tournaments/race', RACE);
    assert.equal(repeat.status, 200, `the same definition after its end: ${repeat.text}`);
    assert.equal(repeat.json.data.status, 'paid');
    assert.equal((await admin('PUT', '/tournaments/race/operators/op_tn_c', { enabled: true })).status, 409);

    // The cancelled one: nothing frozen, nothing paid.
    const off = (await admin('GET', '/tournaments/called-off')).json.data;
    assert.deepEqual([off.status, off.payouts, off.frozen_at], ['cancelled', [], null]);
    const { rows: offStandings } = await pool.query(
      `SELECT count(*)::int AS n FROM tournament_standings WHERE tournament_id = 'called-off'`,
    );
    assert.equal(offStandings[0].n, 0);
    const workflowResult = await w.client!.workflow.getHandle('tournament-race').result();
    assert.deepEqual(workflowResult, { status: 'paid', payouts: race.payouts.length });
    // The histories replay against the bundle: the workflows are deterministic (timers, the
    // freeze, the children, a cancel).
    for (const id of [
      'tournament-race',
      'tournament-ties',
      'tournament-called-off',
      ties.payouts[0].payout_id,
    ]) {
      const history = await w.client!.workflow.getHandle(id).fetchHistory();
      await Worker.runReplayHistory({ workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } }, history, id);
    }
  });
});

test('a tournament defined weeks ahead waits on its durable timer; a cancel ends its workflow', async () => {
  const res = await admin('PUT', '/tournaments/later-one', {
    ...TIES,
    starts_at: new Date(Date.now() + 3_600_000).toISOString(),
    ends_at: new Date(Date.now() + 7_200_000).toISOString(),
  });
  assert.equal(res.status, 201, res.text);
  const desc = await w.client!.workflow.getHandle('tournament-later-one').describe();
  assert.equal(desc.status.name, 'RUNNING');
  assert.equal((await admin('POST', '/tournaments/later-one/cancel')).status, 200);
  assert.deepEqual(await w.client!.workflow.getHandle('tournament-later-one').result(), {
    status: 'cancelled',
    payouts: 0,
  });
});
