import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { call } from '@opi/testkit/harness';
import { login, OP_A, OP_B, slot, staffCall, startWorld, type World } from './test-support/world.js';

// The staff API's free-round campaign routes (issue 18, item 4) over a real world: a campaign made
// through the operator API, one free round played through the runtime and settled by the workflow
// at the sandbox wallet; the list and the campaign read by a viewer, the cancel refused to a viewer
// and done by an admin (the operator API's own cancel) with its audit row; bad ids and queries 422,
// an unknown campaign 404.
let w: World;
let viewer: string;
let adminToken: string;
const HOUR = 3600_000;
const played = { ext: '', other: '', token: '', roundId: '', win: '0' };

const operatorApi = (method: string, path: string, body?: unknown) =>
  call(w.h.base, method, `/api/provider/v1${path}`, {
    key: w.keyA,
    sign: true,
    ...(body === undefined ? {} : { body }),
  });

function campaign(id: string, over: Record<string, unknown> = {}) {
  return {
    campaign_id: id,
    symbols: [slot.symbol],
    currency: 'EUR',
    bet_minor: 100,
    rounds: 3,
    valid_from: new Date(Date.now() - HOUR).toISOString(),
    expires_at: new Date(Date.now() + 24 * HOUR).toISOString(),
    ...over,
  };
}

before(async () => {
  w = await startWorld();
  viewer = await login(w.h.base, w.staff.viewerA);
  adminToken = await login(w.h.base, w.staff.adminA);
  played.ext = `stf-fr-${randomUUID().slice(0, 8)}`;
  played.other = `stf-fr-${randomUUID().slice(0, 8)}`;
  await w.admin.createPlayer({
    operatorId: OP_A,
    playerId: played.ext,
    currency: 'EUR',
    balanceMinor: 10_000,
  });
  const created = await operatorApi(
    'POST',
    '/free-rounds',
    campaign('stf-c1', { players: [played.ext, played.other] }),
  );
  assert.equal(created.status, 201, created.text);
  const scheduled = await operatorApi(
    'POST',
    '/free-rounds',
    campaign('stf-c2', {
      valid_from: new Date(Date.now() + HOUR).toISOString(),
      expires_at: new Date(Date.now() + 48 * HOUR).toISOString(),
    }),
  );
  assert.equal(scheduled.status, 201, scheduled.text);
  const launched = await call(w.h.base, 'POST', '/api/provider/v1/launch-url', {
    key: w.keyA,
    body: { symbol: slot.symbol, external_player_id: played.ext, currency: 'EUR' },
  });
  assert.equal(launched.status, 200, launched.text);
  assert.equal(launched.json.free_rounds?.campaign_id, 'stf-c1', launched.text);
  played.token = new URL(launched.json.launch_url).searchParams.get('mgckey')!;
  const spin = await call(w.h.game, 'POST', '/api/runtime/spin', {
    headers: { 'x-session-token': played.token },
    body: { bet_minor: 100, free_round: true },
  });
  assert.equal(spin.status, 200, spin.text);
  assert.equal(spin.json.status, 'completed', spin.text);
  played.roundId = spin.json.round_id;
  played.win = String(spin.json.win_minor);
});
after(async () => {
  await w?.close();
});

test('a viewer reads the campaigns list: status, players, rounds played and remaining, won; pages; bad queries 422', async () => {
  const res = await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/free-rounds`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const byId = new Map(res.json.data.items.map((c: any) => [c.campaign_id, c]));
  const c1: any = byId.get('stf-c1');
  assert.ok(c1, res.text);
  assert.deepEqual(
    [
      c1.status,
      c1.symbols,
      c1.currency,
      c1.bet_minor,
      c1.rounds,
      c1.players_count,
      c1.rounds_used,
      c1.rounds_remaining,
    ],
    ['active', [slot.symbol], 'EUR', '100', 3, 2, 1, 5],
  );
  assert.equal(c1.won_minor, played.win);
  assert.ok(c1.valid_from && c1.expires_at);
  assert.equal((byId.get('stf-c2') as any)?.status, 'scheduled');

  const first = await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/free-rounds?limit=1`);
  assert.equal(first.status, 200, first.text);
  assert.equal(first.json.data.items.length, 1);
  assert.ok(first.json.data.next_cursor);
  const second = await staffCall(
    w.h.base,
    viewer,
    'GET',
    `/operators/${OP_A}/free-rounds?limit=1&cursor=${first.json.data.next_cursor}`,
  );
  assert.equal(second.status, 200, second.text);
  assert.notEqual(second.json.data.items[0].campaign_id, first.json.data.items[0].campaign_id);

  for (const q of ['limit=0', 'limit=x', 'cursor=%25%25', 'cursor=bm9wZSBub3Bl'])
    assert.equal(
      (await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/free-rounds?${q}`)).status,
      422,
      q,
    );
  // No role on operator B: 403, as for every staff read.
  assert.equal((await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_B}/free-rounds`)).status, 403);
  assert.equal((await call(w.h.base, 'GET', `/api/staff/v1/operators/${OP_A}/free-rounds`)).status, 401);
});

test('a viewer reads one campaign: its players and its rounds; unknown 404, bad ids and queries 422', async () => {
  const res = await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/free-rounds/stf-c1`);
  assert.equal(res.status, 200, res.text);
  const c = res.json.data;
  assert.equal(c.campaign_id, 'stf-c1');
  assert.equal(c.rounds_remaining, 5);
  assert.deepEqual(
    c.players.map((p: any) => [p.external_player_id, p.rounds_used, p.rounds_remaining, p.won_minor]),
    [
      [played.ext, 1, 2, played.win],
      [played.other, 0, 3, '0'],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  );
  assert.equal(c.rounds_page.items.length, 1);
  const round = c.rounds_page.items[0];
  assert.equal(round.round_id, played.roundId);
  assert.equal(round.player_id, played.ext);
  assert.equal(round.status, 'completed');
  assert.equal(String(round.win_minor), played.win);
  assert.equal(String(round.bet_minor), '100');
  assert.equal(round.currency, 'EUR');
  assert.equal(c.rounds_page.next_cursor, null);
  assert.equal(c.players_next_cursor, null);
  // The players come in pages too (100 by default): one a page here, each once, then none.
  const order = [played.ext, played.other].sort((a, b) => a.localeCompare(b));
  const p1 = await staffCall(
    w.h.base,
    viewer,
    'GET',
    `/operators/${OP_A}/free-rounds/stf-c1?players_limit=1`,
  );
  assert.equal(p1.status, 200, p1.text);
  assert.deepEqual(
    p1.json.data.players.map((p: any) => p.external_player_id),
    [order[0]],
  );
  assert.equal(p1.json.data.rounds_page.items.length, 1, 'the rounds page is its own');
  const p2 = await staffCall(
    w.h.base,
    viewer,
    'GET',
    `/operators/${OP_A}/free-rounds/stf-c1?players_limit=1&players_cursor=${p1.json.data.players_next_cursor}`,
  );
  assert.equal(p2.status, 200, p2.text);
  assert.deepEqual(
    p2.json.data.players.map((p: any) => p.external_player_id),
    [order[1]],
  );
  assert.equal(p2.json.data.players_next_cursor, null);
  for (const q of ['players_cursor=%25%25', 'players_limit=0', 'players_limit=1001']) {
    const bad = await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/free-rounds/stf-c1?${q}`);
    assert.equal(bad.status, 422, `${q}: ${bad.text}`);
  }
  // The round link of the page: the existing round read answers it.
  const detail = await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/rounds/${played.roundId}`);
  assert.equal(detail.status, 200, detail.text);

  assert.equal(
    (await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/free-rounds/stf-nope`)).status,
    404,
  );
  for (const id of ['has%20space', 'x'.repeat(65)])
    assert.equal(
      (await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/free-rounds/${id}`)).status,
      422,
      id,
    );
  for (const id of ['%00', '%E0%A4%A', '%C3%A9']) {
    const bad = await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/free-rounds/${id}`);
    assert.ok(bad.status >= 400 && bad.status < 500 && bad.json, `${id}: ${bad.status} ${bad.text}`);
  }
  for (const q of ['cursor=%25%25', 'limit=0', 'limit=1000', 'other=1']) {
    const bad = await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/free-rounds/stf-c1?${q}`);
    assert.equal(bad.status, 422, `${q}: ${bad.text}`);
    assert.equal(bad.json.detail[0].loc[0], 'query', bad.text);
  }
  assert.equal(
    (await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_B}/free-rounds/stf-c1`)).status,
    403,
  );
});

test('cancel: a viewer is refused (403); an admin cancels (audit-logged), again is already_cancelled; 404 and 422', async () => {
  const path = `/operators/${OP_A}/free-rounds/stf-c1/cancel`;
  const refused = await staffCall(w.h.base, viewer, 'POST', path, { reason: 'not mine to do' });
  assert.equal(refused.status, 403, refused.text);
  assert.equal((await operatorApi('GET', '/free-rounds/stf-c1')).json.data.status, 'active');

  assert.equal(
    (await staffCall(w.h.base, adminToken, 'POST', path, { reason: 'x'.repeat(501) })).status,
    422,
  );
  assert.equal((await staffCall(w.h.base, adminToken, 'POST', path, { other: 1 })).status, 422);
  assert.equal(
    (await staffCall(w.h.base, adminToken, 'POST', `/operators/${OP_A}/free-rounds/stf-nope/cancel`, {}))
      .status,
    404,
  );
  assert.equal(
    (await staffCall(w.h.base, adminToken, 'POST', `/operators/${OP_A}/free-rounds/has%20space/cancel`, {}))
      .status,
    422,
  );

  const done = await staffCall(w.h.base, adminToken, 'POST', path, { reason: 'campaign ended early' });
  assert.equal(done.status, 200, done.text);
  const d = done.json.data;
  assert.equal(d.result, 'cancelled');
  assert.match(d.message, /5 unplayed rounds void/);
  assert.equal(d.campaign.status, 'cancelled');
  assert.ok(d.campaign.cancelled_at);
  assert.equal(d.audit.action, 'free_rounds.cancel');
  assert.equal(d.audit.target, 'stf-c1');
  assert.equal(d.audit.username, w.staff.adminA.username);
  assert.equal(d.audit.result, 'cancelled');
  assert.equal(d.audit.detail.reason, 'campaign ended early');
  assert.equal(d.audit.detail.status_before, 'active');
  assert.equal(d.audit.detail.rounds_voided, 5);

  // The same cancel as the operator API's: the operator sees it, no free round starts any more.
  const seen = await operatorApi('GET', '/free-rounds/stf-c1');
  assert.equal(seen.json.data.status, 'cancelled');
  assert.equal(seen.json.data.cancelled_at, d.campaign.cancelled_at);
  const spin = await call(w.h.game, 'POST', '/api/runtime/spin', {
    headers: { 'x-session-token': played.token },
    body: { bet_minor: 100, free_round: true },
  });
  assert.equal(spin.status, 409, spin.text);
  // The round already played stays as it was.
  const read = await staffCall(w.h.base, viewer, 'GET', `/operators/${OP_A}/free-rounds/stf-c1`);
  assert.equal(read.json.data.status, 'cancelled');
  assert.equal(read.json.data.rounds_page.items[0].status, 'completed');

  // In the audit log (the portal's audit page reads it), and a second cancel is logged as such.
  const log = await staffCall(
    w.h.base,
    viewer,
    'GET',
    `/operators/${OP_A}/audit-log?action=free_rounds.cancel`,
  );
  assert.equal(log.status, 200, log.text);
  assert.equal(log.json.data.items[0].audit_id, d.audit.audit_id);
  const again = await staffCall(w.h.base, adminToken, 'POST', path, {});
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.data.result, 'already_cancelled');
  assert.equal(again.json.data.campaign.cancelled_at, d.campaign.cancelled_at);
  assert.equal(again.json.data.audit.detail.rounds_voided, 0);
  const { rows } = await w.h.db.pool.query(
    `SELECT result FROM staff_audit_log WHERE action = 'free_rounds.cancel' AND target = 'stf-c1' ORDER BY audit_id`,
  );
  assert.deepEqual(
    rows.map((r) => r.result),
    ['cancelled', 'already_cancelled'],
  );
});
