import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import {
  DROP,
  JACKPOT,
  LIVE,
  type Seeded,
  SHORT,
  seedPromotions,
  tournamentBody,
} from './test-support/promotions.js';
import { login, OP_A, OP_B, slot, staffCall, startWorld, type World } from './test-support/world.js';

// The staff API's jackpot, tournament and prize-drop routes (issue 25) over a real world: an
// always-hitting jackpot, an always-awarding prize drop and two tournaments played through the game
// server and settled by the workflows at the sandbox wallet (test-support/promotions.ts). Reads by
// a viewer, scope (403 on another operator), bad input 4xx JSON, the provider admin's create and
// cancel with their audit rows, refused to operator staff.
let w: World;
let seeded: Seeded;
let viewer: string;
let adminA: string;
let provider: string;

before(async () => {
  w = await startWorld();
  [viewer, adminA, provider] = await Promise.all([
    login(w.h.base, w.staff.viewerA),
    login(w.h.base, w.staff.adminA),
    login(w.h.base, w.staff.provider),
  ]);
  seeded = await seedPromotions(w);
});
after(async () => {
  await w?.close();
});

const get = (token: string, path: string) => staffCall(w.h.base, token, 'GET', `/operators/${OP_A}${path}`);

/** A 4xx answered as JSON (never a 5xx, never HTML). */
function refused(res: { status: number; text: string; headers: Headers }, status: number, what: string) {
  assert.equal(res.status, status, `${what}: ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/, what);
  assert.ok(JSON.parse(res.text).detail, what);
}

test('jackpots: live pools (whole minor units, seed, hits) and the hits newest first, paged', async () => {
  const res = await get(viewer, '/jackpots');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const jp = res.json.data.jackpots.find((j: any) => j.jackpot_id === JACKPOT);
  assert.ok(jp, res.text);
  assert.deepEqual(
    [jp.name, jp.scope, jp.status, jp.titles],
    ['Staff jackpot', 'operator', 'active', [slot.symbol]],
  );
  assert.equal(jp.operators, undefined, 'no operator list');
  const mini = jp.levels.find((l: any) => l.level === 'mini').pools[0];
  const { rows } = await w.h.db.pool.query(
    `SELECT (amount_micros / 1000000)::text AS amount, hits FROM jackpot_pools WHERE jackpot_id = $1 AND level = 'mini'`,
    [JACKPOT],
  );
  assert.deepEqual(
    [mini.currency, mini.amount_minor, mini.seed_minor, mini.hits],
    ['EUR', rows[0].amount, '500', rows[0].hits],
  );
  assert.equal(mini.hits, seeded.hitRounds.length);

  const hits = res.json.data.hits;
  const mine = hits.items.filter((h: any) => seeded.hitRounds.includes(h.round_id));
  assert.equal(mine.length, Math.min(seeded.hitRounds.length, hits.items.length));
  assert.ok(mine.every((h: any) => h.status === 'paid' && h.level === 'mini' && h.amount_minor > 0));
  assert.deepEqual(
    hits.items.map((h: any) => h.created_at),
    [...hits.items.map((h: any) => h.created_at)].sort().reverse(),
    'newest first',
  );
  assert.equal(hits.items[0].round_id, seeded.hitRounds.at(-1));
  // Pages.
  const p1 = await get(viewer, '/jackpots?limit=1');
  assert.equal(p1.json.data.hits.items.length, 1);
  if (seeded.hitRounds.length > 1) {
    assert.ok(p1.json.data.hits.next_cursor);
    const p2 = await get(viewer, `/jackpots?limit=1&cursor=${p1.json.data.hits.next_cursor}`);
    assert.equal(p2.status, 200, p2.text);
    assert.notEqual(p2.json.data.hits.items[0].round_id, p1.json.data.hits.items[0].round_id);
  }
  // Filters: status.
  const forfeited = await get(viewer, '/jackpots?status=forfeited');
  assert.deepEqual(forfeited.json.data.hits.items, []);

  for (const q of [
    'limit=0',
    'limit=x',
    'cursor=%25%25',
    'status=won',
    'level=BAD',
    'nope=1',
    'from=yesterday',
  ])
    refused(await get(viewer, `/jackpots?${q}`), 422, q);
  refused(await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_B}/jackpots`), 403, 'another operator');
  assert.equal((await call(w.h.base, 'GET', `/api/staff/v1/operators/${OP_A}/jackpots`)).status, 401);
});

test('tournaments: the list, a live leaderboard (own players in full, others by display id)', async () => {
  const list = await get(viewer, '/tournaments');
  assert.equal(list.status, 200, list.text);
  const ids = list.json.data.items.map((t: any) => t.tournament_id);
  assert.ok(ids.includes(LIVE) && ids.includes(SHORT), list.text);
  const live = list.json.data.items.find((t: any) => t.tournament_id === LIVE);
  assert.deepEqual([live.status, live.scoring, live.name], ['running', 'total_win', 'Weekly race']);
  assert.equal(live.payouts, undefined);
  assert.equal(live.operators, undefined);

  const res = await get(viewer, `/tournaments/${LIVE}`);
  assert.equal(res.status, 200, res.text);
  const t = res.json.data;
  assert.equal(t.frozen, false);
  const board = t.leaderboards.find((b: any) => b.currency === 'EUR');
  assert.equal(board.items.length, 2);
  const [first, second] = board.items;
  assert.deepEqual([first.rank, first.own, first.player_id], [1, false, null]);
  assert.match(first.display_id, /^player-[0-9a-f]{10}$/);
  assert.ok(!res.text.includes(seeded.rival), "another operator's player id never appears");
  assert.deepEqual(
    [second.rank, second.own, second.player_id, second.display_id],
    [2, true, seeded.player, seeded.player],
  );
  assert.equal(second.score, `${seeded.score}.00000000`);
  assert.deepEqual(
    board.prizes.map((p: any) => [p.rank, p.amount_minor, p.payout]),
    [
      [1, '3000', null],
      [2, '1000', null],
    ],
  );
  // The same display id as the operator API's leaderboard.
  const opBoard = await call(w.h.base, 'GET', `/api/provider/v1/tournaments/${LIVE}/leaderboard`, {
    key: w.keyA,
    sign: true,
  });
  assert.equal(opBoard.json.data.leaderboards[0].items[0].display_id, first.display_id);

  const one = await get(viewer, `/tournaments/${LIVE}?limit=1&currency=EUR`);
  assert.equal(one.json.data.leaderboards[0].items.length, 1);
  for (const q of ['limit=0', 'limit=101', 'currency=eur', 'x=1'])
    refused(await get(viewer, `/tournaments/${LIVE}?${q}`), 422, q);
  refused(await get(viewer, '/tournaments/no-such-tournament'), 404, 'unknown');
  refused(await get(viewer, '/tournaments/NOT%20AN%20ID'), 404, 'not an id');
  refused(await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_B}/tournaments/${LIVE}`), 403, 'op B');
});

test('tournaments: once frozen each prize with its payout (status, amount; the id for own players only)', async () => {
  const res = await get(viewer, `/tournaments/${SHORT}`);
  assert.equal(res.status, 200, res.text);
  const t = res.json.data;
  assert.equal(t.frozen, true);
  assert.ok(['ended', 'paid'].includes(t.status));
  const board = t.leaderboards[0];
  const [rivalPrize, ownPrize] = board.prizes;
  assert.deepEqual(
    [rivalPrize.rank, rivalPrize.winner.own, rivalPrize.payout.status, rivalPrize.payout.payout_id],
    [1, false, 'pending', null],
  );
  assert.deepEqual(
    [ownPrize.rank, ownPrize.winner.player_id, ownPrize.payout.status, ownPrize.payout.amount_minor],
    [2, seeded.player, 'paid', '1000'],
  );
  assert.match(ownPrize.payout.payout_id, new RegExp(`^pp_t_${SHORT}_[0-9a-f]{32}$`));
  assert.ok(ownPrize.payout.paid_at);
  assert.ok(!res.text.includes(seeded.rival));
});

test('tournaments: a provider admin creates one (the admin API definition, workflow, audit); operator staff cannot', async () => {
  const body = {
    tournament_id: 'stf-created',
    ...tournamentBody('Created from the portal', Date.now() + 3_600_000, Date.now() + 7 * 86_400_000),
  };
  // Operator staff: the viewer and the operator's own admin are refused; another operator's staff too.
  refused(await staffCall(w.h.base, viewer, 'POST', `/operators/${OP_A}/tournaments`, body), 403, 'viewer');
  refused(await staffCall(w.h.base, adminA, 'POST', `/operators/${OP_A}/tournaments`, body), 403, 'admin A');
  refused(await staffCall(w.h.base, adminA, 'POST', `/operators/${OP_B}/tournaments`, body), 403, 'op B');
  assert.equal(
    (await w.h.db.pool.query(`SELECT 1 FROM tournaments WHERE tournament_id = 'stf-created'`)).rowCount,
    0,
  );

  const created = await staffCall(w.h.base, provider, 'POST', `/operators/${OP_A}/tournaments`, body);
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.data.result, 'created');
  assert.equal(created.json.data.tournament.status, 'scheduled');
  assert.equal(created.json.data.audit.action, 'tournament.create');
  // As the admin API sees it: opted in for the page's operator, its workflow running.
  const seen = await call(w.h.base, 'GET', '/api/admin/v1/tournaments/stf-created', {
    key: ADMIN_KEY,
    sign: true,
  });
  assert.deepEqual(seen.json.data.operators, [OP_A]);
  const handle = w.client.workflow.getHandle('tournament-stf-created');
  assert.equal((await handle.describe()).status.name, 'RUNNING');
  // The same again: unchanged (200); another definition under the id: 409.
  const again = await staffCall(w.h.base, provider, 'POST', `/operators/${OP_A}/tournaments`, body);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.data.result, 'unchanged');
  refused(
    await staffCall(w.h.base, provider, 'POST', `/operators/${OP_A}/tournaments`, { ...body, name: 'Other' }),
    409,
    'redefined',
  );
  // Bad input: 422 JSON.
  for (const [what, bad] of [
    ['no id', { ...body, tournament_id: undefined }],
    ['bad id', { ...body, tournament_id: 'Bad Id' }],
    ['no titles', { ...body, titles: [] }],
    ['unknown title', { ...body, tournament_id: 'stf-x1', titles: ['nosuchgame'] }],
    ['ends before start', { ...body, tournament_id: 'stf-x2', ends_at: body.starts_at }],
    [
      'in the past',
      {
        ...body,
        tournament_id: 'stf-x3',
        starts_at: '2020-01-01T00:00:00Z',
        ends_at: '2020-01-02T00:00:00Z',
      },
    ],
    [
      'prizes increase',
      { ...body, tournament_id: 'stf-x4', currencies: { EUR: { min_stake_minor: 1, prizes: [1, 2] } } },
    ],
    [
      'amount not a number',
      { ...body, tournament_id: 'stf-x5', currencies: { EUR: { min_stake_minor: '1e3', prizes: [1] } } },
    ],
    ['scoring', { ...body, tournament_id: 'stf-x6', scoring: 'best' }],
    ['not an object', [1, 2]],
  ] as const)
    refused(await staffCall(w.h.base, provider, 'POST', `/operators/${OP_A}/tournaments`, bad), 422, what);
  const { rows } = await w.h.db.pool.query(
    `SELECT username, operator_id, result FROM staff_audit_log WHERE action = 'tournament.create' ORDER BY audit_id`,
  );
  assert.deepEqual(rows, [
    { username: w.staff.provider.username, operator_id: OP_A, result: 'created' },
    { username: w.staff.provider.username, operator_id: OP_A, result: 'unchanged' },
  ]);
});

test('tournaments: a provider admin cancels one (audit row, then already cancelled); refused to operator staff and once over', async () => {
  const body = {
    tournament_id: 'stf-cancel-me',
    ...tournamentBody('Called off', Date.now() + 3_600_000, Date.now() + 86_400_000),
  };
  assert.equal(
    (await staffCall(w.h.base, provider, 'POST', `/operators/${OP_A}/tournaments`, body)).status,
    201,
  );
  const path = `/operators/${OP_A}/tournaments/stf-cancel-me/cancel`;
  refused(await staffCall(w.h.base, adminA, 'POST', path, {}), 403, 'operator admin');
  refused(await staffCall(w.h.base, provider, 'POST', path, { reason: 'x'.repeat(501) }), 422, 'long reason');
  refused(await staffCall(w.h.base, provider, 'POST', path, { why: 'x' }), 422, 'unknown field');
  const done = await staffCall(w.h.base, provider, 'POST', path, { reason: 'sponsor pulled out' });
  assert.equal(done.status, 200, done.text);
  assert.deepEqual([done.json.data.result, done.json.data.tournament.status], ['cancelled', 'cancelled']);
  const again = await staffCall(w.h.base, provider, 'POST', path, {});
  assert.equal(again.json.data.result, 'already_cancelled');
  // Over (frozen): 409; unknown: 404.
  refused(
    await staffCall(w.h.base, provider, 'POST', `/operators/${OP_A}/tournaments/${SHORT}/cancel`, {}),
    409,
    'over',
  );
  refused(
    await staffCall(w.h.base, provider, 'POST', `/operators/${OP_A}/tournaments/no-such/cancel`, {}),
    404,
    'unknown',
  );
  const { rows } = await w.h.db.pool.query(
    `SELECT result, detail->>'reason' AS reason FROM staff_audit_log
      WHERE action = 'tournament.cancel' AND target = 'stf-cancel-me' ORDER BY audit_id`,
  );
  assert.deepEqual(rows, [
    { result: 'cancelled', reason: 'sponsor pulled out' },
    { result: 'already_cancelled', reason: '' },
  ]);
});

test('prize drops: prizes total and left per currency, window, status, and the awards with their payouts', async () => {
  const list = await get(viewer, '/prize-drops');
  assert.equal(list.status, 200, list.text);
  const d = list.json.data.items.find((x: any) => x.drop_id === DROP);
  assert.ok(d, list.text);
  assert.deepEqual([d.name, d.status, d.state], ['Staff drop', 'active', 'active']);
  const pool = d.pools[0];
  assert.deepEqual(
    [pool.currency, pool.prize_minor, pool.prizes_total, pool.prizes_left, pool.awarded_here, pool.paid_here],
    ['EUR', '250', 5, 4, 1, 1],
  );
  const one = await get(viewer, `/prize-drops/${DROP}`);
  assert.equal(one.status, 200, one.text);
  assert.deepEqual(
    one.json.data.awards.items.map((a: any) => [
      a.payout_id,
      a.player_id,
      a.amount_minor,
      a.status,
      a.transaction_status,
    ]),
    [[seeded.dropPayout, seeded.player, 250, 'paid', 'success']],
  );
  assert.deepEqual((await get(viewer, `/prize-drops/${DROP}?status=pending`)).json.data.awards.items, []);
  for (const q of ['limit=0', 'cursor=%25%25', 'status=won', 'promo_id=x'])
    refused(await get(viewer, `/prize-drops/${DROP}?${q}`), 422, q);
  refused(await get(viewer, '/prize-drops/no-such-drop'), 404, 'unknown');
  refused(await get(viewer, '/prize-drops/NOT%20AN%20ID'), 404, 'not an id');
  refused(await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_B}/prize-drops`), 403, 'op B');
  // Operator B is not opted in: the drop is not its.
  const provB = await staffCall(w.h.base, provider, 'GET', `/operators/${OP_B}/prize-drops`);
  assert.deepEqual(provB.json.data.items, []);
  refused(await staffCall(w.h.base, provider, 'GET', `/operators/${OP_B}/prize-drops/${DROP}`), 404, 'B');
});
