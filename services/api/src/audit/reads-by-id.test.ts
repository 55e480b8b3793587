import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import { writeAudit } from '../staff/audit-log.js';
import {
  DROP,
  type Seeded,
  SHORT,
  seedPromotions,
  tournamentBody,
} from '../staff/test-support/promotions.js';
import { login, OP_A, OP_B, slot, staffCall, startWorld, type World } from '../staff/test-support/world.js';

/*
 * Issue 34 point 4: every read by id answers another operator's record exactly as an id that does
 * not exist (status, headers that matter, body, and the same statements: nothing to time), through
 * the operator API (/api/operator/v1, /api/provider/v1) and the staff API; and a payout id, which
 * names one player's prize, is nothing another operator can compute from a player id (it was
 * `pp_<t|d>_<promo>_` + sha256(operator \n player \n currency)). Real parts: the API and game
 * server, PostgreSQL, Temporal with a worker, the sandbox wallet over HTTP; the tournament and the
 * prize drop are paid by their workflows (staff/test-support/promotions.ts).
 */
let w: World;
let seeded: Seeded;
/** op_staff_a's records, read by op_staff_b's key and by staff through op_staff_b's path. */
const a = {} as {
  sessionId: string;
  roundId: string;
  minesRound: string;
  minesSession: string;
  campaign: string;
  auditId: string;
  tournamentPayout: string;
  onlyA: string;
};
/** op_staff_b's tournament prize (its rival in the short tournament), read by op_staff_a. */
let bPayout = '';

before(async () => {
  w = await startWorld();
  seeded = await seedPromotions(w);
  const pool = w.h.db.pool;
  const p = await w.player('EUR', 100_000);
  a.sessionId = p.sessionId;
  a.roundId = (await w.spin(p.token, 100)).round_id;
  const mines = await w.minesRound();
  a.minesRound = mines.roundId;
  a.minesSession = (
    await pool.query<{ session_id: string }>('SELECT session_id FROM rounds WHERE round_id = $1', [
      mines.roundId,
    ])
  ).rows[0]!.session_id;
  a.campaign = `c-scope-${randomUUID().slice(0, 8)}`;
  const hour = 3_600_000;
  const created = await call(w.h.base, 'POST', '/api/provider/v1/free-rounds', {
    key: w.keyA,
    sign: true,
    body: {
      campaign_id: a.campaign,
      symbols: [slot.symbol],
      currency: 'EUR',
      bet_minor: 100,
      rounds: 3,
      players: ['scope-player'],
      valid_from: new Date(Date.now() - hour).toISOString(),
      expires_at: new Date(Date.now() + 24 * hour).toISOString(),
    },
  });
  assert.equal(created.status, 201, created.text);
  a.auditId = (
    await writeAudit(pool, {
      staffId: null,
      username: 'scope-test',
      operatorId: OP_A,
      action: 'round.cancel',
      target: a.roundId,
      result: 'refused',
    })
  ).audit_id;
  const payouts = (
    await pool.query<{ operator_id: string; payout_id: string }>(
      `SELECT operator_id, payout_id FROM promo_payouts WHERE promo_type = 'tournament' AND promo_id = $1`,
      [SHORT],
    )
  ).rows;
  a.tournamentPayout = payouts.find((r) => r.operator_id === OP_A)!.payout_id;
  bPayout = payouts.find((r) => r.operator_id === OP_B)!.payout_id;
  // A tournament op_staff_a alone takes part in.
  a.onlyA = `scope-only-a-${randomUUID().slice(0, 8)}`;
  const now = Date.now();
  const admin = (method: string, path: string, body: unknown) =>
    call(w.h.base, method, `/api/admin/v1${path}`, { key: ADMIN_KEY, sign: true, body });
  assert.equal(
    (await admin('PUT', `/tournaments/${a.onlyA}`, tournamentBody('Only A', now, now + 86_400_000))).status,
    201,
  );
  assert.equal(
    (await admin('PUT', `/tournaments/${a.onlyA}/operators/${OP_A}`, { enabled: true })).status,
    200,
  );
});
after(() => w?.close());

interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

/**
 * The caller's own statements, which the caches (keys, operators, staff sessions) skip or repeat
 * by their own clocks and notifications: the same for any id, so left out of the comparison.
 */
const CALLER = /FROM api_keys |FROM operators WHERE operator_id = \$1$|request_nonces|FROM staff_sessions /;

/**
 * Runs `read` and records the text of every statement the API sent through its pool meanwhile
 * (parameters aside, the caller's own left out): an answer that took another statement could be
 * told apart by its time.
 */
async function traced(read: () => Promise<Answer>): Promise<{ res: Answer; statements: string[] }> {
  const pool = w.h.deps.pool as unknown as { query: (...args: unknown[]) => unknown };
  const original = pool.query;
  const statements: string[] = [];
  pool.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : (q as { text?: string; name?: string })?.text;
    const one = (text ?? '').replace(/\s+/g, ' ').trim();
    if (!CALLER.test(one)) statements.push(one);
    return original.apply(this, args);
  };
  try {
    return { res: await read(), statements };
  } finally {
    pool.query = original;
  }
}

/** Another operator's record and an unknown id: the same answer, from the same statements. */
async function sameAsUnknown(
  what: string,
  other: () => Promise<Answer>,
  unknown: () => Promise<Answer>,
  expected = 404,
) {
  // Once first, untraced: the key, operator and session caches are warm for both reads.
  await unknown();
  const o = await traced(other);
  const u = await traced(unknown);
  assert.equal(o.res.status, expected, `${what}: another operator's: ${o.res.status} ${o.res.text}`);
  assert.equal(u.res.status, expected, `${what}: unknown: ${u.res.status} ${u.res.text}`);
  assert.equal(o.res.text, u.res.text, `${what}: the bodies differ`);
  for (const h of ['content-type', 'content-length', 'cache-control', 'retry-after'])
    assert.equal(o.res.headers.get(h), u.res.headers.get(h), `${what}: ${h}`);
  assert.deepEqual(o.statements, u.statements, `${what}: other statements ran`);
}

const asB = (method: string, path: string, body?: unknown) => () =>
  call(w.h.base, method, path, { key: w.keyB, sign: true, ...(body === undefined ? {} : { body }) });
const asA = (method: string, path: string, body?: unknown) => () =>
  call(w.h.base, method, path, { key: w.keyA, sign: true, ...(body === undefined ? {} : { body }) });

test('the operator API: another operator’s session, round, transaction, replay link, payout, native history and campaign answer as unknown ids', async () => {
  const unknownRound = `r_${randomUUID()}`;
  const unknownSession = `s_${randomUUID()}`;
  const op = '/api/operator/v1';
  await sameAsUnknown(
    'session',
    asB('GET', `${op}/sessions/${a.sessionId}`),
    asB('GET', `${op}/sessions/${unknownSession}`),
  );
  await sameAsUnknown(
    'round',
    asB('GET', `${op}/rounds/${a.roundId}`),
    asB('GET', `${op}/rounds/${unknownRound}`),
  );
  await sameAsUnknown(
    'transaction',
    asB('GET', `${op}/transactions/${a.roundId}:debit`),
    asB('GET', `${op}/transactions/${unknownRound}:debit`),
  );
  await sameAsUnknown(
    'a payout’s credit',
    asB('GET', `${op}/transactions/${a.tournamentPayout}:credit`),
    asB('GET', `${op}/transactions/pp_t_${SHORT}_${'0'.repeat(32)}:credit`),
  );
  await sameAsUnknown(
    'replay link',
    asB('POST', `${op}/rounds/${a.roundId}/replay-url`, {}),
    asB('POST', `${op}/rounds/${unknownRound}/replay-url`, {}),
  );
  for (const [name, id] of [
    ['tournament payout', a.tournamentPayout],
    ['prize-drop payout', seeded.dropPayout],
  ] as const)
    await sameAsUnknown(
      name,
      asB('GET', `${op}/promo-payouts/${id}`),
      asB('GET', `${op}/promo-payouts/${id.slice(0, -32)}${'f'.repeat(32)}`),
    );
  await sameAsUnknown(
    'op_staff_b’s tournament payout, read by op_staff_a',
    asA('GET', `${op}/promo-payouts/${bPayout}`),
    asA('GET', `${op}/promo-payouts/${bPayout.slice(0, -32)}${'e'.repeat(32)}`),
  );
  const prov = '/api/provider/v1';
  await sameAsUnknown(
    'native session history',
    asB('GET', `${prov}/native/history?session_id=${a.minesSession}`),
    asB('GET', `${prov}/native/history?session_id=${unknownSession}`),
  );
  await sameAsUnknown(
    'native round history',
    asB('GET', `${prov}/native/history/${a.minesRound}?session_id=${a.minesSession}`),
    asB('GET', `${prov}/native/history/${a.minesRound}?session_id=${unknownSession}`),
  );
  const unknownCampaign = `c-none-${randomUUID().slice(0, 8)}`;
  await sameAsUnknown(
    'campaign',
    asB('GET', `${prov}/free-rounds/${a.campaign}`),
    asB('GET', `${prov}/free-rounds/${unknownCampaign}`),
  );
  await sameAsUnknown(
    'campaign players',
    asB('POST', `${prov}/free-rounds/${a.campaign}/players`, { players: ['x-1'] }),
    asB('POST', `${prov}/free-rounds/${unknownCampaign}/players`, { players: ['x-1'] }),
  );
  await sameAsUnknown(
    'campaign cancel',
    asB('DELETE', `${prov}/free-rounds/${a.campaign}`),
    asB('DELETE', `${prov}/free-rounds/${unknownCampaign}`),
  );
  await sameAsUnknown(
    'leaderboard of a tournament op_staff_b takes no part in',
    asB('GET', `${prov}/tournaments/${a.onlyA}/leaderboard`),
    asB('GET', `${prov}/tournaments/no-such-${randomUUID().slice(0, 8)}/leaderboard`),
  );
  // The owner still reads each of them.
  for (const path of [
    `${op}/sessions/${a.sessionId}`,
    `${op}/rounds/${a.roundId}`,
    `${op}/transactions/${a.roundId}:debit`,
    `${op}/promo-payouts/${a.tournamentPayout}`,
    `${op}/promo-payouts/${seeded.dropPayout}`,
    `${prov}/native/history?session_id=${a.minesSession}`,
    `${prov}/free-rounds/${a.campaign}`,
  ]) {
    const res = await asA('GET', path)();
    assert.equal(res.status, 200, `${path}: ${res.text}`);
  }
  // A key naming another operator is still 403 (the scope rule, not a read by id).
  assert.equal((await asB('GET', `${op}/rounds?operator_id=${OP_A}`)()).status, 403);
});

test('the staff API: another operator’s session, round, cancel, campaign, audit entry, tournament and drop answer as unknown ids', async () => {
  // Provider staff hold a role on every operator: op_staff_a's records asked for on op_staff_b's path.
  const prov = await login(w.h.base, w.staff.provider);
  const onB = (method: string, path: string, body?: unknown) => () =>
    staffCall(w.h.base, prov, method, `/operators/${OP_B}${path}`, body);
  const unknownRound = `r_${randomUUID()}`;
  await sameAsUnknown(
    'session',
    onB('GET', `/sessions/${a.sessionId}`),
    onB('GET', `/sessions/s_${randomUUID()}`),
  );
  await sameAsUnknown('round', onB('GET', `/rounds/${a.roundId}`), onB('GET', `/rounds/${unknownRound}`));
  await sameAsUnknown(
    'round cancel',
    onB('POST', `/rounds/${a.roundId}/cancel`, { reason: 'scope test' }),
    onB('POST', `/rounds/${unknownRound}/cancel`, { reason: 'scope test' }),
  );
  await sameAsUnknown(
    'campaign',
    onB('GET', `/free-rounds/${a.campaign}`),
    onB('GET', `/free-rounds/c-none-${randomUUID().slice(0, 8)}`),
  );
  await sameAsUnknown(
    'campaign cancel',
    onB('POST', `/free-rounds/${a.campaign}/cancel`, { reason: 'scope test' }),
    onB('POST', `/free-rounds/c-none-${randomUUID().slice(0, 8)}/cancel`, { reason: 'scope test' }),
  );
  await sameAsUnknown(
    'audit entry',
    onB('GET', `/audit-log/${a.auditId}`),
    onB('GET', '/audit-log/999999999999'),
  );
  await sameAsUnknown(
    'tournament op_staff_b takes no part in',
    onB('GET', `/tournaments/${a.onlyA}`),
    onB('GET', `/tournaments/no-such-${randomUUID().slice(0, 8)}`),
  );
  await sameAsUnknown(
    'prize drop op_staff_b is not in',
    onB('GET', `/prize-drops/${DROP}`),
    onB('GET', '/prize-drops/no-such-drop'),
  );
  // An operator's own staff, on their own operator's path, asking for the other's records.
  const adminA = await login(w.h.base, w.staff.adminA);
  const ownA = (method: string, path: string, body?: unknown) => () =>
    staffCall(w.h.base, adminA, method, `/operators/${OP_A}${path}`, body);
  const launched = await call(w.h.base, 'POST', '/api/provider/v1/launch-url', {
    key: w.keyB,
    body: { symbol: slot.symbol, external_player_id: `scope-b-${randomUUID().slice(0, 8)}`, currency: 'EUR' },
  });
  assert.equal(launched.status, 200, launched.text);
  const bSession = launched.json.session_id as string;
  await sameAsUnknown(
    'op_staff_b’s session',
    ownA('GET', `/sessions/${bSession}`),
    ownA('GET', `/sessions/s_${randomUUID()}`),
  );
  // The owner's own path still reads them.
  for (const path of [`/sessions/${a.sessionId}`, `/rounds/${a.roundId}`, `/audit-log/${a.auditId}`]) {
    const res = await ownA('GET', path)();
    assert.equal(res.status, 200, `${path}: ${res.text}`);
  }
});

test('payout ids are random: not the unkeyed hash of operator, player and currency; one per prize, as journalled', async () => {
  const { rows } = await w.h.db.pool.query<{
    payout_id: string;
    promo_type: string;
    promo_id: string;
    operator_id: string;
    external_player_id: string;
    currency: string;
    status: string;
  }>(
    `SELECT payout_id, promo_type, promo_id, operator_id, external_player_id, trim(currency) AS currency, status
       FROM promo_payouts WHERE promo_id = ANY($1) ORDER BY payout_id`,
    [[SHORT, DROP]],
  );
  // The short tournament's two prizes (op_staff_a's player, op_staff_b's rival) and the drop's
  // awards (the seed's, and one per player who spun since).
  assert.equal(rows.filter((r) => r.promo_type === 'tournament').length, 2);
  assert.ok(rows.some((r) => r.payout_id === seeded.dropPayout));
  const unkeyed = (r: (typeof rows)[number]) =>
    createHash('sha256')
      .update(`${r.operator_id}\n${r.external_player_id}\n${r.currency}`, 'utf8')
      .digest('hex')
      .slice(0, 32);
  for (const r of rows) {
    const prefix = `pp_${r.promo_type === 'tournament' ? 't' : 'd'}_${r.promo_id}_`;
    assert.ok(r.payout_id.startsWith(prefix), r.payout_id);
    const h = r.payout_id.slice(prefix.length);
    assert.match(h, /^[0-9a-f]{32}$/);
    assert.notEqual(
      h,
      unkeyed(r),
      `${r.payout_id} is the unkeyed hash of ${r.operator_id}/${r.external_player_id}`,
    );
  }
  // Written once and referenced as written: the standings, the round that won the drop and the
  // journal name the same ids.
  const { rows: standings } = await w.h.db.pool.query<{ payout_id: string }>(
    `SELECT payout_id FROM tournament_standings WHERE tournament_id = $1 AND payout_id IS NOT NULL ORDER BY payout_id`,
    [SHORT],
  );
  assert.deepEqual(
    standings.map((s) => s.payout_id),
    rows.filter((r) => r.promo_type === 'tournament').map((r) => r.payout_id),
  );
  const drop = rows.find((r) => r.payout_id === seeded.dropPayout)!;
  assert.equal(drop.status, 'paid');
  const { rows: won } = await w.h.db.pool.query<{ prize_drop_payout_id: string }>(
    'SELECT prize_drop_payout_id FROM rounds WHERE round_id = $1',
    [seeded.dropRound],
  );
  assert.deepEqual(won, [{ prize_drop_payout_id: drop.payout_id }]);
  const { rows: journal } = await w.h.db.pool.query<{ round_id: string; status: string }>(
    `SELECT round_id, status FROM wallet_transactions WHERE transaction_id = $1`,
    [`${drop.payout_id}:credit`],
  );
  assert.deepEqual(journal, [{ round_id: drop.payout_id, status: 'success' }]);
});
