import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  JackpotContributionSearchResponse,
  JackpotWinSearchResponse,
  PromoPayoutResponse,
  PromoPayoutSearchResponse,
  ReconciliationResponse,
  RoundDetailResponse,
  TransactionSearchResponse,
} from '@opi/contract';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import { startPayPromo } from '@opi/workflows';
import { journalDrift } from './reconciliation.js';
import { parseRfc4180 } from './test-support/rfc4180.js';

/*
 * Issue 25: operators see and check jackpot and promotional money through the signed audit API.
 * Real spins (game server, PostgreSQL, Temporal, the sandbox wallet over HTTP) feed a jackpot that
 * always hits; a promotional payout is written as a tournament's freeze writes it and paid by the
 * real payPromo workflow (another operator's by SQL, step by step).
 */
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
let w: PlayWorld;
let h: Harness;
let keyA = '';
let keyB = '';

/** mini always hits (any stake reaches hit_every_minor 1); mega never does in a test's lifetime.
 * A hit wins the pool as its spin found it (the seed, 500): the spin's own contribution goes in with
 * its debit (issue 34), after the reset. */
const ALWAYS_MINI = (operatorId: string) => ({
  name: 'Audit jackpot',
  scope: 'operator',
  operator_id: operatorId,
  titles: [slot.symbol],
  levels: [
    {
      level: 'mini',
      contribution_rate_ppm: 10_000,
      currencies: { EUR: { seed_minor: 500, hit_every_minor: 1 } },
    },
    {
      level: 'mega',
      contribution_rate_ppm: 5_000,
      currencies: { EUR: { seed_minor: 100_000, hit_every_minor: '1000000000000000' } },
    },
  ],
});

before(async () => {
  w = await startPlayWorld({
    queue: 'jackpot-audit',
    operators: [
      { id: 'op_jpa_a', titles: [slot.symbol] },
      { id: 'op_jpa_b', titles: [slot.symbol] },
    ],
    client: true,
  });
  h = w.h;
  keyA = w.operators.op_jpa_a!.key;
  keyB = w.operators.op_jpa_b!.key;
  for (const [id, op] of [
    ['jpa-a', 'op_jpa_a'],
    ['jpa-b', 'op_jpa_b'],
  ] as const) {
    const res = await call(h.base, 'PUT', `/api/admin/v1/jackpots/${id}`, {
      key: ADMIN_KEY,
      sign: true,
      body: ALWAYS_MINI(op),
    });
    assert.equal(res.status, 201, res.text);
  }
});
after(() => w.close());

const get = (key: string, path: string) => call(h.base, 'GET', path, { key, sign: true });

async function ok<T>(schema: { parse: (v: unknown) => T }, key: string, path: string): Promise<T> {
  const res = await get(key, path);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  return schema.parse(res.json);
}

/** A paid spin of a new player of `op`; waits until its hits are settled (paid or forfeited). */
async function jackpotSpin(op: 'op_jpa_a' | 'op_jpa_b', balance = 100_000) {
  const key = op === 'op_jpa_a' ? keyA : keyB;
  const player = await w.newPlayer(op, { prefix: 'jpa', balanceMinor: balance });
  const { token, sessionId } = await w.launch(key, { symbol: slot.symbol, external_player_id: player });
  // The definition reaches the game server's cache by a notification: spin until the round feeds it.
  const fed = async (roundId: string) =>
    (await h.db.pool.query(`SELECT jackpot_id FROM rounds WHERE round_id = $1`, [roundId])).rows[0]
      ?.jackpot_id;
  let res = await w.spin(token!, { bet_minor: 100 });
  for (let i = 0; i < 20 && (await fed(res.json.round_id)) == null; i++) {
    await new Promise((r) => setTimeout(r, 100));
    res = await w.spin(token!, { bet_minor: 100 });
  }
  assert.equal(res.status, 200, res.text);
  const roundId = res.json.round_id as string;
  await until(`round ${roundId} settles with its hits`, async () => {
    const { rows } = await h.db.pool.query(
      `SELECT r.status, r.jackpot_id, (SELECT count(*)::int FROM jackpot_hits j WHERE j.round_id = r.round_id
                                        AND j.status = 'pending') AS pending,
              (SELECT count(*)::int FROM wallet_transactions t WHERE t.round_id = r.round_id
                AND t.status = 'pending') AS pending_tx
         FROM rounds r WHERE r.round_id = $1`,
      [roundId],
    );
    const r = rows[0];
    return ['completed', 'rejected'].includes(r.status) && r.pending === 0 && r.pending_tx === 0;
  });
  return { roundId, player, sessionId, status: res.json.status as string, win: res.json.win_minor };
}

/** A tournament payout row as the freeze writes it (the payout id's form of migration 21). */
async function newPayout(op: string, player: string, sessionId: string, amountMinor: number, rank = 1) {
  const promoId = `t-${randomUUID().slice(0, 8)}`;
  const hex = createHash('sha256').update(`${op}\n${player}\nEUR`).digest('hex').slice(0, 32);
  const payoutId = `pp_t_${promoId}_${hex}`;
  await h.db.pool.query(
    `INSERT INTO promo_payouts (payout_id, promo_type, promo_id, operator_id, external_player_id, player_id, currency,
                                amount_minor, rank, session_id, game_symbol)
     SELECT $1, 'tournament', $2, $3, $4, s.player_id, 'EUR', $5, $6, $7, s.symbol
       FROM sessions s WHERE s.session_id = $7`,
    [payoutId, promoId, op, player, amountMinor, rank, sessionId],
  );
  return { payoutId, promoId };
}

/** The database's clock now: a window that starts here holds only what a test writes after. */
const dbNow = async () =>
  ((await h.db.pool.query(`SELECT clock_timestamp() AS t`)).rows[0].t as Date).toISOString();

const recon = (key: string, from: string) =>
  ok(ReconciliationResponse, key, `/api/operator/v1/reconciliation?from=${encodeURIComponent(from)}`);

describe('jackpot money in the audit API', () => {
  let from = '';
  let won: Awaited<ReturnType<typeof jackpotSpin>>;
  let refused: Awaited<ReturnType<typeof jackpotSpin>>;
  let other: Awaited<ReturnType<typeof jackpotSpin>>;

  before(async () => {
    from = await dbNow();
    won = await jackpotSpin('op_jpa_a');
    refused = await jackpotSpin('op_jpa_a', 10);
    other = await jackpotSpin('op_jpa_b');
    assert.equal(won.status, 'completed');
    assert.equal(refused.status, 'rejected');
  });

  test('contributions: the operator’s contributing rounds, exact micros, newest first, paged', async () => {
    const page = await ok(JackpotContributionSearchResponse, keyA, '/api/operator/v1/jackpot-contributions');
    const mine = page.data.items.filter((i) => [won.roundId, refused.roundId].includes(i.round_id));
    assert.deepEqual(
      mine.map((i) => [i.round_id, i.jackpot_id, i.round_status, i.stake_minor, i.contribution_micros]),
      [
        [refused.roundId, 'jpa-a', 'rejected', 100, '1500000'],
        [won.roundId, 'jpa-a', 'completed', 100, '1500000'],
      ],
    );
    const first = mine.find((i) => i.round_id === won.roundId)!;
    assert.equal(first.jackpot_win_minor, 500);
    assert.equal(first.player_id, won.player);
    assert.equal(first.session_id, won.sessionId);
    assert.equal(first.currency, 'EUR');
    // Another operator's rounds are never listed.
    assert.ok(page.data.items.every((i) => i.round_id !== other.roundId && i.jackpot_id === 'jpa-a'));
    // Filters and paging.
    const byStatus = await ok(
      JackpotContributionSearchResponse,
      keyA,
      `/api/operator/v1/jackpot-contributions?status=rejected&player_id=${refused.player}`,
    );
    assert.deepEqual(
      byStatus.data.items.map((i) => i.round_id),
      [refused.roundId],
    );
    const p1 = await ok(
      JackpotContributionSearchResponse,
      keyA,
      `/api/operator/v1/jackpot-contributions?limit=1&jackpot_id=jpa-a&from=${encodeURIComponent(from)}`,
    );
    assert.equal(p1.data.items.length, 1);
    assert.ok(p1.data.next_cursor);
    const p2 = await ok(
      JackpotContributionSearchResponse,
      keyA,
      `/api/operator/v1/jackpot-contributions?limit=1&jackpot_id=jpa-a&from=${encodeURIComponent(from)}&cursor=${p1.data.next_cursor}`,
    );
    assert.deepEqual(
      [p1.data.items[0]!.round_id, p2.data.items[0]!.round_id],
      [refused.roundId, won.roundId],
    );
    const none = await ok(
      JackpotContributionSearchResponse,
      keyB,
      `/api/operator/v1/jackpot-contributions?jackpot_id=jpa-a`,
    );
    assert.deepEqual(none.data.items, []);
  });

  test('wins: paid with its jackpot_win credit, forfeited when the wager never stood; others’ invisible', async () => {
    const wins = await ok(JackpotWinSearchResponse, keyA, '/api/operator/v1/jackpot-wins');
    const mine = wins.data.items.filter((i) => [won.roundId, refused.roundId].includes(i.round_id));
    assert.deepEqual(
      mine.map((i) => [i.round_id, i.jackpot_id, i.level, i.status, i.transaction_id]),
      [
        [refused.roundId, 'jpa-a', 'mini', 'forfeited', `${refused.roundId}:jackpot:mini`],
        [won.roundId, 'jpa-a', 'mini', 'paid', `${won.roundId}:jackpot:mini`],
      ],
    );
    const paid = mine.find((i) => i.status === 'paid')!;
    assert.equal(paid.amount_minor, 500);
    assert.equal(paid.player_id, won.player);
    assert.ok(paid.settled_at && paid.settled_at >= paid.created_at);
    assert.ok(wins.data.items.every((i) => i.round_id !== other.roundId));
    const onlyPaid = await ok(
      JackpotWinSearchResponse,
      keyA,
      `/api/operator/v1/jackpot-wins?status=paid&round_id=${won.roundId}&level=mini&jackpot_id=jpa-a`,
    );
    assert.deepEqual(
      onlyPaid.data.items.map((i) => i.round_id),
      [won.roundId],
    );
    const bySession = await ok(
      JackpotWinSearchResponse,
      keyA,
      `/api/operator/v1/jackpot-wins?session_id=${refused.sessionId}`,
    );
    assert.deepEqual(
      bySession.data.items.map((i) => i.status),
      ['forfeited'],
    );
    // Keyset paging over the hits (the cursor's id is the credit id).
    const p1 = await ok(
      JackpotWinSearchResponse,
      keyA,
      `/api/operator/v1/jackpot-wins?limit=1&from=${encodeURIComponent(from)}`,
    );
    const p2 = await ok(
      JackpotWinSearchResponse,
      keyA,
      `/api/operator/v1/jackpot-wins?limit=1&from=${encodeURIComponent(from)}&cursor=${p1.data.next_cursor}`,
    );
    assert.deepEqual(
      [p1.data.items[0]!.round_id, p2.data.items[0]!.round_id, p2.data.next_cursor],
      [refused.roundId, won.roundId, null],
    );
    const otherSide = await ok(
      JackpotWinSearchResponse,
      keyB,
      `/api/operator/v1/jackpot-wins?round_id=${won.roundId}`,
    );
    assert.deepEqual(otherSide.data.items, []);
  });

  test('round reads show the jackpot fields; the transaction reads list the jackpot credit', async () => {
    const round = await ok(RoundDetailResponse, keyA, `/api/operator/v1/rounds/${won.roundId}`);
    assert.equal(round.data.jackpot_id, 'jpa-a');
    assert.equal(round.data.jackpot_contribution_micros, '1500000');
    assert.equal(round.data.jackpot_win_minor, 500);
    assert.deepEqual(
      round.data.transactions.map((t) => [t.transaction_id, t.transaction_type, t.amount_minor, t.status]),
      [
        [`${won.roundId}:debit`, 'debit', 100, 'success'],
        [`${won.roundId}:credit`, 'credit', Number(won.win), 'success'],
        [`${won.roundId}:jackpot:mini`, 'credit', 500, 'success'],
      ],
    );
    const txs = await ok(
      TransactionSearchResponse,
      keyA,
      `/api/operator/v1/transactions?round_id=${won.roundId}&type=credit`,
    );
    assert.ok(
      txs.data.items.some(
        (t) => t.transaction_id === `${won.roundId}:jackpot:mini` && t.amount_minor === 500,
      ),
    );
    // A round without a jackpot keeps its shape: no jackpot fields at all.
    const { rows } = await h.db.pool.query(
      `SELECT round_id FROM rounds WHERE operator_id = 'op_jpa_a' AND jackpot_id IS NULL LIMIT 1`,
    );
    if (rows[0]) {
      const plain = await get(keyA, `/api/operator/v1/rounds/${rows[0].round_id}`);
      assert.equal('jackpot_id' in plain.json.data, false);
    }
    assert.equal((await get(keyA, `/api/operator/v1/rounds/${other.roundId}`)).status, 404);
  });

  test('reconciliation: balanced after a paid jackpot win; contributions and wins reported apart', async () => {
    const r = (await recon(keyA, from)).data;
    assert.equal(
      r.balanced,
      true,
      JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
    );
    assert.equal(r.rounds_balanced, true);
    assert.equal(r.promo_payouts_balanced, true);
    assert.deepEqual(r.promo_payouts, []);
    const eur = r.currencies.find((c) => c.currency === 'EUR')!;
    assert.equal(eur.difference_minor, 0);
    // The rejected round contributes nothing that stood; its hit is forfeited.
    assert.deepEqual(r.jackpots, [
      {
        currency: 'EUR',
        contributing_rounds: 1,
        contribution_micros: '1500000',
        hits_paid: 1,
        win_paid_minor: 500,
        hits_pending: 0,
        win_pending_minor: 0,
        hits_forfeited: 1,
        win_forfeited_minor: r.jackpots[0]!.win_forfeited_minor,
      },
    ]);
    assert.ok(Number(r.jackpots[0]!.win_forfeited_minor) >= 500);
    // Operator B sees only its own.
    const b = (await recon(keyB, from)).data;
    assert.equal(b.jackpots[0]!.contributing_rounds, 1);
    assert.equal(b.balanced, true);
    assert.deepEqual(await journalDrift(h.db.pool, null), []);
    // The CSV carries the same jackpot totals.
    const csv = await get(keyA, `/api/operator/v1/reconciliation.csv?from=${encodeURIComponent(from)}`);
    assert.equal(csv.status, 200);
    const [header, ...rows] = parseRfc4180(csv.text);
    const row = Object.fromEntries(header!.map((name, i) => [name, rows[0]![i]]));
    assert.equal(row.currency, 'EUR');
    assert.equal(row.balanced, 'true');
    assert.equal(row.jackpot_contribution_micros, '1500000');
    assert.equal(row.jackpot_win_paid_minor, '500');
    assert.equal(row.promo_balanced, 'true');
  });
});

describe('promotional payouts in the audit API', () => {
  test('pending: the report is unbalanced; paid by payPromo: balanced; another operator’s is invisible', async () => {
    const from = await dbNow();
    const a = await w.newPlayer('op_jpa_a', { prefix: 'jpa-pp', balanceMinor: 1_000 });
    const la = await w.launch(keyA, { symbol: slot.symbol, external_player_id: a });
    const b = await w.newPlayer('op_jpa_b', { prefix: 'jpa-pp', balanceMinor: 1_000 });
    const lb = await w.launch(keyB, { symbol: slot.symbol, external_player_id: b });
    const pa = await newPayout('op_jpa_a', a, la.sessionId, 2_500, 1);
    const pb = await newPayout('op_jpa_b', b, lb.sessionId, 700, 2);

    const pending = (await recon(keyA, from)).data;
    assert.equal(pending.balanced, false);
    assert.equal(pending.rounds_balanced, true, 'no round of the window differs');
    assert.equal(pending.promo_payouts_balanced, false);
    assert.deepEqual(pending.promo_payouts, [
      {
        currency: 'EUR',
        payouts: 1,
        ledger_minor: 2500,
        wallet_credit_minor: 0,
        difference_minor: -2500,
        pending_payouts: 1,
        pending_minor: 2500,
        pending_transactions: 0,
        balanced: false,
      },
    ]);
    const listed = await ok(PromoPayoutSearchResponse, keyA, `/api/operator/v1/promo-payouts?status=pending`);
    assert.deepEqual(
      listed.data.items.map((p) => [p.payout_id, p.status, p.transaction_status]),
      [[pa.payoutId, 'pending', null]],
    );

    // The real payout workflow pays it: one promo_win credit, journalled, then the payout paid.
    const { handle } = await startPayPromo(w.client!, w.taskQueue, pa.payoutId, {
      initialRetryMs: 100,
      maxRetryMs: 400,
    });
    assert.equal((await handle.result()).status, 'paid');
    const paid = (await recon(keyA, from)).data;
    assert.equal(
      paid.balanced,
      true,
      JSON.stringify(paid.promo_payouts, (_k, v) => String(v)),
    );
    assert.deepEqual(paid.promo_payouts, [
      {
        currency: 'EUR',
        payouts: 1,
        ledger_minor: 2500,
        wallet_credit_minor: 2500,
        difference_minor: 0,
        pending_payouts: 0,
        pending_minor: 0,
        pending_transactions: 0,
        balanced: true,
      },
    ]);
    const one = await ok(PromoPayoutResponse, keyA, `/api/operator/v1/promo-payouts/${pa.payoutId}`);
    assert.deepEqual(
      {
        ...one.data,
        created_at: typeof one.data.created_at,
        paid_at: typeof one.data.paid_at,
      },
      {
        payout_id: pa.payoutId,
        promo_type: 'tournament',
        promo_id: pa.promoId,
        rank: 1,
        operator_id: 'op_jpa_a',
        player_id: a,
        currency: 'EUR',
        amount_minor: 2500,
        status: 'paid',
        transaction_id: `${pa.payoutId}:credit`,
        transaction_status: 'success',
        created_at: 'string',
        paid_at: 'string',
      },
    );
    const credit = await ok(
      TransactionSearchResponse,
      keyA,
      `/api/operator/v1/transactions?round_id=${pa.payoutId}`,
    );
    assert.deepEqual(
      credit.data.items.map((t) => [t.transaction_id, t.transaction_type, t.amount_minor, t.status]),
      [[`${pa.payoutId}:credit`, 'credit', 2500, 'success']],
    );
    // Another operator's payout: 404, like an unknown one, and never listed.
    assert.equal((await get(keyA, `/api/operator/v1/promo-payouts/${pb.payoutId}`)).status, 404);
    assert.equal((await get(keyA, '/api/operator/v1/promo-payouts/pp_t_nope_0')).status, 404);
    const all = await ok(
      PromoPayoutSearchResponse,
      keyA,
      `/api/operator/v1/promo-payouts?promo_type=tournament&from=${encodeURIComponent(from)}`,
    );
    assert.deepEqual(
      all.data.items.map((p) => p.payout_id),
      [pa.payoutId],
    );
    const byPromo = await ok(
      PromoPayoutSearchResponse,
      keyB,
      `/api/operator/v1/promo-payouts?promo_id=${pb.promoId}&player_id=${b}&currency=EUR`,
    );
    assert.deepEqual(
      byPromo.data.items.map((p) => [p.payout_id, p.rank, p.amount_minor]),
      [[pb.payoutId, 2, 700]],
    );
    const csv = await get(keyA, `/api/operator/v1/reconciliation.csv?from=${encodeURIComponent(from)}`);
    const [header, ...rows] = parseRfc4180(csv.text);
    const row = Object.fromEntries(header!.map((name, i) => [name, rows[0]![i]]));
    assert.deepEqual(
      [row.currency, row.rounds, row.promo_ledger_minor, row.promo_wallet_credit_minor, row.promo_balanced],
      ['EUR', '0', '2500', '2500', 'true'],
    );
  });

  test('step by step: a pending credit is counted; a credit without its payout paid, or a payout paid without its credit, is not balanced', async () => {
    const from = await dbNow();
    const b = await w.newPlayer('op_jpa_b', { prefix: 'jpa-pq', balanceMinor: 1_000 });
    const lb = await w.launch(keyB, { symbol: slot.symbol, external_player_id: b });
    const p = await newPayout('op_jpa_b', b, lb.sessionId, 900, 1);
    const state = async () => (await recon(keyB, from)).data;
    // Journalled, sent, no answer yet.
    const body = JSON.stringify({ transaction_id: `${p.payoutId}:credit`, action_type: 'promo_win' });
    await h.db.pool.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
                                        transaction_type, amount_minor, currency, request_body, request_hash, attempts)
       VALUES ($1, 'op_jpa_b', $2, $3, $4, $5, 'credit', 900, 'EUR', $6, $7, 1)`,
      [
        `${p.payoutId}:credit`,
        lb.sessionId,
        p.payoutId,
        b,
        slot.symbol,
        body,
        createHash('sha256').update(body).digest('hex'),
      ],
    );
    let r = await state();
    assert.deepEqual(
      [r.balanced, r.promo_payouts[0]!.pending_payouts, r.promo_payouts[0]!.pending_transactions],
      [false, 1, 1],
    );
    // The wallet took it but the payout is not yet marked paid.
    await h.db.pool.query(
      `UPDATE wallet_transactions SET status = 'success', completed_at = now() WHERE transaction_id = $1`,
      [`${p.payoutId}:credit`],
    );
    r = await state();
    assert.deepEqual(
      [r.balanced, r.promo_payouts[0]!.difference_minor, r.promo_payouts[0]!.pending_payouts],
      [false, 0, 1],
    );
    await h.db.pool.query(`UPDATE promo_payouts SET status = 'paid', paid_at = now() WHERE payout_id = $1`, [
      p.payoutId,
    ]);
    r = await state();
    assert.equal(r.balanced, true);
    assert.equal(r.promo_payouts[0]!.wallet_credit_minor, 900);
    // The other operator's window holds none of it.
    const a = (await recon(keyA, from)).data;
    assert.deepEqual(a.promo_payouts, []);
  });
});

describe('bad query parameters are 422 (never 5xx)', () => {
  test('every new read refuses what the database could not take', async () => {
    const long = 'x'.repeat(201);
    const bad: [string, string][] = [
      ['/api/operator/v1/jackpot-contributions?jackpot_id=NOT_AN_ID', 'jackpot_id'],
      [`/api/operator/v1/jackpot-contributions?jackpot_id=${'a'.repeat(64)}`, 'jackpot_id'],
      ['/api/operator/v1/jackpot-contributions?status=won', 'status'],
      ['/api/operator/v1/jackpot-contributions?limit=0', 'limit'],
      ['/api/operator/v1/jackpot-contributions?limit=201', 'limit'],
      ['/api/operator/v1/jackpot-contributions?cursor=not*a*cursor', 'cursor'],
      [
        `/api/operator/v1/jackpot-contributions?cursor=${Buffer.from('999999999999999999|r').toString('base64url')}`,
        'cursor',
      ],
      ['/api/operator/v1/jackpot-contributions?from=2026-01-01', 'from'],
      ['/api/operator/v1/jackpot-contributions?to=0000-01-01T00:00:00Z', 'to'],
      [`/api/operator/v1/jackpot-contributions?player_id=${long}`, 'player_id'],
      ['/api/operator/v1/jackpot-contributions?colour=blue', 'colour'],
      ['/api/operator/v1/jackpot-wins?level=Mini', 'level'],
      ['/api/operator/v1/jackpot-wins?status=won', 'status'],
      [`/api/operator/v1/jackpot-wins?round_id=${long}`, 'round_id'],
      ['/api/operator/v1/jackpot-wins?round_id=a%00b', 'round_id'],
      ['/api/operator/v1/jackpot-wins?currency=eur', 'currency'],
      ['/api/operator/v1/jackpot-wins?from=9999-12-31T23:59:59-15:59', 'from'],
      ['/api/operator/v1/promo-payouts?promo_type=bonus', 'promo_type'],
      ['/api/operator/v1/promo-payouts?status=forfeited', 'status'],
      ['/api/operator/v1/promo-payouts?promo_id=a%00b', 'promo_id'],
      [`/api/operator/v1/promo-payouts?session_id=${long}`, 'session_id'],
      ['/api/operator/v1/promo-payouts?cursor=%00', 'cursor'],
      ['/api/operator/v1/reconciliation?from=2026-02-30T00:00:00Z', 'from'],
    ];
    for (const [path, param] of bad) {
      const res = await get(keyA, path);
      assert.equal(res.status, 422, `${path}: ${res.status} ${res.text.slice(0, 200)}`);
      // An unknown parameter is named in the message (zod's unrecognized_keys at `query`).
      const [item] = res.json.detail;
      assert.ok(item.loc[1] === param || item.msg.includes(param), `${path}: ${res.text.slice(0, 200)}`);
    }
    const path = await get(keyA, `/api/operator/v1/promo-payouts/${long}`);
    assert.equal(path.status, 422, path.text);
    assert.equal((await call(h.base, 'GET', '/api/operator/v1/jackpot-wins', { key: keyA })).status, 401);
  });
});
