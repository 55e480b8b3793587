import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { CATALOG, SLOT_SYMBOLS } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import { journalEntry, type RoundIntent, transactionIdsFor } from '@opi/wallet';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { resumeUnstartedRounds } from '@opi/workflows';
import { recordHistory } from '@opi/workflows/histories';
import { Client, Connection } from '@temporalio/client';

/*
 * Free-round campaigns end to end (issue 18), real parts only: the provider API
 * (/api/provider/v1/free-rounds), a launch, free rounds played through /api/runtime/spin, their
 * settlement workflows on the Temporal dev server, credits (never a debit) at the sandbox wallet.
 */
const OP = 'op_fr';
const slots = CATALOG.filter(
  (e) => e.provider_id === 'prov_a' && e.release.status === 'accepted' && SLOT_SYMBOLS.includes(e.symbol),
);
const slotA = slots[0]!;
const slotA2 = slots[1]!;
const provC = CATALOG.find((e) => e.provider_id === 'prov_c')!;
let w: PlayWorld;
let taskQueue: string;
let h: Harness;
let admin: WalletAdminClient;
let key: string;
let otherKey: string;

before(async () => {
  w = await startPlayWorld({
    queue: 'free-rounds',
    operators: [
      { id: OP, titles: [slotA.symbol, slotA2.symbol, provC.symbol] },
      { id: 'op_fr_other', wallet: 'none' },
    ],
  });
  ({ h, admin, key, taskQueue } = w);
  otherKey = w.operators.op_fr_other!.key;
});
after(() => w.close());

const api = (method: string, path: string, body?: unknown, k = key) =>
  call(h.base, method, `/api/provider/v1${path}`, {
    key: k,
    sign: true,
    ...(body !== undefined ? { body } : {}),
  });

const HOUR = 3600_000;
function campaign(id: string, over: Record<string, unknown> = {}) {
  return {
    campaign_id: id,
    symbols: [slotA.symbol],
    currency: 'EUR',
    bet_minor: 100,
    rounds: 3,
    valid_from: new Date(Date.now() - HOUR).toISOString(),
    expires_at: new Date(Date.now() + 24 * HOUR).toISOString(),
    ...over,
  };
}

async function launch(player: string, symbol = slotA.symbol): Promise<string> {
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol, external_player_id: player, currency: 'EUR' },
  });
  assert.equal(res.status, 200, res.text);
  return new URL(res.json.launch_url).searchParams.get('mgckey')!;
}
const runtime = (token: string, method: string, path: string, body?: unknown) =>
  call(h.game, method, `/api/runtime${path}`, {
    headers: { 'x-session-token': token },
    ...(body !== undefined ? { body } : {}),
  });

describe('campaign API', () => {
  test('create (201), the same body again (200, the original), another body (409)', async () => {
    const body = campaign('c-create', { players: ['fr-a', 'fr-b'] });
    const created = await api('POST', '/free-rounds', body);
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.data.status, 'active');
    assert.equal(created.json.data.bet_minor, '100');
    assert.equal(created.json.data.players_count, 2);
    assert.deepEqual(
      created.json.data.players.map((p: any) => [p.external_player_id, p.rounds_remaining, p.won_minor]),
      [
        ['fr-a', 3, '0'],
        ['fr-b', 3, '0'],
      ],
    );
    const again = await api('POST', '/free-rounds', { ...body, players: ['fr-b', 'fr-a'] });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.data.created_at, created.json.data.created_at);
    const other = await api('POST', '/free-rounds', { ...body, rounds: 4 });
    assert.equal(other.status, 409, other.text);
  });

  test('missing fields 400; malformed 422; stakes the title does not offer 422; non-slot 409; unknown 404', async () => {
    assert.equal((await api('POST', '/free-rounds', {})).status, 400);
    assert.equal((await api('POST', '/free-rounds', [])).status, 400);
    const { campaign_id: _, ...noId } = campaign('x');
    assert.equal((await api('POST', '/free-rounds', noId)).status, 400);
    const bad = async (over: Record<string, unknown>, loc: string) => {
      const res = await api('POST', '/free-rounds', campaign(`c-bad-${randomUUID()}`, over));
      assert.equal(res.status, 422, `${JSON.stringify(over)}: ${res.text}`);
      assert.deepEqual(res.json.detail[0].loc.slice(0, 2), ['body', loc], res.text);
    };
    await bad({ rounds: 0 }, 'rounds');
    await bad({ rounds: 1.5 }, 'rounds');
    await bad({ rounds: 1_000_000 }, 'rounds');
    await bad({ bet_minor: 30 }, 'bet_minor'); // not on the 1-2-5 ladder
    await bad({ bet_minor: 5 }, 'bet_minor'); // under the operator's minimum (10)
    await bad({ bet_minor: 200_000 }, 'bet_minor'); // above the maximum
    await bad({ bet_minor: '99999999999999999999' }, 'bet_minor');
    await bad({ currency: 'GBP' }, 'currency');
    await bad({ currency: 'eur' }, 'currency');
    await bad({ valid_from: '2026-13-01T00:00:00Z' }, 'valid_from');
    await bad({ expires_at: '0000-01-01T00:00:00Z' }, 'expires_at');
    await bad({ expires_at: new Date(Date.now() - 2 * HOUR).toISOString() }, 'expires_at');
    await bad({ players: ['  spaced  '] }, 'players');
    await bad({ campaign_id: 'has space' }, 'campaign_id');
    const nonSlot = await api('POST', '/free-rounds', campaign('c-nonslot', { symbols: [provC.symbol] }));
    assert.equal(nonSlot.status, 409, nonSlot.text);
    assert.match(nonSlot.json.detail, /prov_a and prov_b slot titles/);
    const unknown = await api('POST', '/free-rounds', campaign('c-unknown', { symbols: ['no_such_game'] }));
    assert.equal(unknown.status, 404, unknown.text);
  });

  test('list (limit and cursor), read, add players (idempotent per player), cancel; another operator sees none', async () => {
    for (const id of ['c-list-1', 'c-list-2', 'c-list-3'])
      assert.equal((await api('POST', '/free-rounds', campaign(id))).status, 201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api('GET', `/free-rounds?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200, page.text);
      assert.ok(page.json.data.items.length <= 2);
      seen.push(...page.json.data.items.map((c: any) => c.campaign_id));
      cursor = page.json.data.next_cursor;
    } while (cursor);
    for (const id of ['c-list-1', 'c-list-2', 'c-list-3']) assert.ok(seen.includes(id));
    assert.deepEqual(seen, [...seen].sort());
    assert.equal((await api('GET', '/free-rounds?limit=0')).status, 422);
    assert.equal((await api('GET', '/free-rounds?cursor=%%%')).status, 422);

    const added = await api('POST', '/free-rounds/c-list-1/players', { players: ['fr-x', 'fr-y'] });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.json.data.players_count, 2);
    const again = await api('POST', '/free-rounds/c-list-1/players', { players: ['fr-x'] });
    assert.equal(again.json.data.players_count, 2);
    assert.equal((await api('POST', '/free-rounds/c-list-1/players', {})).status, 400);
    assert.equal((await api('POST', '/free-rounds/c-list-1/players', { players: [] })).status, 422);
    assert.equal((await api('POST', '/free-rounds/nope/players', { players: ['fr-x'] })).status, 404);

    const read = await api('GET', '/free-rounds/c-list-1');
    assert.equal(read.status, 200);
    assert.deepEqual(
      read.json.data.players.map((p: any) => p.external_player_id),
      ['fr-x', 'fr-y'],
    );
    assert.equal((await api('GET', '/free-rounds/nope')).status, 404);
    assert.equal((await api('GET', '/free-rounds/c-list-1', undefined, otherKey)).status, 404);
    assert.equal((await api('GET', '/free-rounds', undefined, otherKey)).json.data.items.length, 0);

    const cancelled = await api('DELETE', '/free-rounds/c-list-1');
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.json.data.status, 'cancelled');
    assert.equal(
      (await api('DELETE', '/free-rounds/c-list-1')).json.data.cancelled_at,
      cancelled.json.data.cancelled_at,
    );
    assert.equal((await api('POST', '/free-rounds/c-list-1/players', { players: ['fr-z'] })).status, 409);
    assert.equal((await api('DELETE', '/free-rounds/nope')).status, 404);
    assert.equal((await call(h.base, 'GET', '/api/provider/v1/free-rounds')).status, 401);
  });
});

async function walletRequests(player: string) {
  const { rows } = await h.db.pool.query<{ transaction_type: string; amount_minor: bigint; outcome: string }>(
    `SELECT transaction_type, amount_minor, outcome FROM wallet.requests
      WHERE operator_id = $1 AND player_id = $2 AND transaction_type <> 'balance' ORDER BY request_seq`,
    [OP, player],
  );
  return rows;
}

describe('play', () => {
  test('free rounds come first, each settles with a credit only (free_round, campaign_id), the last is flagged', async () => {
    const player = 'fr-play-1';
    await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor: 10_000 });
    assert.equal((await api('POST', '/free-rounds', campaign('c-play', { players: [player] }))).status, 201);
    const launched = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key,
      body: { symbol: slotA.symbol, external_player_id: player, currency: 'EUR' },
    });
    assert.equal(launched.status, 200, launched.text);
    assert.equal(launched.json.free_rounds.campaign_id, 'c-play');
    assert.equal(launched.json.free_rounds.rounds_remaining, 3);
    assert.deepEqual(launched.json.data.free_rounds, launched.json.free_rounds);
    const token = new URL(launched.json.launch_url).searchParams.get('mgckey')!;
    const session = await runtime(token, 'GET', '/session');
    assert.equal(session.status, 200);
    assert.equal(session.json.free_rounds.campaign_id, 'c-play');
    assert.equal(session.json.free_rounds.rounds_remaining, 3);
    assert.equal(session.json.free_rounds.bet_minor, '100');

    const paid = await runtime(token, 'POST', '/spin', { bet_minor: 100 });
    assert.equal(paid.status, 409, paid.text);
    assert.equal(paid.json.error, 'free_rounds_pending');
    assert.equal((await runtime(token, 'POST', '/spin', { bet_minor: 200, free_round: true })).status, 422);

    let won = 0n;
    const rounds: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const res = await runtime(token, 'POST', '/spin', { bet_minor: 100, free_round: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.status, 'completed');
      assert.equal(res.json.bet_minor, '0');
      assert.equal(res.json.free_round.campaign_id, 'c-play');
      assert.equal(res.json.free_round_last, i === 3);
      assert.equal(res.json.free_round.rounds_remaining, 3 - i);
      won += BigInt(res.json.win_minor);
      rounds.push(res.json.round_id);
    }
    assert.equal(BigInt((await admin.balance(OP, player, 'EUR')).balance_minor), 10_000n + won);
    const requests = await walletRequests(player);
    assert.deepEqual(
      requests.map((r) => r.transaction_type),
      ['credit', 'credit', 'credit'],
      'no debit is ever sent for a free round',
    );
    const { rows: journal } = await h.db.pool.query<{
      round_id: string;
      request_body: string;
      amount_minor: bigint;
    }>(
      `SELECT round_id, request_body, amount_minor FROM wallet_transactions WHERE round_id = ANY ($1) ORDER BY created_at`,
      [rounds],
    );
    assert.equal(journal.length, 3);
    for (const [i, row] of journal.entries()) {
      const body = JSON.parse(row.request_body);
      assert.equal(body.transaction_type, 'credit');
      assert.equal(body.action_type, 'free_round');
      assert.equal(body.campaign_id, 'c-play');
      assert.equal(body.free_round_last, i === 2 ? true : undefined);
    }
    const { rows: recorded } = await h.db.pool.query(
      `SELECT bet_minor, free_round_campaign_id, free_round_bet_minor, status FROM rounds WHERE round_id = ANY ($1)`,
      [rounds],
    );
    for (const r of recorded)
      assert.deepEqual(r, {
        bet_minor: 0n,
        free_round_campaign_id: 'c-play',
        free_round_bet_minor: 100n,
        status: 'completed',
      });
    recordHistory({
      workflow: 'settleRound',
      path: 'free-round',
      workflowId: rounds[0]!,
      address: w.address,
    });

    // Won totals equal credits; the rounds are used up; paid play is open again.
    const read = await api('GET', '/free-rounds/c-play');
    assert.deepEqual(read.json.data.players[0], {
      external_player_id: player,
      rounds_total: 3,
      rounds_used: 3,
      rounds_remaining: 0,
      won_minor: won.toString(),
    });
    assert.equal((await runtime(token, 'GET', '/session')).json.free_rounds, null);
    assert.equal((await runtime(token, 'POST', '/spin', { bet_minor: 100, free_round: true })).status, 409);
    const paidNow = await runtime(token, 'POST', '/spin', { bet_minor: 100 });
    assert.equal(paidNow.status, 200, paidNow.text);

    const rec = await call(h.base, 'GET', '/api/operator/v1/reconciliation', { key, sign: true });
    assert.equal(rec.status, 200, rec.text);
    assert.equal(rec.json.data.balanced, true, rec.text);
    // Free-round wins reported apart: this operator's free rounds so far, per currency.
    const { rows: free } = await h.db.pool.query<{ n: number; won: bigint }>(
      `SELECT count(*)::int AS n, coalesce(sum(win_minor), 0)::bigint AS won FROM rounds
        WHERE operator_id = $1 AND free_round_campaign_id IS NOT NULL`,
      [OP],
    );
    assert.deepEqual(rec.json.data.free_rounds, [
      {
        currency: 'EUR',
        rounds: free[0]!.n,
        free_round_win_minor: Number(free[0]!.won),
        free_round_credit_minor: Number(free[0]!.won),
      },
    ]);
  });

  test('decline: paid spins allowed in this session; the rounds stay granted', async () => {
    const player = 'fr-decline';
    await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor: 10_000 });
    await api('POST', '/free-rounds', campaign('c-decline', { players: [player] }));
    const token = await launch(player);
    assert.equal((await runtime(token, 'POST', '/spin', { bet_minor: 100 })).status, 409);
    const declined = await runtime(token, 'POST', '/free-rounds/decline', {});
    assert.equal(declined.status, 200, declined.text);
    assert.equal(declined.json.free_rounds.declined, true);
    const paid = await runtime(token, 'POST', '/spin', { bet_minor: 100 });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.json.free_round, null);
    assert.deepEqual(
      (await walletRequests(player)).map((r) => r.transaction_type),
      ['debit', 'credit'],
    );
    assert.equal((await api('GET', '/free-rounds/c-decline')).json.data.players[0].rounds_remaining, 3);
  });

  test('two pages spending the last free round at once get one round between them', async () => {
    const player = 'fr-race';
    await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor: 10_000 });
    await api(
      'POST',
      '/free-rounds',
      campaign('c-race', { players: [player], rounds: 1, symbols: [slotA.symbol, slotA2.symbol] }),
    );
    // Two sessions (two titles of the campaign) and two tabs of each.
    const t1 = await launch(player, slotA.symbol);
    const t2 = await launch(player, slotA2.symbol);
    const answers = await Promise.all(
      [t1, t2, t1, t2].map((t) => runtime(t, 'POST', '/spin', { bet_minor: 100, free_round: true })),
    );
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [200, 409, 409, 409], answers.map((a) => a.text).join('\n'));
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM rounds WHERE free_round_campaign_id = 'c-race'`,
    );
    assert.equal(rows[0].n, 1);
    const read = await api('GET', '/free-rounds/c-race');
    assert.equal(read.json.data.players[0].rounds_used, 1);
    await until('the credit', async () => (await walletRequests(player)).length === 1);
  });

  test('a cancelled or expired campaign never starts a round', async () => {
    const player = 'fr-cancel';
    await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor: 10_000 });
    await api('POST', '/free-rounds', campaign('c-cancel', { players: [player] }));
    const token = await launch(player);
    assert.equal((await runtime(token, 'GET', '/session')).json.free_rounds.campaign_id, 'c-cancel');
    assert.equal((await api('DELETE', '/free-rounds/c-cancel')).status, 200);
    assert.equal((await runtime(token, 'GET', '/session')).json.free_rounds, null);
    assert.equal((await runtime(token, 'POST', '/spin', { bet_minor: 100, free_round: true })).status, 409);

    const p2 = 'fr-expired';
    await admin.createPlayer({ operatorId: OP, playerId: p2, currency: 'EUR', balanceMinor: 10_000 });
    await api('POST', '/free-rounds', campaign('c-expired', { players: [p2] }));
    await h.db.pool.query(
      `UPDATE free_round_campaigns SET valid_from = now() - interval '2 hours', expires_at = now() - interval '1 second'
        WHERE campaign_id = 'c-expired'`,
    );
    const t2 = await launch(p2);
    assert.equal((await runtime(t2, 'GET', '/session')).json.free_rounds, null);
    assert.equal((await runtime(t2, 'POST', '/spin', { bet_minor: 100, free_round: true })).status, 409);
    assert.equal((await api('GET', '/free-rounds/c-expired')).json.data.status, 'expired');
    const { rows } = await h.db.pool.query(
      `SELECT count(*)::int AS n FROM rounds WHERE free_round_campaign_id IN ('c-cancel', 'c-expired')`,
    );
    assert.equal(rows[0].n, 0);
  });
});

test('a free round committed whose settlement never started (the API died) is started by the resumer: one credit', async () => {
  const player = 'fr-resume';
  await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor: 10_000 });
  await api('POST', '/free-rounds', campaign('c-resume', { players: [player], rounds: 1 }));
  await launch(player);
  const { rows: sessions } = await h.db.pool.query<{ session_id: string; player_id: string }>(
    `SELECT s.session_id, s.player_id FROM sessions s JOIN players p ON p.player_id = s.player_id
      WHERE p.external_player_id = $1`,
    [player],
  );
  const session = sessions[0]!;
  // What the spin's transaction commits for a free round (the grant counted, the round, its
  // credit's journal row), and then no workflow start: the process died in between.
  const roundId = `r_${randomUUID()}`;
  const intent: RoundIntent = {
    roundId,
    operatorId: OP,
    sessionId: session.session_id,
    playerId: player,
    gameSymbol: slotA.symbol,
    providerId: 'prov_a',
    currency: 'EUR',
    actionType: 'free_round',
    stakeMinor: '0',
    winMinor: '250',
    transactions: transactionIdsFor(roundId),
    journalAhead: true,
    freeRound: { campaignId: 'c-resume', betMinor: '100', last: true },
  };
  const credit = journalEntry(intent, 'credit', '250');
  await h.db.pool.query(
    `WITH g AS (
       UPDATE free_round_grants SET rounds_used = rounds_used + 1
        WHERE operator_id = $1 AND campaign_id = 'c-resume' AND external_player_id = $4 RETURNING 1
     ), r AS (
       INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                           bet_minor, win_minor, intent, free_round_campaign_id, free_round_bet_minor)
       SELECT $2, $1, $3, $5, $6, 'prov_a', 'EUR', 'open', 0, 0, $7, 'c-resume', 100 FROM g RETURNING round_id
     )
     INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
                                      transaction_type, amount_minor, currency, request_body, request_hash, attempts)
     SELECT $8, $1, $3, round_id, $4, $6, 'credit', 250, 'EUR', $9, $10, 1 FROM r`,
    [
      OP,
      roundId,
      session.session_id,
      player,
      session.player_id,
      slotA.symbol,
      JSON.stringify(intent),
      credit.transactionId,
      credit.body,
      credit.requestHash,
    ],
  );
  const connection = await Connection.connect({ address: process.env.OPI_TEST_TEMPORAL_ADDRESS! });
  try {
    const client = new Client({ connection });
    const started = await resumeUnstartedRounds(h.db.pool, client, taskQueue, { olderThanSeconds: 0 });
    assert.ok(started.includes(roundId), `resumed: ${started.join(', ')}`);
    await until('the resumed free round completes', async () => {
      const { rows } = await h.db.pool.query(`SELECT status FROM rounds WHERE round_id = $1`, [roundId]);
      return rows[0]?.status === 'completed';
    });
    assert.deepEqual(
      (await resumeUnstartedRounds(h.db.pool, client, taskQueue, { olderThanSeconds: 0 })).filter(
        (id) => id === roundId,
      ),
      [],
    );
  } finally {
    await connection.close();
  }
  const requests = await walletRequests(player);
  assert.deepEqual(
    requests.map((r) => [r.transaction_type, r.amount_minor, r.outcome]),
    [['credit', 250n, 'applied']],
  );
  assert.equal((await admin.balance(OP, player, 'EUR')).balance_minor, '10250');
  assert.equal((await api('GET', '/free-rounds/c-resume')).json.data.players[0].won_minor, '250');
});
