import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { REVENUE_REPORT_CSV_HEADER, RevenueReportResponse, type RevenueReportRow } from '@opi/contract';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';
import { parseRfc4180 } from '../audit/test-support/rfc4180.js';
import { reportDrift } from './recount.js';

/*
 * Issue 38 points 1 and 2: the daily figures, GGR and GGY. Rounds and journal rows are written as
 * the settlement writes them (the journal's own rows, each case worked out by hand below), then
 * the operator's and the admin's reports are read and checked figure by figure, and against the
 * independent recount (reportDrift) the reliability suite runs after every fault.
 */
const [S1, S2] = CATALOG.filter((e) => e.provider_id === 'prov_a').map((e) => e.symbol) as [string, string];
let h: Harness;
let keyA = '';
let keyB = '';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function player(id: string, op: string) {
  await h.db.pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ($1, $2, $1, 'global')`,
    [id, op],
  );
}
async function session(
  id: string,
  op: string,
  p: string,
  symbol: string,
  currency: string,
  jurisdiction?: string,
) {
  await h.db.pool.query(
    `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency, jurisdiction)
     VALUES ($1, $2, $3, $4, 'prov_a', $5, $6)`,
    [id, op, p, symbol, currency, jurisdiction ?? null],
  );
}
interface RoundSpec {
  id: string;
  op?: string;
  session: string;
  player: string;
  symbol: string;
  currency?: string;
  at: string;
  status: string;
  bet?: number;
  win?: number;
  free?: boolean;
  jc?: number;
}
async function round(r: RoundSpec) {
  await h.db.pool.query(
    `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
       bet_minor, win_minor, intent, created_at, free_round_campaign_id, jackpot_contribution_micros)
     VALUES ($1, $2, $3, $4, $5, 'prov_a', $6, $7, $8, $9, '{}', $10, $11, $12)`,
    [
      r.id,
      r.op ?? 'op_rev_a',
      r.session,
      r.player,
      r.symbol,
      r.currency ?? 'EUR',
      r.status,
      r.bet ?? 0,
      r.win ?? 0,
      r.at,
      r.free ? 'camp_1' : null,
      r.jc ?? null,
    ],
  );
}
async function tx(
  id: string,
  roundId: string,
  type: string,
  amount: number,
  status: 'success' | 'failed' | 'pending',
  o: {
    op?: string;
    currency?: string;
    original?: string;
    session?: string;
    player?: string;
    symbol?: string;
  } = {},
) {
  const body = JSON.stringify({ transaction_id: id, amount_minor: amount });
  await h.db.pool.query(
    `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
       transaction_type, amount_minor, currency, request_body, request_hash, original_transaction_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      o.op ?? 'op_rev_a',
      o.session ?? 's',
      roundId,
      o.player ?? 'x',
      o.symbol ?? S1,
      type,
      amount,
      o.currency ?? 'EUR',
      body,
      sha(body),
      o.original ?? null,
    ],
  );
  if (status !== 'pending')
    await h.db.pool.query(
      `UPDATE wallet_transactions SET status = $2, completed_at = now() WHERE transaction_id = $1`,
      [id, status],
    );
}
async function payout(
  id: string,
  type: 'tournament' | 'prize_drop',
  p: string,
  sessionId: string,
  symbol: string,
  amount: number,
  at: string,
) {
  await h.db.pool.query(
    `INSERT INTO promo_payouts (payout_id, promo_type, promo_id, operator_id, external_player_id, player_id, currency,
       amount_minor, rank, session_id, game_symbol, status, created_at, paid_at)
     VALUES ($1, $2, $3, 'op_rev_a', $4, $4, 'EUR', $5, $6, $7, $8, 'paid', $9, $9)`,
    [id, type, `promo_${id.slice(5, 9)}`, p, amount, type === 'tournament' ? 1 : null, sessionId, symbol, at],
  );
  await tx(`${id}:credit`, id, 'credit', amount, 'success', { session: sessionId, player: p, symbol });
}

before(async () => {
  h = await startApi();
  keyA = (await createOperator(h.base, 'op_rev_a')).key;
  keyB = (await createOperator(h.base, 'op_rev_b')).key;
  for (const p of ['rev_p1', 'rev_p2', 'rev_p3']) await player(p, 'op_rev_a');
  await player('rev_q1', 'op_rev_b');
  await session('rs_1', 'op_rev_a', 'rev_p1', S1, 'EUR');
  await session('rs_2', 'op_rev_a', 'rev_p2', S1, 'EUR', 'GB-ENG');
  await session('rs_1b', 'op_rev_a', 'rev_p1', S2, 'EUR');
  await session('rs_3', 'op_rev_a', 'rev_p3', S2, 'EUR');
  await session('rs_2b', 'op_rev_a', 'rev_p2', S2, 'EUR', 'GB');
  await session('rs_1u', 'op_rev_a', 'rev_p1', S1, 'USD');
  await session('rs_q', 'op_rev_b', 'rev_q1', S1, 'EUR');
  const d2 = '2026-03-02T12:00:00Z';
  // r1: a paid round, won 300.
  await round({
    id: 'rv1',
    session: 'rs_1',
    player: 'rev_p1',
    symbol: S1,
    at: d2,
    status: 'completed',
    bet: 1000,
    win: 300,
  });
  await tx('rv1:debit', 'rv1', 'debit', 1000, 'success');
  await tx('rv1:credit', 'rv1', 'credit', 300, 'success');
  // r2: GB, fed a jackpot (5000 micros) and hit it (200), no line win.
  await round({
    id: 'rv2',
    session: 'rs_2',
    player: 'rev_p2',
    symbol: S1,
    at: d2,
    status: 'completed',
    bet: 500,
    jc: 5000,
  });
  await tx('rv2:debit', 'rv2', 'debit', 500, 'success');
  await tx('rv2:credit', 'rv2', 'credit', 0, 'success');
  await tx('rv2:jackpot:mini', 'rv2', 'credit', 200, 'success');
  // r3: rolled back; r4: cancelled; r5: refused (nothing moved).
  await round({
    id: 'rv3',
    session: 'rs_1',
    player: 'rev_p1',
    symbol: S1,
    at: d2,
    status: 'rolled_back',
    bet: 700,
    jc: 3500,
  });
  await tx('rv3:debit', 'rv3', 'debit', 700, 'success');
  await tx('rv3:rollback', 'rv3', 'rollback', 700, 'success', { original: 'rv3:debit' });
  await round({
    id: 'rv4',
    session: 'rs_1b',
    player: 'rev_p1',
    symbol: S2,
    at: d2,
    status: 'cancelled',
    bet: 400,
  });
  await tx('rv4:debit', 'rv4', 'debit', 400, 'success', { symbol: S2 });
  await tx('rv4:cancel', 'rv4', 'cancel', 400, 'success', { original: 'rv4:debit', symbol: S2 });
  await round({
    id: 'rv5',
    session: 'rs_3',
    player: 'rev_p3',
    symbol: S2,
    at: d2,
    status: 'rejected',
    bet: 100,
  });
  await tx('rv5:debit', 'rv5', 'debit', 100, 'failed', { symbol: S2 });
  // r6: a free round (GB) that won 250.
  await round({
    id: 'rv6',
    session: 'rs_2b',
    player: 'rev_p2',
    symbol: S2,
    at: d2,
    status: 'completed',
    win: 250,
    free: true,
  });
  await tx('rv6:credit', 'rv6', 'credit', 250, 'success', { symbol: S2 });
  // r7: USD, won 1800 on 900.
  await round({
    id: 'rv7',
    session: 'rs_1u',
    player: 'rev_p1',
    symbol: S1,
    currency: 'USD',
    at: d2,
    status: 'completed',
    bet: 900,
    win: 1800,
  });
  await tx('rv7:debit', 'rv7', 'debit', 900, 'success', { currency: 'USD' });
  await tx('rv7:credit', 'rv7', 'credit', 1800, 'success', { currency: 'USD' });
  // r8: late on 4 March UTC (5 March in Malta); r9: debit still pending (not counted yet).
  await round({
    id: 'rv8',
    session: 'rs_1',
    player: 'rev_p1',
    symbol: S1,
    at: '2026-03-04T23:30:00Z',
    status: 'completed',
    bet: 100,
  });
  await tx('rv8:debit', 'rv8', 'debit', 100, 'success');
  await tx('rv8:credit', 'rv8', 'credit', 0, 'success');
  await round({
    id: 'rv9',
    session: 'rs_1',
    player: 'rev_p1',
    symbol: S1,
    at: '2026-03-04T10:00:00Z',
    status: 'settling',
    bet: 100,
  });
  await tx('rv9:debit', 'rv9', 'debit', 100, 'pending');
  // Promotional payouts: a tournament prize (not GB) and a prize drop (GB).
  await payout(`pp_t_rev_${'a'.repeat(32)}`, 'tournament', 'rev_p1', 'rs_1', S1, 1000, d2);
  await payout(`pp_d_rev_${'b'.repeat(32)}`, 'prize_drop', 'rev_p2', 'rs_2b', S2, 50, d2);
  // Another operator's round on the same day: never in op_rev_a's report.
  await round({
    id: 'rvq',
    op: 'op_rev_b',
    session: 'rs_q',
    player: 'rev_q1',
    symbol: S1,
    at: d2,
    status: 'completed',
    bet: 5000,
  });
  await tx('rvq:debit', 'rvq', 'debit', 5000, 'success', { op: 'op_rev_b' });
});
after(() => h?.close());

const get = (key: string, path: string) => call(h.base, 'GET', path, { key, sign: true });
async function report(key: string, query: string, prefix = '/api/operator/v1') {
  const res = await get(key, `${prefix}/reports/revenue?${query}`);
  assert.equal(res.status, 200, res.text);
  return RevenueReportResponse.parse(res.json).data;
}
const money = (r: RevenueReportRow) =>
  Object.fromEntries(
    Object.entries(r)
      .filter(([k]) => !['operator_id', 'day', 'game_symbol', 'currency', 'no_activity'].includes(k))
      .map(([k, v]) => [k, typeof v === 'bigint' || typeof v === 'number' ? String(v) : v]),
  );
const zero = {
  rounds: '0',
  players: '0',
  stakes_minor: '0',
  cancelled_stakes_minor: '0',
  rolled_back_stakes_minor: '0',
  net_stakes_minor: '0',
  wins_minor: '0',
  free_round_wins_minor: '0',
  jackpot_contribution_micros: '0',
  jackpot_wins_minor: '0',
  tournament_payouts_minor: '0',
  prize_drop_payouts_minor: '0',
  ggr_minor: '0',
  ggy_minor: '0',
  ggy_gb_minor: '0',
  ggy_non_gb_minor: '0',
};

describe('daily figures per title and currency', () => {
  test('every figure of every bucket, worked out by hand; empty days reported as no activity', async () => {
    const r = await report(keyA, 'from=2026-03-01&to=2026-03-04');
    assert.equal(r.definition_version, 'opi-revenue/1');
    assert.equal(r.time_zone, 'UTC');
    assert.deepEqual(r.filters, {
      from: '2026-03-01',
      to: '2026-03-04',
      group_by: 'day_title_currency',
      currency: null,
      game_symbol: null,
      operator_id: 'op_rev_a',
    });
    assert.equal(r.no_activity, false);
    const keyed = r.rows.map((x) => `${x.day}|${x.game_symbol}|${x.currency}|${x.no_activity}`);
    assert.deepEqual(keyed, [
      '2026-03-01|null|null|true',
      `2026-03-02|${S1}|EUR|false`,
      `2026-03-02|${S1}|USD|false`,
      `2026-03-02|${S2}|EUR|false`,
      '2026-03-03|null|null|true',
      `2026-03-04|${S1}|EUR|false`,
    ]);
    assert.deepEqual(money(r.rows[0]!), zero);
    assert.deepEqual(money(r.rows[1]!), {
      ...zero,
      rounds: '2',
      players: '2',
      stakes_minor: '2200',
      rolled_back_stakes_minor: '700',
      net_stakes_minor: '1500',
      wins_minor: '300',
      jackpot_contribution_micros: '5000',
      jackpot_wins_minor: '200',
      tournament_payouts_minor: '1000',
      ggr_minor: '1000',
      ggy_minor: '0',
      ggy_gb_minor: '300',
      ggy_non_gb_minor: '-300',
    });
    assert.deepEqual(money(r.rows[2]!), {
      ...zero,
      rounds: '1',
      players: '1',
      stakes_minor: '900',
      net_stakes_minor: '900',
      wins_minor: '1800',
      ggr_minor: '-900',
      ggy_minor: '-900',
      ggy_non_gb_minor: '-900',
    });
    assert.deepEqual(money(r.rows[3]!), {
      ...zero,
      rounds: '1',
      players: '1',
      stakes_minor: '400',
      cancelled_stakes_minor: '400',
      free_round_wins_minor: '250',
      prize_drop_payouts_minor: '50',
      ggy_minor: '-300',
      ggy_gb_minor: '-300',
    });
    assert.deepEqual(money(r.rows[5]!), {
      ...zero,
      rounds: '1',
      players: '1',
      stakes_minor: '100',
      net_stakes_minor: '100',
      ggr_minor: '100',
      ggy_minor: '100',
      ggy_non_gb_minor: '100',
    });
  });

  test('by day, by title, by currency; filters', async () => {
    const byDay = await report(keyA, 'from=2026-03-02&to=2026-03-03&group_by=day');
    assert.deepEqual(
      byDay.rows.map((x) => [x.day, x.game_symbol, x.currency, x.rounds, x.players, String(x.ggr_minor)]),
      [
        ['2026-03-02', null, 'EUR', 3, 2, '1000'],
        ['2026-03-02', null, 'USD', 1, 1, '-900'],
        ['2026-03-03', null, null, 0, 0, '0'],
      ],
    );
    const byTitle = await report(keyA, 'from=2026-03-01&to=2026-03-31&group_by=title');
    assert.deepEqual(
      byTitle.rows.map((x) => [
        x.day,
        x.game_symbol,
        x.currency,
        x.rounds,
        x.players,
        String(x.net_stakes_minor),
      ]),
      [
        [null, S1, 'EUR', 3, 2, '1600'],
        [null, S1, 'USD', 1, 1, '900'],
        [null, S2, 'EUR', 1, 1, '0'],
      ],
    );
    const byCurrency = await report(keyA, 'from=2026-03-01&to=2026-03-31&group_by=currency&currency=EUR');
    assert.equal(byCurrency.rows.length, 1);
    assert.equal(byCurrency.rows[0]!.rounds, 4);
    assert.equal(byCurrency.rows[0]!.players, 2);
    assert.equal(byCurrency.filters.currency, 'EUR');
    const oneTitle = await report(keyA, `from=2026-03-02&to=2026-03-02&game_symbol=${S2}`);
    assert.deepEqual(
      oneTitle.rows.map((x) => x.game_symbol),
      [S2],
    );
    const empty = await report(keyA, 'from=2025-01-01&to=2025-01-02&group_by=title');
    assert.equal(empty.no_activity, true);
    assert.deepEqual(empty.rows, []);
    const emptyDays = await report(keyA, 'from=2025-01-01&to=2025-01-02');
    assert.equal(emptyDays.no_activity, true);
    assert.deepEqual(
      emptyDays.rows.map((x) => [x.day, x.no_activity]),
      [
        ['2025-01-01', true],
        ['2025-01-02', true],
      ],
    );
  });

  test('the figures equal an independent recount from the journal', async () => {
    assert.deepEqual(await reportDrift(h.db.pool, 'op_rev_a'), []);
    assert.deepEqual(await reportDrift(h.db.pool, 'op_rev_b'), []);
  });

  test('CSV: a header row, the same rows, CRLF, int64 exactly', async () => {
    const res = await get(keyA, '/api/operator/v1/reports/revenue.csv?from=2026-03-01&to=2026-03-04');
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    const rows = parseRfc4180(res.text);
    assert.deepEqual(rows[0], [...REVENUE_REPORT_CSV_HEADER]);
    assert.equal(rows.length, 7);
    const at = (col: string) => REVENUE_REPORT_CSV_HEADER.indexOf(col as never);
    assert.equal(rows[1]![at('no_activity')], 'true');
    assert.equal(rows[1]![at('currency')], '');
    assert.equal(rows[2]![at('ggy_non_gb_minor')], '-300');
    assert.equal(rows[2]![at('jackpot_contribution_micros')], '5000');
  });

  test('the operator reporting time zone moves a round to its local day', async () => {
    const set = await call(h.base, 'PUT', '/api/admin/v1/operators/op_rev_a/reporting-time-zone', {
      key: ADMIN_KEY,
      sign: true,
      body: { time_zone: 'Europe/Malta' },
    });
    assert.equal(set.status, 200, set.text);
    try {
      const r = await report(keyA, 'from=2026-03-04&to=2026-03-05&group_by=day');
      assert.equal(r.time_zone, 'Europe/Malta');
      assert.deepEqual(
        r.rows.map((x) => [x.day, x.currency, x.rounds]),
        [
          ['2026-03-04', null, 0],
          ['2026-03-05', 'EUR', 1],
        ],
      );
      assert.deepEqual(await reportDrift(h.db.pool, 'op_rev_a'), []);
    } finally {
      await call(h.base, 'PUT', '/api/admin/v1/operators/op_rev_a/reporting-time-zone', {
        key: ADMIN_KEY,
        sign: true,
        body: { time_zone: 'UTC' },
      });
    }
    for (const [body, status] of [
      [{ time_zone: 'Mars/Olympus_Mons' }, 422],
      [{ time_zone: '' }, 422],
      [{ time_zone: 'UTC', x: 1 }, 422],
      [{}, 422],
    ] as const) {
      const res = await call(h.base, 'PUT', '/api/admin/v1/operators/op_rev_a/reporting-time-zone', {
        key: ADMIN_KEY,
        sign: true,
        body,
      });
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
    }
    const unknown = await call(h.base, 'PUT', '/api/admin/v1/operators/op_nobody/reporting-time-zone', {
      key: ADMIN_KEY,
      sign: true,
      body: { time_zone: 'UTC' },
    });
    assert.equal(unknown.status, 404);
    const notAdmin = await call(h.base, 'PUT', '/api/admin/v1/operators/op_rev_a/reporting-time-zone', {
      key: keyA,
      sign: true,
      body: { time_zone: 'UTC' },
    });
    assert.equal(notAdmin.status, 403);
  });
});

describe('access and bad input', () => {
  test('an operator reads only its own; the admin reads across operators or one', async () => {
    const b = await report(keyB, 'from=2026-03-02&to=2026-03-02&group_by=currency');
    assert.deepEqual(
      b.rows.map((x) => [x.operator_id, x.currency, String(x.stakes_minor)]),
      [['op_rev_b', 'EUR', '5000']],
    );
    const all = await report(ADMIN_KEY, 'from=2026-03-02&to=2026-03-02&group_by=currency', '/api/admin/v1');
    assert.equal(all.operator_id, null);
    assert.equal(all.time_zone, null);
    const ours = all.rows.filter((x) => x.operator_id.startsWith('op_rev_'));
    assert.deepEqual(
      ours.map((x) => [x.operator_id, x.currency]),
      [
        ['op_rev_a', 'EUR'],
        ['op_rev_a', 'USD'],
        ['op_rev_b', 'EUR'],
      ],
    );
    const one = await report(
      ADMIN_KEY,
      'from=2026-03-02&to=2026-03-02&group_by=currency&operator_id=op_rev_b',
      '/api/admin/v1',
    );
    assert.deepEqual(
      one.rows.map((x) => x.operator_id),
      ['op_rev_b'],
    );
    const csv = await get(
      ADMIN_KEY,
      '/api/admin/v1/reports/revenue.csv?from=2026-03-02&to=2026-03-02&operator_id=op_rev_b',
    );
    assert.equal(csv.status, 200, csv.text);
    assert.equal(parseRfc4180(csv.text).length, 2);
    assert.equal(
      (await get(ADMIN_KEY, '/api/admin/v1/reports/revenue?from=2026-03-02&to=2026-03-02&operator_id=op_zz'))
        .status,
      404,
    );
    assert.equal(
      (await get(keyA, '/api/admin/v1/reports/revenue?from=2026-03-02&to=2026-03-02')).status,
      403,
    );
    assert.equal(
      (await get(ADMIN_KEY, '/api/operator/v1/reports/revenue?from=2026-03-02&to=2026-03-02')).status,
      403,
    );
  });

  test('every malformed parameter is a 422 naming it, never a 5xx', async () => {
    const cases: [string, string][] = [
      ['to=2026-03-02', 'from'],
      ['from=2026-03-02', 'to'],
      ['from=2026-03-03&to=2026-03-02', 'to'],
      ['from=2026-01-01&to=2027-01-02', 'to'],
      ['from=2026-02-30&to=2026-03-02', 'from'],
      ['from=0000-01-01&to=2026-03-02', 'from'],
      ['from=2026-03-01&to=2026-03-02&group_by=week', 'group_by'],
      ['from=2026-03-01&to=2026-03-02&currency=eur', 'currency'],
      ['from=2026-03-01&to=2026-03-02&game_symbol=%00', 'game_symbol'],
      ['from=2026-03-01&to=2026-03-02&player_id=x', ''],
    ];
    for (const [q, field] of cases) {
      const res = await get(keyA, `/api/operator/v1/reports/revenue?${q}`);
      assert.equal(res.status, 422, `${q}: ${res.text}`);
      if (field) assert.ok(JSON.stringify(res.json.detail).includes(field), `${q}: ${res.text}`);
    }
    const wide = await get(keyA, '/api/operator/v1/reports/revenue?from=2026-01-01&to=2026-12-31');
    assert.equal(wide.status, 200, wide.text);
    const last = await get(keyA, '/api/operator/v1/reports/revenue?from=9999-12-01&to=9999-12-31');
    assert.equal(last.status, 200, last.text);
    assert.equal(last.json.data.rows.length, 31);
    const admin = await get(
      ADMIN_KEY,
      '/api/admin/v1/reports/revenue?from=2026-03-01&to=2026-03-02&operator_id=Op%00',
    );
    assert.equal(admin.status, 422);
  });
});
