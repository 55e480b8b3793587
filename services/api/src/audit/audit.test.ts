import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  OperatorContractResponse,
  OperatorSessionResponse,
  OperatorTransactionResponse,
  ReconciliationResponse,
  RoundDetailResponse,
  RoundSearchResponse,
  TransactionSearchResponse,
} from '@opi/contract';
import { CATALOG } from '@opi/games';
import { call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import { type RoundIntent, transactionIdsFor } from '@opi/wallet';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { cancelUpdate, recordRound, startSettlement, stateQuery } from '@opi/workflows';
import type { Client } from '@temporalio/client';
import { journalDrift } from './reconciliation.js';
import { parseRfc4180, readReconciliationCsv } from './test-support/rfc4180.js';

// Real rounds of every outcome (completed, rejected, rolled back, cancelled, stuck then
// recovered), played through the runtime and the settlement workflow against the sandbox wallet
// over HTTP; then every audit endpoint is checked against them and against the wallet's own ledger.
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const FAST = { initialRetryMs: 50, maxRetryMs: 200, debitAttemptsBeforeRollback: 3 };
let w: PlayWorld;
let taskQueue: string;
let h: Harness;
let admin: WalletAdminClient;
let keyA: string;
let keyB: string;
let master: string;
let client: Client;

const players: { op: string; ext: string; currency: string; initial: bigint }[] = [];

before(async () => {
  w = await startPlayWorld({
    queue: 'audit',
    operators: [
      { id: 'op_aud_a', titles: [slot.symbol], settings: { allowed_currencies: ['EUR', 'USD'] } },
      { id: 'op_aud_b', titles: [slot.symbol] },
    ],
    masterKey: true,
    worker: { settlement: { walletTimeoutMs: 2_000, stuckAfterAttempts: 2 } },
    client: true,
  });
  ({ h, admin, taskQueue } = w);
  keyA = w.operators.op_aud_a!.key;
  keyB = w.operators.op_aud_b!.key;
  master = w.masterKey!;
  client = w.client!;
});
after(() => w.close());

async function player(op: string, key: string, currency: string, balance: number) {
  const ext = `aud-${randomUUID().slice(0, 12)}`;
  await admin.createPlayer({ operatorId: op, playerId: ext, currency, balanceMinor: balance });
  players.push({ op, ext, currency, initial: BigInt(balance) });
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol: slot.symbol, external_player_id: ext, currency },
  });
  assert.equal(res.status, 200, res.text);
  return {
    ext,
    token: new URL(res.json.launch_url).searchParams.get('mgckey')!,
    sessionId: res.json.session_id,
  };
}
const spin = (token: string, bet: number) =>
  call(h.game, 'POST', '/api/runtime/spin', {
    headers: { 'x-session-token': token },
    body: { bet_minor: bet },
  });
const get = (key: string, path: string) => call(h.base, 'GET', path, { key, sign: true });

/** A round recorded as the runtime records one, settled by the workflow with short retries. */
async function workflowRound(
  sessionId: string,
  ext: string,
  currency: string,
  opts: { family?: RoundIntent['providerId']; win: string | null },
) {
  const { rows } = await h.db.pool.query<{ player_id: string }>(
    'SELECT player_id FROM sessions WHERE session_id = $1',
    [sessionId],
  );
  const roundId = `r_${randomUUID()}`;
  const intent: RoundIntent = {
    roundId,
    operatorId: 'op_aud_a',
    sessionId,
    playerId: ext,
    gameSymbol: slot.symbol,
    providerId: opts.family ?? 'prov_a',
    currency,
    actionType: 'spin',
    stakeMinor: '100',
    winMinor: opts.win,
    transactions: transactionIdsFor(roundId),
    ...(opts.win === null ? { multiStep: { abandonAfterSeconds: 600, rule: 'loss' as const } } : {}),
  };
  await recordRound(h.db.pool, { intent, playerPk: rows[0]!.player_id });
  return { intent, handle: await startSettlement(client, taskQueue, intent, FAST) };
}

const ids: Record<string, string> = {};
let sessionA = '';
let sessionB = '';
/** External player ids, and instants taken between the EUR, USD and later rounds of op_aud_a. */
const ext: Record<'eur' | 'usd' | 'poor' | 'other', string> = { eur: '', usd: '', poor: '', other: '' };
const marks = { afterEur: '', afterUsd: '' };
let sessionUsd = '';

/** The reconciliation CSV read with an RFC 4180 parser: the same totals as the JSON, column by column. */
function assertCsvMatches(csvText: string, currencies: { [k: string]: unknown }[]) {
  assert.deepEqual(
    readReconciliationCsv(csvText),
    currencies.map((c) => ({
      currency: c.currency,
      rounds: c.rounds,
      transactions: c.transactions,
      wallet_delta_minor: BigInt(c.wallet_delta_minor as number),
      game_delta_minor: BigInt(c.game_delta_minor as number),
      difference_minor: BigInt(c.difference_minor as number),
      pending_transactions: c.pending_transactions,
      balanced: String(c.balanced),
    })),
  );
}

describe('operator audit API over real rounds', () => {
  test('rounds of every outcome settle (completed, rejected, rolled back, cancelled, stuck then recovered)', async () => {
    const eur = await player('op_aud_a', keyA, 'EUR', 100_000);
    sessionA = eur.sessionId;
    ext.eur = eur.ext;
    for (let i = 0; i < 6; i++) {
      const r = await spin(eur.token, 100 + i);
      assert.equal(r.json.status, 'completed', r.text);
      ids.completed ??= r.json.round_id;
    }
    await new Promise((r) => setTimeout(r, 20));
    marks.afterEur = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const usd = await player('op_aud_a', keyA, 'USD', 5_000);
    ext.usd = usd.ext;
    sessionUsd = usd.sessionId;
    for (let i = 0; i < 3; i++) assert.equal((await spin(usd.token, 200)).json.status, 'completed');
    await new Promise((r) => setTimeout(r, 20));
    marks.afterUsd = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const poor = await player('op_aud_a', keyA, 'EUR', 50);
    ext.poor = poor.ext;
    const rejected = await spin(poor.token, 100);
    assert.deepEqual([rejected.json.status, rejected.json.error], ['rejected', 'insufficient_funds']);
    ids.rejected = rejected.json.round_id;
    const other = await player('op_aud_b', keyB, 'EUR', 10_000);
    sessionB = other.sessionId;
    ext.other = other.ext;
    const otherSpin = await spin(other.token, 100);
    assert.equal(otherSpin.json.status, 'completed');
    ids.otherRound = otherSpin.json.round_id;

    // Cancelled: a multi-step round whose wager is cancelled after its debit.
    const c = await workflowRound(eur.sessionId, eur.ext, 'EUR', { win: null });
    await until('the debit', async () => (await c.handle.query(stateQuery)).phase === 'open');
    const cancelled = await c.handle.executeUpdate(cancelUpdate, { args: [{ reason: 'staff' }] });
    assert.equal(cancelled.status, 'cancelled');
    ids.cancelled = c.intent.roundId;

    // The wallet fails every call: a prov_a debit is rolled back, a prov_b one stays pending and stuck.
    await admin.setFaults({ error5xxRate: 1 });
    const rb = await workflowRound(eur.sessionId, eur.ext, 'EUR', { win: '0' });
    const stuck = await workflowRound(eur.sessionId, eur.ext, 'EUR', { family: 'prov_b', win: '300' });
    ids.rolledBack = rb.intent.roundId;
    ids.stuck = stuck.intent.roundId;
    await until('the stuck flag', async () => {
      const { rows } = await h.db.pool.query('SELECT stuck FROM rounds WHERE round_id = $1', [ids.stuck]);
      return rows[0]?.stuck === true;
    });

    const stuckSearch = await get(keyA, '/api/operator/v1/rounds?stuck=true');
    assert.equal(stuckSearch.status, 200, stuckSearch.text);
    assert.ok(stuckSearch.json.data.items.some((r: { round_id: string }) => r.round_id === ids.stuck));
    const pending = await get(keyA, '/api/operator/v1/reconciliation');
    assert.equal(pending.status, 200, pending.text);
    assert.equal(pending.json.data.balanced, false, 'a pending financial transaction is never balanced');
    const eurRow = pending.json.data.currencies.find((x: { currency: string }) => x.currency === 'EUR');
    assert.ok(eurRow.pending_transactions >= 1);
    assert.ok(pending.json.data.items.some((i: { round_id: string }) => i.round_id === ids.stuck));
    assert.deepEqual(
      await journalDrift(h.db.pool, null),
      [],
      'reconciliation rows equal a recount from rounds and the journal, mid-flight',
    );
    const pendingTx = await get(keyA, `/api/operator/v1/transactions?status=pending&round_id=${ids.stuck}`);
    assert.equal(pendingTx.json.data.items.length, 1);
    assert.equal(pendingTx.json.data.items[0].transaction_type, 'debit');

    // The prov_a debit has spent its retry budget once its rollback is journalled.
    await until('the rollback', async () => {
      const { rows } = await h.db.pool.query(`SELECT 1 FROM wallet_transactions WHERE transaction_id = $1`, [
        rb.intent.transactions.rollback,
      ]);
      return rows.length === 1;
    });
    await admin.setFaults({});
    assert.equal((await rb.handle.result()).status, 'rolled_back');
    assert.equal((await stuck.handle.result()).status, 'completed');
    // Every round's reconciliation row (what reconciliation reads) equals a recount from the round
    // and its journal rows, for every outcome.
    assert.deepEqual(await journalDrift(h.db.pool, null), []);
    const { rows: carried } = await h.db.pool.query<{ round_id: string; journal_rows: number }>(
      `SELECT round_id, journal_rows FROM round_reconciliation WHERE round_id = ANY($1)`,
      [[ids.completed, ids.rejected, ids.cancelled, ids.rolledBack, ids.stuck]],
    );
    assert.ok(
      carried.length === 5 && carried.every((r) => r.journal_rows > 0),
      `every outcome's round carries its journal rows: ${JSON.stringify(carried)}`,
    );
  });

  test('contract: the operator limits as strings, the callbacks, the idempotency key', async () => {
    const res = await get(keyA, '/api/operator/v1/contract');
    assert.equal(res.status, 200, res.text);
    const body = OperatorContractResponse.parse(res.json);
    assert.equal(body.data.operator_id, 'op_aud_a');
    assert.deepEqual(body.data.allowed_currencies, ['EUR', 'USD']);
    assert.equal(typeof body.data.bet_limits.min, 'string');
    assert.deepEqual(body.data.wallet_callbacks, ['balance', 'debit', 'credit', 'cancel', 'rollback']);
    assert.equal(body.data.idempotency_key, 'transaction_id');
  });

  test('sessions: own 200, another operator 404 as an unknown one', async () => {
    const own = await get(keyA, `/api/operator/v1/sessions/${sessionA}`);
    assert.equal(own.status, 200, own.text);
    const s = OperatorSessionResponse.parse(own.json).data;
    assert.equal(s.session_id, sessionA);
    assert.ok(s.rounds.total >= 6);
    assert.equal((await get(keyA, `/api/operator/v1/sessions/${sessionB}`)).status, 404);
    assert.equal((await get(keyA, '/api/operator/v1/sessions/s_nope')).status, 404);
  });

  test('transactions: filters, cursor pages newest first without gaps or repeats, 404 for another operator’s and unknown ids', async () => {
    const all: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `/api/operator/v1/transactions?limit=4${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await get(keyA, q);
      assert.equal(res.status, 200, res.text);
      const page = TransactionSearchResponse.parse(res.json).data;
      assert.ok(page.items.length <= 4);
      for (const t of page.items) {
        assert.equal(t.operator_id, 'op_aud_a');
        all.push(t.transaction_id);
      }
      cursor = page.next_cursor;
      pages++;
    } while (cursor && pages < 100);
    const { rows } = await h.db.pool.query(
      `SELECT transaction_id FROM wallet_transactions WHERE operator_id = 'op_aud_a' ORDER BY created_at DESC, transaction_id DESC`,
    );
    assert.deepEqual(
      all,
      rows.map((r) => r.transaction_id),
    );
    assert.ok(pages > 2);

    const byRound = await get(keyA, `/api/operator/v1/transactions?round_id=${ids.rolledBack}`);
    const types = byRound.json.data.items.map((t: { transaction_type: string; status: string }) => [
      t.transaction_type,
      t.status,
    ]);
    assert.deepEqual(types.sort(), [
      ['debit', 'failed'],
      ['rollback', 'success'],
    ]);
    const credits = await get(keyA, '/api/operator/v1/transactions?type=credit&currency=USD');
    assert.equal(credits.json.data.items.length, 3);
    const future = await get(keyA, '/api/operator/v1/transactions?from=2999-01-01T00:00:00Z');
    assert.deepEqual(future.json.data.items, []);

    // session_id, player_id and the time window, each against the journal itself.
    type Tx = { transaction_id: string; session_id: string; player_id: string; currency: string };
    const journal = async (where: string, params: unknown[]) =>
      (
        await h.db.pool.query<{ transaction_id: string }>(
          `SELECT transaction_id FROM wallet_transactions WHERE operator_id = 'op_aud_a' AND ${where}
           ORDER BY created_at DESC, transaction_id DESC`,
          params,
        )
      ).rows.map((r) => r.transaction_id);
    const search = async (query: string, key = keyA) => {
      const res = await get(key, `/api/operator/v1/transactions?limit=200&${query}`);
      assert.equal(res.status, 200, res.text);
      return TransactionSearchResponse.parse(res.json).data.items as Tx[];
    };
    const bySession = await search(`session_id=${sessionUsd}`);
    assert.deepEqual(
      bySession.map((t) => t.transaction_id),
      await journal('session_id = $1', [sessionUsd]),
    );
    assert.equal(bySession.length, 6, 'three USD spins: a debit and a credit each');
    assert.ok(bySession.every((t) => t.session_id === sessionUsd && t.currency === 'USD'));
    const bySessionA = await search(`session_id=${sessionA}`);
    assert.deepEqual(
      bySessionA.map((t) => t.transaction_id),
      await journal('session_id = $1', [sessionA]),
    );
    assert.ok(bySessionA.length > bySession.length);
    assert.ok(bySessionA.every((t) => t.session_id === sessionA));
    assert.deepEqual(await search(`session_id=${sessionB}`), [], "another operator's session finds nothing");

    const byPlayer = await search(`player_id=${ext.usd}`);
    assert.deepEqual(
      byPlayer.map((t) => t.transaction_id),
      bySession.map((t) => t.transaction_id),
    );
    assert.ok(byPlayer.every((t) => t.player_id === ext.usd));
    const poorTx = await search(`player_id=${ext.poor}`);
    assert.deepEqual(
      poorTx.map((t) => t.transaction_id),
      await journal('player_id = $1', [ext.poor]),
    );
    assert.ok(poorTx.some((t) => t.transaction_id === `${ids.rejected}:debit`));
    assert.deepEqual(await search(`player_id=${ext.other}`), [], "another operator's player finds nothing");
    assert.deepEqual(await search(`player_id=${ext.usd}&currency=EUR`), [], 'filters combine');

    // `to` is exclusive and `from` inclusive: before the USD player, then exactly the USD spins.
    const before = await search(`to=${marks.afterEur}`);
    assert.deepEqual(
      before.map((t) => t.transaction_id),
      await journal('created_at < $1', [marks.afterEur]),
    );
    assert.equal(before.length, 12, 'the six EUR spins of the first player');
    assert.ok(before.every((t) => t.session_id === sessionA));
    const between = await search(`from=${marks.afterEur}&to=${marks.afterUsd}`);
    assert.deepEqual(
      between.map((t) => t.transaction_id),
      bySession.map((t) => t.transaction_id),
    );
    assert.deepEqual(await search(`to=${marks.afterEur}&session_id=${sessionUsd}`), []);

    const one = await get(keyA, `/api/operator/v1/transactions/${all[0]}`);
    assert.equal(one.status, 200, one.text);
    const t = OperatorTransactionResponse.parse(one.json).data;
    assert.equal(t.contract_version, '2026-09-01');
    assert.match(t.request_hash, /^[a-f0-9]{64}$/);
    assert.equal(typeof one.json.data.amount_minor, 'number', 'amounts are JSON integers');
    assert.equal((await get(keyA, `/api/operator/v1/transactions/${ids.otherRound}:debit`)).status, 404);
    assert.equal((await get(keyA, '/api/operator/v1/transactions/nope')).status, 404);
    assert.equal((await get(keyA, '/api/operator/v1/transactions?limit=0')).status, 422);
    assert.equal((await get(keyA, '/api/operator/v1/transactions?limit=201')).status, 422);
    assert.equal((await get(keyA, '/api/operator/v1/transactions?status=done')).status, 422);
    assert.equal((await get(keyA, '/api/operator/v1/transactions?cursor=garbage')).status, 422);
    assert.equal((await get(keyA, '/api/operator/v1/transactions?from=yesterday')).status, 422);
    assert.equal((await get(keyA, '/api/operator/v1/transactions?sort=asc')).status, 422);
    assert.equal((await get(keyA, '/api/operator/v1/transactions?operator_id=op_aud_b')).status, 403);
  });

  test('rounds: integer totals, filters, detail with its transactions; 404 for another operator’s and unknown ids', async () => {
    const res = await get(keyA, '/api/operator/v1/rounds?limit=200');
    assert.equal(res.status, 200, res.text);
    const items = RoundSearchResponse.parse(res.json).data.items;
    const byId = new Map(items.map((r) => [r.round_id, r]));
    assert.equal(byId.get(ids.rejected!)?.status, 'rejected');
    assert.equal(byId.get(ids.cancelled!)?.status, 'cancelled');
    assert.equal(byId.get(ids.rolledBack!)?.status, 'rolled_back');
    assert.equal(byId.get(ids.stuck!)?.status, 'completed');
    assert.equal(byId.get(ids.stuck!)?.stuck, false, 'recovered rounds are no longer stuck');
    assert.ok(!byId.has(ids.otherRound!));
    assert.ok(Number.isInteger(res.json.data.items[0].bet_minor));
    const usd = await get(keyA, '/api/operator/v1/rounds?currency=USD');
    assert.equal(usd.json.data.items.length, 3);
    const rejected = await get(keyA, '/api/operator/v1/rounds?status=rejected');
    assert.deepEqual(
      rejected.json.data.items.map((r: { round_id: string }) => r.round_id),
      [ids.rejected],
    );

    // session_id, player_id (the operator's external id) and the time window, against the rounds table.
    const roundsOf = async (where: string, params: unknown[]) =>
      (
        await h.db.pool.query<{ round_id: string }>(
          `SELECT round_id FROM rounds WHERE operator_id = 'op_aud_a' AND ${where}
           ORDER BY created_at DESC, round_id DESC`,
          params,
        )
      ).rows.map((r) => r.round_id);
    const find = async (query: string) => {
      const r = await get(keyA, `/api/operator/v1/rounds?limit=200&${query}`);
      assert.equal(r.status, 200, r.text);
      return RoundSearchResponse.parse(r.json).data.items;
    };
    const inSessionA = await find(`session_id=${sessionA}`);
    assert.deepEqual(
      inSessionA.map((r) => r.round_id),
      await roundsOf('session_id = $1', [sessionA]),
    );
    assert.equal(inSessionA.length, 9, 'six spins, the cancelled, rolled-back and once-stuck rounds');
    assert.ok(inSessionA.every((r) => r.session_id === sessionA && r.player_id === ext.eur));
    for (const id of [ids.completed, ids.cancelled, ids.rolledBack, ids.stuck])
      assert.ok(inSessionA.some((r) => r.round_id === id));
    assert.deepEqual(await find(`session_id=${sessionB}`), [], "another operator's session finds nothing");

    const ofUsdPlayer = await find(`player_id=${ext.usd}`);
    assert.deepEqual(
      ofUsdPlayer.map((r) => r.round_id),
      await roundsOf('session_id = $1', [sessionUsd]),
    );
    assert.equal(ofUsdPlayer.length, 3);
    assert.ok(ofUsdPlayer.every((r) => r.player_id === ext.usd && r.currency === 'USD'));
    assert.deepEqual(
      (await find(`player_id=${ext.poor}`)).map((r) => r.round_id),
      [ids.rejected],
    );
    assert.deepEqual(await find(`player_id=${ext.other}`), [], "another operator's player finds nothing");
    assert.deepEqual(await find(`player_id=${ext.eur}&session_id=${sessionUsd}`), [], 'filters combine');

    const window = await find(`from=${marks.afterEur}&to=${marks.afterUsd}`);
    assert.deepEqual(
      window.map((r) => r.round_id),
      ofUsdPlayer.map((r) => r.round_id),
      'the rounds created in [from, to): the USD spins',
    );
    const early = await find(`to=${marks.afterEur}`);
    assert.deepEqual(
      early.map((r) => r.round_id),
      await roundsOf('created_at < $1', [marks.afterEur]),
    );
    assert.equal(early.length, 6);
    const late = await find(`from=${marks.afterUsd}`);
    assert.equal(
      late.length + window.length + early.length,
      items.length,
      'the windows partition the rounds',
    );
    assert.ok(late.some((r) => r.round_id === ids.rejected));

    // Cursor pages, newest first, without gaps or repeats; and with a filter kept across pages.
    for (const filter of ['', `&session_id=${sessionA}`]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = `/api/operator/v1/rounds?limit=2${filter}${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await get(keyA, q);
        assert.equal(page.status, 200, page.text);
        const data = RoundSearchResponse.parse(page.json).data;
        assert.ok(data.items.length <= 2);
        seen.push(...data.items.map((r) => r.round_id));
        cursor = data.next_cursor;
        pages++;
      } while (cursor && pages < 100);
      const expected = filter ? await roundsOf('session_id = $1', [sessionA]) : items.map((r) => r.round_id);
      assert.deepEqual(seen, expected, `pages${filter}`);
      assert.equal(pages, Math.ceil(expected.length / 2));
    }
    assert.equal((await get(keyA, '/api/operator/v1/rounds?cursor=garbage')).status, 422);

    const detail = await get(keyA, `/api/operator/v1/rounds/${ids.completed}`);
    assert.equal(detail.status, 200, detail.text);
    const d = RoundDetailResponse.parse(detail.json).data;
    assert.deepEqual(
      d.transactions.map((t) => t.transaction_type),
      ['debit', 'credit'],
    );
    assert.equal((await get(keyA, `/api/operator/v1/rounds/${ids.otherRound}`)).status, 404);
    assert.equal((await get(keyA, '/api/operator/v1/rounds/r_nope')).status, 404);
    assert.equal(
      (await get(keyA, `/api/operator/v1/rounds/${ids.completed}:debit`)).status,
      404,
      'a transaction id is not a round id',
    );
  });

  test('reconciliation: balanced, and equal to an independent sum over the sandbox wallet ledger; the CSV agrees', async () => {
    const res = await get(keyA, '/api/operator/v1/reconciliation');
    assert.equal(res.status, 200, res.text);
    const r = ReconciliationResponse.parse(res.json).data;
    assert.equal(r.balanced, true, JSON.stringify(r));
    assert.deepEqual(r.items, []);
    // The wallet's own view: each player's balance now minus their opening balance.
    const expected = new Map<string, bigint>();
    for (const p of players.filter((x) => x.op === 'op_aud_a')) {
      const b = BigInt((await admin.balance(p.op, p.ext, p.currency)).balance_minor);
      expected.set(p.currency, (expected.get(p.currency) ?? 0n) + b - p.initial);
    }
    for (const c of r.currencies) {
      assert.equal(BigInt(c.wallet_delta_minor), expected.get(c.currency), c.currency);
      assert.equal(BigInt(c.game_delta_minor), expected.get(c.currency));
      assert.equal(BigInt(c.difference_minor), 0n);
    }
    assert.deepEqual(
      r.currencies.map((c) => c.currency),
      ['EUR', 'USD'],
    );

    const csv = await get(keyA, '/api/operator/v1/reconciliation.csv');
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.ok(csv.text.endsWith('\r\n'));
    assertCsvMatches(csv.text, res.json.data.currencies);
    assert.equal(parseRfc4180(csv.text).length, 1 + r.currencies.length, 'a header and one row per currency');
    const usdOnly = await get(keyA, '/api/operator/v1/reconciliation.csv?currency=USD');
    assertCsvMatches(
      usdOnly.text,
      res.json.data.currencies.filter((c: { currency: string }) => c.currency === 'USD'),
    );

    const windowed = await get(keyA, '/api/operator/v1/reconciliation?from=2999-01-01T00:00:00Z');
    assert.deepEqual(windowed.json.data.currencies, []);
    assert.equal(windowed.json.data.balanced, true);
    assert.equal((await get(keyA, '/api/operator/v1/reconciliation?currency=eur')).status, 422);
  });

  test('a journal difference is found and listed: a credit the history does not know', async () => {
    // Staff-visible discrepancy: the round says it won 0 but its credit paid 50.
    const { rows } = await h.db.pool.query<{ round_id: string }>(
      // A EUR round: the CSV check below reads the EUR line (the seed has rounds in other currencies too).
      `SELECT round_id FROM rounds WHERE operator_id = 'op_aud_a' AND status = 'completed' AND win_minor = 0
          AND currency = 'EUR' ORDER BY created_at, round_id LIMIT 1`,
    );
    const roundId = rows[0]!.round_id;
    await h.db.pool.query(`UPDATE rounds SET win_minor = 50 WHERE round_id = $1`, [roundId]);
    try {
      const res = await get(keyA, '/api/operator/v1/reconciliation');
      const r = res.json.data;
      assert.equal(r.balanced, false);
      const item = r.items.find((i: { round_id: string }) => i.round_id === roundId);
      assert.ok(item, 'the round that makes up the difference is listed');
      assert.equal(item.difference_minor, -50);
      assert.equal(item.transaction_ids.length, 2);
      const csv = await get(keyA, '/api/operator/v1/reconciliation.csv');
      assertCsvMatches(csv.text, r.currencies);
      const eur = parseRfc4180(csv.text).find((f) => f[0] === 'EUR')!;
      assert.deepEqual([eur[5], eur[7]], ['-50', 'false'], 'the CSV carries the difference too');
    } finally {
      await h.db.pool.query(`UPDATE rounds SET win_minor = 0 WHERE round_id = $1`, [roundId]);
    }
  });

  test('the recount finds a round whose reconciliation row was tampered with, or is missing', async () => {
    const roundId = ids.completed!;
    await h.db.pool.query(
      `UPDATE round_reconciliation SET wallet_delta_minor = wallet_delta_minor + 1 WHERE round_id = $1`,
      [roundId],
    );
    try {
      const drift = await journalDrift(h.db.pool, 'op_aud_a');
      assert.deepEqual(
        drift.map((d) => [
          d.round_id,
          BigInt(d.stored!.wallet_delta_minor) - BigInt(d.recount.wallet_delta_minor),
        ]),
        [[roundId, 1n]],
      );
      assert.deepEqual(await journalDrift(h.db.pool, 'op_aud_b'), [], 'scoped to the operator asked about');
      // A round without its row is a drift too.
      await h.db.pool.query(`DELETE FROM round_reconciliation WHERE round_id = $1`, [ids.rejected]);
      const missing = await journalDrift(h.db.pool, 'op_aud_a');
      assert.equal(missing.length, 2);
      assert.equal(missing.find((d) => d.round_id === ids.rejected)?.stored, null);
      assert.ok(missing.find((d) => d.round_id === roundId)?.stored);
    } finally {
      await h.db.pool.query(
        `INSERT INTO round_reconciliation (round_id, operator_id, created_at, currency, game_delta_minor)
         SELECT round_id, operator_id, created_at, currency, round_game_delta(status, bet_minor, win_minor)
         FROM rounds WHERE round_id = $1 ON CONFLICT DO NOTHING`,
        [ids.rejected],
      );
      await h.db.pool.query(`SELECT round_reconciliation_refresh(ARRAY[$1])`, [ids.rejected]);
      await h.db.pool.query(
        `UPDATE round_reconciliation SET wallet_delta_minor = wallet_delta_minor - 1 WHERE round_id = $1`,
        [roundId],
      );
    }
    assert.deepEqual(await journalDrift(h.db.pool, null), []);
  });

  test('the audit is signed and scoped: no key 401, master keys must name the operator', async () => {
    assert.equal((await call(h.base, 'GET', '/api/operator/v1/contract')).status, 401);
    // A master key names its operator in the signed query (issue 23 point 9: on a signed request
    // x-operator-id alone is refused, it is outside the signature); the header may repeat it.
    const as = (key: string, path: string, operator?: string) =>
      call(
        h.base,
        'GET',
        operator && !/[?&]operator_id=/.test(path)
          ? `${path}${path.includes('?') ? '&' : '?'}operator_id=${operator}`
          : path,
        {
          key,
          sign: true,
          ...(operator ? { headers: { 'x-operator-id': operator } } : {}),
        },
      );

    // A provider master key without an operator: 400 on every read, nothing leaks.
    for (const path of [
      '/api/operator/v1/contract',
      `/api/operator/v1/sessions/${sessionA}`,
      '/api/operator/v1/transactions',
      '/api/operator/v1/rounds',
      '/api/operator/v1/reconciliation',
      '/api/operator/v1/reconciliation.csv',
    ]) {
      const res = await as(master, path);
      assert.equal(res.status, 400, `${path}: ${res.text}`);
      assert.match(res.json.detail, /must name the operator/);
    }
    // Unsigned, the master key is refused like any key on the signed audit API.
    assert.equal(
      (await call(h.base, 'GET', '/api/operator/v1/contract?operator_id=op_aud_a', { key: master })).status,
      401,
    );

    // operator_id (query) or x-operator-id (header) names the scope; reads are then that operator's.
    const viaQuery = await as(master, '/api/operator/v1/contract?operator_id=op_aud_a');
    assert.equal(viaQuery.status, 200, viaQuery.text);
    assert.equal(OperatorContractResponse.parse(viaQuery.json).data.operator_id, 'op_aud_a');
    const viaHeader = await as(master, '/api/operator/v1/contract', 'op_aud_b');
    assert.equal(viaHeader.status, 200, viaHeader.text);
    assert.equal(viaHeader.json.data.operator_id, 'op_aud_b');
    const headerOnly = await call(h.base, 'GET', '/api/operator/v1/contract', {
      key: master,
      sign: true,
      headers: { 'x-operator-id': 'op_aud_b' },
    });
    assert.equal(headerOnly.status, 401, headerOnly.text);
    assert.match(headerOnly.json.detail, /x-operator-id is not covered by the signature/);
    assert.equal(
      (await as(master, '/api/operator/v1/contract?operator_id=op_aud_a', 'op_aud_a')).status,
      200,
    );

    assert.equal(
      (await as(master, `/api/operator/v1/sessions/${sessionA}?operator_id=op_aud_a`)).status,
      200,
    );
    // Scoped to one operator, the other's records are 404 as unknown ids (issue 34).
    assert.equal(
      (await as(master, `/api/operator/v1/sessions/${sessionB}?operator_id=op_aud_a`)).status,
      404,
    );
    assert.equal((await as(master, `/api/operator/v1/sessions/${sessionB}`, 'op_aud_b')).status, 200);
    assert.equal((await as(master, `/api/operator/v1/sessions/${sessionA}`, 'op_aud_b')).status, 404);
    assert.equal(
      (await as(master, `/api/operator/v1/rounds/${ids.otherRound}?operator_id=op_aud_a`)).status,
      404,
    );
    assert.equal((await as(master, `/api/operator/v1/rounds/${ids.otherRound}`, 'op_aud_b')).status, 200);

    const roundsA = await as(master, '/api/operator/v1/rounds?limit=200&operator_id=op_aud_a');
    assert.equal(roundsA.status, 200, roundsA.text);
    const own = await get(keyA, '/api/operator/v1/rounds?limit=200');
    assert.deepEqual(
      RoundSearchResponse.parse(roundsA.json).data.items.map((r) => r.round_id),
      own.json.data.items.map((r: { round_id: string }) => r.round_id),
      "the master key scoped to op_aud_a reads exactly op_aud_a's key's view",
    );
    const roundsB = await as(master, '/api/operator/v1/rounds?limit=200', 'op_aud_b');
    assert.deepEqual(
      roundsB.json.data.items.map((r: { round_id: string }) => r.round_id),
      [ids.otherRound],
    );
    const txB = await as(
      master,
      `/api/operator/v1/transactions?operator_id=op_aud_b&round_id=${ids.otherRound}`,
    );
    assert.equal(txB.status, 200, txB.text);
    assert.ok(txB.json.data.items.length >= 1);
    assert.ok(txB.json.data.items.every((t: { operator_id: string }) => t.operator_id === 'op_aud_b'));
    const recB = await as(master, '/api/operator/v1/reconciliation', 'op_aud_b');
    assert.equal(recB.status, 200, recB.text);
    assert.equal(recB.json.data.operator_id, 'op_aud_b');
    assert.deepEqual(
      recB.json.data.currencies.map((c: { currency: string; rounds: number }) => [c.currency, c.rounds]),
      [['EUR', 1]],
    );
    const csvB = await as(master, '/api/operator/v1/reconciliation.csv?operator_id=op_aud_b');
    assert.equal(csvB.status, 200);
    assertCsvMatches(csvB.text, recB.json.data.currencies);

    // Two different operators named, an unknown operator, or one that cannot exist. A header that
    // disagrees with the signed query is outside the signature: 401 (issue 23 point 9).
    assert.equal(
      (await as(master, '/api/operator/v1/contract?operator_id=op_aud_a', 'op_aud_b')).status,
      401,
    );
    assert.equal(
      (await as(master, '/api/operator/v1/contract?operator_id=op_aud_a&operator_id=op_aud_b')).status,
      400,
    );
    assert.equal((await as(master, '/api/operator/v1/contract?operator_id=op_nobody')).status, 404);
    assert.equal((await as(master, '/api/operator/v1/contract', 'x'.repeat(300))).status, 404);

    // An operator key names only itself: its own id is accepted, another is 403 (query or header).
    assert.equal((await as(keyA, '/api/operator/v1/contract', 'op_aud_a')).status, 200);
    assert.equal((await as(keyA, '/api/operator/v1/contract', 'op_aud_b')).status, 403);
    assert.equal((await as(keyA, '/api/operator/v1/rounds?operator_id=op_aud_b')).status, 403);
  });
});
