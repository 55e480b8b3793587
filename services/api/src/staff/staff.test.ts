import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RECONCILIATION_CSV_HEADER, StaffAccountResponse, StaffAccountsResponse } from '@opi/contract';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import { hashPassword, verifyPassword } from './password.js';
import { LOGIN_LIMITS } from './rate-limit.js';
import {
  createStaffAccount,
  login,
  OP_A,
  OP_B,
  PORTAL_SECRET,
  slot,
  staffCall,
  startWorld,
  type World,
} from './test-support/world.js';

// The staff API over real rounds: accounts made through the admin API, scrypt passwords, sessions,
// login rate limits held in PostgreSQL, the one scope check per operator and role, every read the
// portal makes, the stuck-settlement cancel through the workflow with its audit row, and the
// wallet diagnostics against the sandbox wallet (right and wrong secret).
let w: World;
const played: { rounds: string[]; sessionId: string; ext: string } = { rounds: [], sessionId: '', ext: '' };

before(async () => {
  w = await startWorld();
  const p = await w.player('EUR', 50_000);
  played.sessionId = p.sessionId;
  played.ext = p.ext;
  for (let i = 0; i < 4; i++) played.rounds.push((await w.spin(p.token, 100 + i)).round_id);
  const usd = await w.player('USD', 10_000);
  await w.spin(usd.token, 200);
});
after(async () => {
  await w?.close();
});

const adminCall = (method: string, path: string, body?: unknown) =>
  call(w.h.base, method, path, { key: ADMIN_KEY, sign: true, ...(body === undefined ? {} : { body }) });

describe('passwords', () => {
  test('scrypt hashes name their parameters, use a fresh salt and verify in constant time', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    assert.match(a, /^scrypt\$17\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    assert.notEqual(a, b, 'salted');
    assert.equal(await verifyPassword('correct horse battery staple', a), true);
    assert.equal(await verifyPassword('correct horse battery stapl', a), false);
    assert.equal(
      await verifyPassword('x', 'scrypt$99$8$1$abc$def'),
      false,
      'a malformed hash never verifies',
    );
  });
});

describe('staff accounts through the admin API', () => {
  test('create (password shown once, never the hash), duplicate 409, list, roles, validation', async () => {
    const created = await adminCall('POST', '/api/admin/v1/staff', {
      username: 'Carol.Ops',
      roles: [{ operator_id: OP_A, role: 'viewer' }],
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.data.username, 'carol.ops', 'login names are lower-case');
    assert.match(created.json.data.password, /^[A-Za-z0-9_-]{20}$/);
    assert.ok(!created.text.includes('scrypt$'), 'the hash is never shown');
    StaffAccountResponse.parse(created.json);
    assert.equal((await adminCall('POST', '/api/admin/v1/staff', { username: 'carol.ops' })).status, 409);
    const list = await adminCall('GET', '/api/admin/v1/staff');
    StaffAccountsResponse.parse(list.json);
    assert.ok(list.json.data.items.some((s: { username: string }) => s.username === 'carol.ops'));
    assert.ok(!list.text.includes('password'));
    const role = await adminCall('PUT', `/api/admin/v1/staff/carol.ops/roles/${OP_B}`, { role: 'admin' });
    assert.equal(role.status, 200, role.text);
    assert.deepEqual(role.json.data.roles, [
      { operator_id: OP_A, role: 'viewer' },
      { operator_id: OP_B, role: 'admin' },
    ]);
    assert.equal(
      (await adminCall('PUT', '/api/admin/v1/staff/carol.ops/roles/op_nope', { role: 'admin' })).status,
      404,
    );
    assert.equal((await adminCall('DELETE', `/api/admin/v1/staff/carol.ops/roles/${OP_B}`)).status, 200);
    assert.equal((await adminCall('POST', '/api/admin/v1/staff', { username: 'x' })).status, 422);
    assert.equal(
      (await adminCall('POST', '/api/admin/v1/staff', { username: 'short', password: 'short' })).status,
      422,
    );
    assert.equal(
      (
        await adminCall('POST', '/api/admin/v1/staff', {
          username: 'both',
          provider_role: 'viewer',
          roles: [{ operator_id: OP_A, role: 'viewer' }],
        })
      ).status,
      422,
    );
    // Only provider-admin keys manage staff.
    assert.equal(
      (await call(w.h.base, 'GET', '/api/admin/v1/staff', { key: w.keyA, sign: true })).status,
      403,
    );
  });

  test('a password reset or disabling ends the sessions; a disabled account cannot log in', async () => {
    const who = await createStaffAccount(w.h.base, {
      username: 'dora',
      password: 'dora-password-0001',
      roles: [{ operator_id: OP_A, role: 'viewer' }],
    });
    const token = await login(w.h.base, who);
    assert.equal((await staffCall(w.h.base, token, 'GET', '/me')).status, 200);
    const reset = await adminCall('PATCH', '/api/admin/v1/staff/dora', { reset_password: true });
    assert.equal(reset.status, 200, reset.text);
    assert.equal((await staffCall(w.h.base, token, 'GET', '/me')).status, 401, 'sessions end with a reset');
    const fresh = await login(w.h.base, { username: 'dora', password: reset.json.data.password });
    await adminCall('PATCH', '/api/admin/v1/staff/dora', { disabled: true });
    assert.equal((await staffCall(w.h.base, fresh, 'GET', '/me')).status, 401);
    const denied = await call(w.h.base, 'POST', '/api/staff/v1/login', {
      body: { username: 'dora', password: reset.json.data.password },
    });
    assert.equal(denied.status, 401);
  });
});

describe('login, sessions and rate limits', () => {
  test('wrong password 401 with one message for unknown names too; login, me, logout', async () => {
    const wrong = await call(w.h.base, 'POST', '/api/staff/v1/login', {
      body: { username: w.staff.viewerA.username, password: 'not-the-password' },
    });
    const unknown = await call(w.h.base, 'POST', '/api/staff/v1/login', {
      body: { username: 'nobody-here', password: 'not-the-password' },
    });
    assert.deepEqual([wrong.status, unknown.status], [401, 401]);
    assert.equal(wrong.json.detail, unknown.json.detail);
    const token = await login(w.h.base, w.staff.viewerA);
    assert.match(token, /^stf_[A-Za-z0-9_-]{43}$/);
    const me = await staffCall(w.h.base, token, 'GET', '/me');
    assert.equal(me.status, 200, me.text);
    assert.deepEqual(me.json.data.operators, [
      { operator_id: OP_A, name: 'Staff Casino A', status: 'active', role: 'viewer' },
    ]);
    const { rows } = await w.h.db.pool.query('SELECT token_hash FROM staff_sessions');
    assert.ok(
      rows.every((r: { token_hash: string }) => r.token_hash !== token),
      'only token hashes are stored',
    );
    assert.equal((await staffCall(w.h.base, token, 'POST', '/logout')).status, 200);
    assert.equal((await staffCall(w.h.base, token, 'GET', '/me')).status, 401);
    assert.equal((await call(w.h.base, 'GET', '/api/staff/v1/me')).status, 401);
    const audit = await w.h.db.pool.query(
      `SELECT action, result FROM staff_audit_log WHERE username = $1 ORDER BY audit_id`,
      [w.staff.viewerA.username],
    );
    assert.deepEqual(
      audit.rows.map((r: { action: string; result: string }) => `${r.action}:${r.result}`),
      ['login:failed', 'login:ok', 'logout:ok'],
    );
  });

  test(`per account and address: after ${LOGIN_LIMITS.pair} failures that address is refused (429); others are not`, async () => {
    const who = await createStaffAccount(w.h.base, {
      username: 'erin',
      password: 'erin-password-00001',
      roles: [{ operator_id: OP_A, role: 'viewer' }],
    });
    const attempt = (password: string, ip: string) =>
      call(w.h.base, 'POST', '/api/staff/v1/login', {
        body: { username: who.username, password },
        headers: { 'x-staff-portal': PORTAL_SECRET, 'x-staff-client-ip': ip },
      });
    for (let i = 0; i < LOGIN_LIMITS.pair; i++)
      assert.equal((await attempt('wrong-password', '10.0.0.1')).status, 401);
    const refused = await attempt(who.password, '10.0.0.1');
    assert.equal(refused.status, 429, refused.text);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    // The count is in PostgreSQL: a second API process on the same database refuses too.
    const { startApi } = await import('@opi/testkit/harness');
    const second = await startApi({ STAFF_PORTAL_SECRET: PORTAL_SECRET }, { db: w.h.db });
    try {
      const other = await call(second.base, 'POST', '/api/staff/v1/login', {
        body: { username: who.username, password: who.password },
        headers: { 'x-staff-portal': PORTAL_SECRET, 'x-staff-client-ip': '10.0.0.1' },
      });
      assert.equal(other.status, 429);
    } finally {
      await second.close();
    }
    // A stranger's failures do not lock the account: its owner, elsewhere, gets in.
    assert.equal((await attempt(who.password, '10.0.1.1')).status, 200);
    // The window ends: the attempts are forgotten.
    await w.h.db.pool.query(
      `UPDATE staff_login_limits SET window_start = now() - interval '1 hour' WHERE bucket = 'pair:10.0.0.1/erin'`,
    );
    assert.equal((await attempt(who.password, '10.0.0.1')).status, 200);
  });

  test(`per address: ${LOGIN_LIMITS.ip} attempts across names; the forwarded address needs the portal secret`, async () => {
    const ip = '192.0.2.77';
    for (let i = 0; i < LOGIN_LIMITS.ip; i++) {
      const res = await call(w.h.base, 'POST', '/api/staff/v1/login', {
        body: { username: `spray-${i}`, password: 'guess-guess-guess' },
        headers: { 'x-staff-portal': PORTAL_SECRET, 'x-staff-client-ip': ip },
      });
      assert.equal(res.status, 401);
    }
    const blocked = await call(w.h.base, 'POST', '/api/staff/v1/login', {
      body: { username: w.staff.adminA.username, password: w.staff.adminA.password },
      headers: { 'x-staff-portal': PORTAL_SECRET, 'x-staff-client-ip': ip },
    });
    assert.equal(blocked.status, 429);
    // Without the secret the header is not believed: the socket's address counts instead.
    const spoofed = await call(w.h.base, 'POST', '/api/staff/v1/login', {
      body: { username: w.staff.adminA.username, password: w.staff.adminA.password },
      headers: { 'x-staff-portal': 'not-the-secret', 'x-staff-client-ip': '192.0.2.78' },
    });
    assert.equal(spoofed.status, 200, spoofed.text);
    const { rows } = await w.h.db.pool.query(
      `SELECT client_ip FROM staff_audit_log WHERE action = 'login' ORDER BY audit_id DESC LIMIT 1`,
    );
    assert.equal(rows[0].client_ip, '127.0.0.1');
  });
});

describe('scope: one check per operator and role', () => {
  test('a viewer of A reads A; B and unknown operators are 403; admin actions are 403', async () => {
    const token = await login(w.h.base, w.staff.viewerA);
    for (const path of [
      '',
      '/catalog',
      '/sessions',
      '/rounds',
      '/reconciliation',
      '/charts',
      '/stuck',
      '/audit-log',
    ]) {
      const res = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}${path}`);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal((await staffCall(w.h.base, token, 'GET', `/operators/${OP_B}${path}`)).status, 403, path);
      assert.equal((await staffCall(w.h.base, token, 'GET', `/operators/op_unknown${path}`)).status, 403);
    }
    const cancel = await staffCall(
      w.h.base,
      token,
      'POST',
      `/operators/${OP_A}/rounds/${played.rounds[0]}/cancel`,
      {
        reason: 'test',
      },
    );
    assert.equal(cancel.status, 403);
    assert.equal(
      (
        await staffCall(w.h.base, token, 'POST', `/operators/${OP_A}/wallet-diagnostics`, {
          player_id: played.ext,
          currency: 'EUR',
        })
      ).status,
      403,
    );
    // A round of A read through B's path is not B's: 404 as an unknown round (issue 34).
    const prov = await login(w.h.base, w.staff.provider);
    assert.equal(
      (await staffCall(w.h.base, prov, 'GET', `/operators/${OP_B}/rounds/${played.rounds[0]}`)).status,
      404,
    );
    assert.equal((await staffCall(w.h.base, prov, 'GET', '/operators/op_unknown/catalog')).status, 404);
    const me = await staffCall(w.h.base, prov, 'GET', '/me');
    const ids = me.json.data.operators.map((o: { operator_id: string }) => o.operator_id);
    assert.ok(ids.includes(OP_A) && ids.includes(OP_B), 'provider staff see every operator');
  });
});

describe('reads', () => {
  test('catalog readiness: assigned titles, blockers in plain words, filters', async () => {
    const token = await login(w.h.base, w.staff.viewerA);
    const all = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/catalog`);
    assert.equal(all.status, 200, all.text);
    const items = all.json.data.items as {
      symbol: string;
      blocker_text: string[];
      operator_availability: { blockers: string[] };
    }[];
    assert.equal(items.length, 3);
    for (const g of items) assert.equal(g.blocker_text.length, g.operator_availability.blockers.length);
    const blocked = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/catalog?status=blocked`);
    const launchable = await staffCall(
      w.h.base,
      token,
      'GET',
      `/operators/${OP_A}/catalog?status=launchable`,
    );
    assert.equal(blocked.json.data.items.length + launchable.json.data.items.length, 3);
    const slots = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/catalog?family=video-slot`);
    assert.ok(slots.json.data.items.every((g: { family: string }) => g.family === 'video-slot'));
    assert.equal((await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/catalog?bogus=1`)).status, 422);
  });

  test('sessions: search by player, currency and status; a session with its rounds', async () => {
    const token = await login(w.h.base, w.staff.viewerA);
    const byPlayer = await staffCall(
      w.h.base,
      token,
      'GET',
      `/operators/${OP_A}/sessions?player_id=${played.ext}`,
    );
    assert.equal(byPlayer.status, 200, byPlayer.text);
    assert.deepEqual(
      byPlayer.json.data.items.map((s: { session_id: string }) => s.session_id),
      [played.sessionId],
    );
    const usd = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/sessions?currency=USD`);
    assert.ok(usd.json.data.items.length >= 1);
    assert.ok(usd.json.data.items.every((s: { currency: string }) => s.currency === 'USD'));
    const page = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/sessions?limit=1`);
    assert.ok(page.json.data.next_cursor);
    const next = await staffCall(
      w.h.base,
      token,
      'GET',
      `/operators/${OP_A}/sessions?limit=1&cursor=${page.json.data.next_cursor}`,
    );
    assert.notEqual(next.json.data.items[0].session_id, page.json.data.items[0].session_id);
    const one = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/sessions/${played.sessionId}`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.data.rounds.total, 4);
    assert.deepEqual(
      one.json.data.round_page.items.map((r: { round_id: string }) => r.round_id).sort(),
      [...played.rounds].sort(),
    );
  });

  test('sessions: the game and status filters narrow the list to exactly the matching sessions, and combine', async () => {
    const token = await login(w.h.base, w.staff.viewerA);
    // A Mines session (launched, no round played) and a slot session revoked through the admin API.
    const minesPlayer = `stf-mines-${played.ext.slice(-6)}`;
    await w.admin.createPlayer({
      operatorId: OP_A,
      playerId: minesPlayer,
      currency: 'EUR',
      balanceMinor: 1_000,
    });
    const launched = await call(w.h.base, 'POST', '/api/provider/v1/launch-url', {
      key: w.keyA,
      body: { symbol: 'cnmines', external_player_id: minesPlayer, currency: 'EUR' },
    });
    assert.equal(launched.status, 200, launched.text);
    const minesSession = launched.json.session_id as string;
    const gone = await w.player('EUR', 1_000);
    const revoked = await adminCall('POST', `/api/admin/v1/sessions/${gone.sessionId}/revoke`, {
      reason: 'staff filter test',
    });
    assert.equal(revoked.status, 200, revoked.text);

    type Item = { session_id: string; game_symbol: string; status: string; player_id: string };
    const search = async (q: string): Promise<Item[]> => {
      const res = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/sessions?limit=200${q}`);
      assert.equal(res.status, 200, `${q}: ${res.text}`);
      return res.json.data.items;
    };
    const ids = (items: Item[]) => items.map((s) => s.session_id);
    const all = await search('');
    assert.ok(all.length >= 4, 'slot sessions, the Mines one and the revoked one');
    assert.ok(new Set(all.map((s) => s.game_symbol)).size >= 2, 'more than one game to tell apart');

    // By game: exactly the sessions of that game, newest first like the unfiltered list.
    const mines = await search('&game_symbol=cnmines');
    assert.deepEqual(ids(mines), [minesSession]);
    const slots = await search(`&game_symbol=${slot.symbol}`);
    assert.deepEqual(ids(slots), ids(all.filter((s) => s.game_symbol === slot.symbol)));
    assert.ok(!ids(slots).includes(minesSession));
    assert.deepEqual(await search('&game_symbol=vs20nosuchgame'), []);

    // By status: the revoked one alone; active is everything else.
    assert.deepEqual(ids(await search('&status=revoked')), [gone.sessionId]);
    const active = await search('&status=active');
    assert.deepEqual(ids(active), ids(all.filter((s) => s.session_id !== gone.sessionId)));
    assert.ok(active.every((s) => s.status === 'active'));
    assert.deepEqual(await search('&status=closed'), []);

    // Combined with each other and with the player: every filter must hold.
    assert.deepEqual(ids(await search(`&game_symbol=${slot.symbol}&status=revoked`)), [gone.sessionId]);
    assert.deepEqual(await search('&game_symbol=cnmines&status=revoked'), []);
    assert.deepEqual(ids(await search(`&game_symbol=cnmines&player_id=${minesPlayer}`)), [minesSession]);
    assert.deepEqual(await search(`&game_symbol=cnmines&player_id=${played.ext}`), []);

    // A status the contract does not know is refused, not ignored.
    const bad = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/sessions?status=expired`);
    assert.equal(bad.status, 422, bad.text);
  });

  test('a round: its transactions on a timeline with attempts and times', async () => {
    const token = await login(w.h.base, w.staff.viewerA);
    const res = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/rounds/${played.rounds[0]}`);
    assert.equal(res.status, 200, res.text);
    const d = res.json.data;
    assert.deepEqual(
      d.timeline.map(
        (t: { transaction_type: string; status: string }) => `${t.transaction_type}:${t.status}`,
      ),
      ['debit:success', 'credit:success'],
    );
    assert.ok(
      d.timeline.every((t: { created_at: string; attempts: number }) => t.created_at && t.attempts >= 1),
    );
    assert.equal(d.transactions.length, 2);
    assert.deepEqual(d.stages, []);
  });

  test('reconciliation: balanced over real rounds; the CSV; charts of bet and win and RTP per title', async () => {
    const token = await login(w.h.base, w.staff.viewerA);
    const rec = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/reconciliation`);
    assert.equal(rec.status, 200, rec.text);
    assert.equal(rec.json.data.balanced, true, rec.text);
    assert.deepEqual(
      rec.json.data.currencies.map((c: { currency: string }) => c.currency),
      ['EUR', 'USD'],
    );
    assert.deepEqual(rec.json.data.by_day, []);
    const csv = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/reconciliation.csv`);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(csv.text.split('\r\n')[0], RECONCILIATION_CSV_HEADER.join(','));
    const charts = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/charts`);
    assert.equal(charts.status, 200, charts.text);
    const eur = charts.json.data.daily.find((d: { currency: string }) => d.currency === 'EUR');
    assert.equal(eur.rounds, 4);
    assert.equal(eur.bet_minor, 100 + 101 + 102 + 103);
    assert.ok(charts.json.data.titles.every((t: { stored_rtp: string | null }) => t.stored_rtp));
  });
});

describe('staff actions', () => {
  test('wallet diagnostics: every check passes against the sandbox; a wrong secret fails and says why', async () => {
    const prov = await login(w.h.base, w.staff.provider);
    await w.admin.createPlayer({
      operatorId: OP_A,
      playerId: 'diag-player-a',
      currency: 'EUR',
      balanceMinor: 5_000,
    });
    const ok = await staffCall(w.h.base, prov, 'POST', `/operators/${OP_A}/wallet-diagnostics`, {
      player_id: 'diag-player-a',
      currency: 'EUR',
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(
      ok.json.data.checks.map((c: { id: string; passed: boolean; status: string }) => [
        c.id,
        c.passed,
        c.status,
      ]),
      [
        ['signature', true, 'passed'],
        ['balance', true, 'passed'],
        ['debit', true, 'passed'],
        ['duplicate', true, 'passed'],
        ['credit', true, 'passed'],
        ['cancel', true, 'passed'],
        ['rollback', true, 'passed'],
        ['insufficient_funds', true, 'passed'],
        // No protection test player is named for OP_A: neither a pass nor a failure.
        ['protection_refusal', false, 'not_configured'],
        ['promo_win', true, 'passed'],
      ],
      ok.text,
    );
    assert.equal(ok.json.data.passed, true);
    assert.ok(!ok.text.includes('wsec_'), 'the wallet secret never leaves the API');
    assert.equal(
      (await w.admin.balance(OP_A, 'diag-player-a', 'EUR')).balance_minor,
      '5000',
      'test money nets to zero',
    );

    await w.admin.createPlayer({
      operatorId: OP_B,
      playerId: 'diag-player-b',
      currency: 'EUR',
      balanceMinor: 5_000,
    });
    const bad = await staffCall(w.h.base, prov, 'POST', `/operators/${OP_B}/wallet-diagnostics`, {
      player_id: 'diag-player-b',
      currency: 'EUR',
    });
    assert.equal(bad.status, 200, bad.text);
    assert.equal(bad.json.data.passed, false);
    const balance = bad.json.data.checks.find((c: { id: string }) => c.id === 'balance');
    assert.equal(balance.passed, false);
    assert.equal(balance.http_status, 401);
    assert.match(balance.detail, /secret configured for this operator does not match/);
    const audit = await staffCall(
      w.h.base,
      prov,
      'GET',
      `/operators/${OP_B}/audit-log?action=wallet.diagnostics`,
    );
    assert.equal(audit.json.data.items[0].result, 'failed');
    assert.equal(audit.json.data.items[0].username, 'prov.admin');
  });

  test('wallet diagnostics: the protection refusal check is not configured, passes, and fails (rolled back)', async () => {
    const prov = await login(w.h.base, w.staff.provider);
    const player = 'diag-player-protect';
    const blocked = 'diag-blocked-test-account';
    await w.admin.createPlayer({ operatorId: OP_A, playerId: player, currency: 'EUR', balanceMinor: 5_000 });
    await w.admin.createPlayer({ operatorId: OP_A, playerId: blocked, currency: 'EUR', balanceMinor: 5_000 });
    const run = async () => {
      const res = await staffCall(w.h.base, prov, 'POST', `/operators/${OP_A}/wallet-diagnostics`, {
        player_id: player,
        currency: 'EUR',
      });
      assert.equal(res.status, 200, res.text);
      const check = res.json.data.checks.find((c: { id: string }) => c.id === 'protection_refusal');
      assert.ok(check, res.text);
      return { data: res.json.data, check };
    };
    const setting = (v: string | null) =>
      adminCall('PATCH', `/api/admin/v1/operators/${OP_A}`, { diagnostics_protection_player_id: v });
    try {
      // Not configured: shown as such, with how to configure it; the run still passes.
      const none = await run();
      assert.equal(none.check.status, 'not_configured');
      assert.equal(none.check.passed, false);
      assert.match(none.check.detail, /^not configured: .*diagnostics_protection_player_id/);
      assert.equal(none.data.passed, true);

      // Configured, and the wallet refuses the player with a protection code: passed.
      const set = await setting(blocked);
      assert.equal(set.status, 200, set.text);
      assert.equal(set.json.data.diagnostics_protection_player_id, blocked);
      await w.admin.setProtection({ operatorId: OP_A, playerId: blocked, refuseDebitsWith: 'self_excluded' });
      const refused = await run();
      assert.equal(refused.check.status, 'passed', refused.check.detail);
      assert.equal(refused.check.http_status, 400);
      assert.match(refused.check.detail, /was refused: self_excluded/);
      assert.equal(refused.data.passed, true);

      // A refusal that is not a protection code (insufficient funds) is a failure.
      await w.admin.setProtection({
        operatorId: OP_A,
        playerId: blocked,
        refuseDebitsWith: 'insufficient_funds',
      });
      const other = await run();
      assert.equal(other.check.status, 'failed');
      assert.match(other.check.detail, /refused with insufficient_funds, not a player-protection code/);

      // Configured, but the wallet takes the debit: a failure, and the debit is rolled back.
      await w.admin.setProtection({ operatorId: OP_A, playerId: blocked, refuseDebitsWith: null });
      const taken = await run();
      assert.equal(taken.check.status, 'failed');
      assert.equal(taken.check.passed, false);
      assert.match(
        taken.check.detail,
        /was accepted: the wallet does not refuse its protection test player \(rolled back again\)/,
      );
      assert.equal(taken.data.passed, false);
      assert.equal(
        (await w.admin.balance(OP_A, blocked, 'EUR')).balance_minor,
        '5000',
        'the accepted debit was rolled back',
      );
      const audit = await staffCall(
        w.h.base,
        prov,
        'GET',
        `/operators/${OP_A}/audit-log?action=wallet.diagnostics`,
      );
      assert.equal(audit.json.data.items[0].result, 'failed');

      // A bad value is refused by the admin API.
      assert.equal((await setting(' padded ')).status, 422);
    } finally {
      await setting(null);
      await w.admin.setProtection({ operatorId: OP_A, playerId: blocked, refuseDebitsWith: null });
    }
    assert.equal((await w.admin.balance(OP_A, player, 'EUR')).balance_minor, '5000');
  });

  test('cancel a stuck settlement through the workflow; refused for a settled round; both audited', async () => {
    const token = await login(w.h.base, w.staff.adminA);
    const p = await w.player('EUR', 20_000);
    const roundId = await w.stuckRound(p.sessionId, p.ext, 'EUR');
    const stuck = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/stuck`);
    assert.ok(stuck.json.data.items.some((r: { round_id: string }) => r.round_id === roundId));
    const res = await staffCall(w.h.base, token, 'POST', `/operators/${OP_A}/rounds/${roundId}/cancel`, {
      reason: 'wallet down, player asked',
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.data.result, 'accepted', res.text);
    // The signal is in the workflow's history at once; a workflow task after it has seen it (while
    // the debit retries as a local activity, that is the task's next heartbeat).
    await w.until(
      'the workflow to take the signal',
      async () => {
        const events = (await w.client.workflow.getHandle(roundId).fetchHistory()).events ?? [];
        const signalled = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes);
        return signalled >= 0 && events.slice(signalled).some((e) => e.workflowTaskCompletedEventAttributes);
      },
      60_000,
    );
    await w.admin.setFaults({});
    try {
      await w.until('the round cancelled', async () => {
        const { rows } = await w.h.db.pool.query('SELECT status, stuck FROM rounds WHERE round_id = $1', [
          roundId,
        ]);
        return rows[0]?.status === 'cancelled' && rows[0]?.stuck === false;
      });
    } catch (err) {
      const r = await w.h.db.pool.query('SELECT status, stuck FROM rounds WHERE round_id = $1', [roundId]);
      const t = await w.h.db.pool.query(
        'SELECT transaction_id, status, attempts, last_error FROM wallet_transactions WHERE round_id = $1',
        [roundId],
      );
      throw new Error(`${(err as Error).message}: ${JSON.stringify(r.rows)} ${JSON.stringify(t.rows)}`);
    }
    assert.equal((await w.admin.balance(OP_A, p.ext, 'EUR')).balance_minor, '20000', 'the wager came back');

    const settled = await staffCall(
      w.h.base,
      token,
      'POST',
      `/operators/${OP_A}/rounds/${played.rounds[1]}/cancel`,
      {
        reason: 'too late',
      },
    );
    assert.equal(settled.json.data.result, 'refused');
    const log = await staffCall(w.h.base, token, 'GET', `/operators/${OP_A}/audit-log?action=round.cancel`);
    const rows = log.json.data.items as {
      target: string;
      result: string;
      username: string;
      detail: { reason: string };
    }[];
    assert.deepEqual(
      rows.slice(0, 2).map((r) => [r.target, r.result, r.username]),
      [
        [played.rounds[1], 'refused', 'alice'],
        [roundId, 'accepted', 'alice'],
      ],
    );
    assert.equal(rows[1]!.detail.reason, 'wallet down, player asked');
    await assert.rejects(
      w.h.db.pool.query(`DELETE FROM staff_audit_log`),
      /append-only/,
      'the audit log cannot be rewritten',
    );
  });
});
