import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import {
  NativeLedgerEntry,
  NativeRoundHistoryResponse,
  NativeSessionHistory,
  NativeStageEntry,
  NativeWalletEntry,
} from '@opi/contract';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import { type RoundIntent, transactionIdsFor } from '@opi/wallet';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { finishUpdate, recordRound, startSettlement, stateQuery } from '@opi/workflows';
import type { Client } from '@temporalio/client';

// A native round with its stages, settled by the workflow (debit, stages, finish, credit) against
// the sandbox wallet; then the two native history reads and their statuses.
const mines = CATALOG.find((e) => e.provider_id === 'prov_c' && e.integration_mode === 'operator-wallet')!;
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
let w: PlayWorld;
let taskQueue: string;
let h: Harness;
let admin: WalletAdminClient;
let keyA: string;
let keyB: string;
let master: string;
let client: Client;
let sessionId = '';
let slotSession = '';
let otherSession = '';
let roundId = '';

before(async () => {
  const titles = [mines.symbol, slot.symbol];
  w = await startPlayWorld({
    queue: 'native-history',
    operatorWalletTitles: [mines.symbol],
    operators: [
      { id: 'op_nh_a', titles },
      { id: 'op_nh_b', titles, wallet: 'unregistered' },
    ],
    masterKey: true,
    client: true,
  });
  ({ h, admin, taskQueue } = w);
  keyA = w.operators.op_nh_a!.key;
  keyB = w.operators.op_nh_b!.key;
  master = w.masterKey!;
  client = w.client!;

  const launch = async (key: string, symbol: string, player: string) => {
    const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key,
      body: { symbol, external_player_id: player },
    });
    assert.equal(res.status, 200, res.text);
    return res.json.session_id as string;
  };
  await admin.createPlayer({
    operatorId: 'op_nh_a',
    playerId: 'nh-player',
    currency: 'EUR',
    balanceMinor: 10_000,
  });
  sessionId = await launch(keyA, mines.symbol, 'nh-player');
  slotSession = await launch(keyA, slot.symbol, 'nh-player');
  otherSession = await launch(keyB, mines.symbol, 'nh-other');
});
after(() => w.close());

const get = (key: string, path: string) => call(h.base, 'GET', path, { key, sign: true });

test('a native round: intent, stages, ledger and wallet as played and settled', async () => {
  const { rows } = await h.db.pool.query('SELECT player_id FROM sessions WHERE session_id = $1', [sessionId]);
  roundId = `r_${randomUUID()}`;
  const intent: RoundIntent = {
    roundId,
    operatorId: 'op_nh_a',
    sessionId,
    playerId: 'nh-player',
    gameSymbol: mines.symbol,
    providerId: 'prov_c',
    currency: 'EUR',
    actionType: 'bet',
    stakeMinor: '200',
    winMinor: null,
    transactions: transactionIdsFor(roundId),
    multiStep: { abandonAfterSeconds: 300, rule: 'cashout' },
  };
  await recordRound(h.db.pool, { intent, playerPk: rows[0].player_id });
  const stages = [
    ['bet', { stake_minor: '200', mines: 3 }, {}, '1'],
    ['reveal', { cell: 7 }, { safe: true }, '1.1'],
    ['reveal', { cell: 12 }, { safe: true }, '1.25'],
    ['cashout', {}, { win_minor: '250' }, '1.25'],
  ] as const;
  for (const [seq, [action, inputs, outcome, multiplier]] of stages.entries()) {
    await h.db.pool.query(
      `INSERT INTO round_stages (round_id, seq, action, inputs, outcome, multiplier) VALUES ($1, $2, $3, $4, $5, $6)`,
      [roundId, seq, action, JSON.stringify(inputs), JSON.stringify(outcome), multiplier],
    );
  }
  const handle = await startSettlement(client, taskQueue, intent);
  for (let i = 0; i < 300 && (await handle.query(stateQuery)).phase !== 'open'; i++)
    await new Promise((r) => setTimeout(r, 50));
  const done = await handle.executeUpdate(finishUpdate, { args: [{ winMinor: '250' }] });
  assert.equal(done.status, 'completed');

  const session = await get(keyA, `/api/provider/v1/native/history?session_id=${sessionId}`);
  assert.equal(session.status, 200, session.text);
  const s = NativeSessionHistory.parse(session.json);
  assert.equal(session.json.success, undefined, 'the session history has no success/data wrapper');
  assert.deepEqual([s.session_id, s.currency, s.mode], [sessionId, 'EUR', 'operator-wallet']);
  assert.deepEqual(
    s.stages.map((x) => NativeStageEntry.parse(x)).map((x) => [x.seq, x.action, x.multiplier]),
    [
      [0, 'bet', '1.00000000'],
      [1, 'reveal', '1.10000000'],
      [2, 'reveal', '1.25000000'],
      [3, 'cashout', '1.25000000'],
    ],
  );

  const res = await get(keyA, `/api/provider/v1/native/history/${roundId}?session_id=${sessionId}`);
  assert.equal(res.status, 200, res.text);
  const d = NativeRoundHistoryResponse.parse(res.json).data;
  assert.equal(d.status, 'completed');
  assert.equal(d.intent.stakeMinor, '200');
  assert.equal(d.stages.length, 4);
  const ledger = d.ledger.map((x) => NativeLedgerEntry.parse(x));
  assert.deepEqual(
    ledger.map((l) => [l.transaction_type, BigInt(l.delta_minor)]),
    [
      ['debit', -200n],
      ['credit', 250n],
    ],
  );
  const walletRows = d.wallet.map((x) => NativeWalletEntry.parse(x));
  assert.deepEqual(
    walletRows.map((w) => [w.transaction_id, w.status]),
    [
      [`${roundId}:debit`, 'success'],
      [`${roundId}:credit`, 'success'],
    ],
  );
  assert.equal((await admin.balance('op_nh_a', 'nh-player', 'EUR')).balance_minor, '10050');
});

test('statuses: 400 without scope or session, 403 a key naming another operator, 404 another operator’s or an unknown session, service or round', async () => {
  const path = (q: string, round = '') => `/api/provider/v1/native/history${round ? `/${round}` : ''}?${q}`;
  assert.equal(
    (await get(master, path(`session_id=${sessionId}`))).status,
    400,
    'a master key must name the operator',
  );
  assert.equal((await get(master, path(`session_id=${sessionId}&operator_id=op_nh_a`))).status, 200);
  assert.equal((await get(keyA, '/api/provider/v1/native/history')).status, 400, 'session_id is required');
  // Another operator's session answers as an unknown one (issue 34): same status, same body.
  const unknown = await get(keyA, path('session_id=s_unknown'));
  for (const res of [
    await get(keyA, path(`session_id=${otherSession}`)),
    await get(keyB, path(`session_id=${sessionId}`)),
  ]) {
    assert.equal(res.status, 404, res.text);
    assert.equal(res.text, unknown.text);
  }
  assert.equal((await get(keyA, path(`session_id=${sessionId}&operator_id=op_nh_b`))).status, 403);
  assert.equal((await get(keyA, path('session_id=s_unknown'))).status, 404);
  assert.equal(
    (await get(keyA, path(`session_id=${slotSession}`))).status,
    404,
    'no native service for a slot',
  );
  assert.equal(
    (await get(keyA, path(`session_id=${sessionId}`, `${roundId}:debit`))).status,
    404,
    'a transaction id is not a round id',
  );
  assert.equal((await get(keyA, path(`session_id=${sessionId}`, 'r_unknown'))).status, 404);
  assert.equal((await get(keyB, path(`session_id=${sessionId}`, roundId))).status, 404);
  assert.equal((await get(keyA, path(`session_id=${otherSession}`, roundId))).status, 404);
  assert.equal((await get(keyA, path(`session_id=${sessionId}&extra=1`))).status, 422);
  assert.equal((await call(h.base, 'GET', path(`session_id=${sessionId}`))).status, 401);
});

test('a Mines round played through /api/runtime/native: stages, ledger and wallet as played and settled', async () => {
  const player = `nh-rt-${randomUUID().slice(0, 8)}`;
  await admin.createPlayer({
    operatorId: 'op_nh_a',
    playerId: player,
    currency: 'EUR',
    balanceMinor: 50_000,
  });
  const launched = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key: keyA,
    body: { symbol: mines.symbol, external_player_id: player },
  });
  assert.equal(launched.status, 200, launched.text);
  const played = launched.json.session_id as string;
  const grant = new URL(launched.json.launch_url).searchParams.get('grant')!;
  const exchanged = await call(h.game, 'POST', '/api/runtime/native/session-from-grant', { body: { grant } });
  assert.equal(exchanged.status, 200, exchanged.text);
  const rt = (path: 'bet' | 'action', body: Record<string, unknown>) =>
    call(h.game, 'POST', `/api/runtime/native/${path}`, {
      headers: { 'x-session-token': exchanged.json.token },
      body,
    });

  // Bet, reveal two safe cells, cash out: four stages, one debit and one credit.
  const bet = await rt('bet', { stake_minor: 1000, mines: 3 });
  assert.equal(bet.status, 200, bet.text);
  const id = bet.json.round.round_id as string;
  const { rows } = await h.db.pool.query('SELECT outcome FROM rounds WHERE round_id = $1', [id]);
  const [c1, c2] = Array.from({ length: 25 }, (_, i) => i).filter((i) => !rows[0].outcome.mines.includes(i));
  for (const cell of [c1, c2]) {
    const r = await rt('action', { round_id: id, action: 'reveal', cell });
    assert.equal(r.status, 200, r.text);
  }
  const cash = await rt('action', { round_id: id, action: 'cashout' });
  assert.equal(cash.status, 200, cash.text);
  const win = BigInt(cash.json.round.win_minor);
  assert.ok(win > 1000n, 'two safe reveals pay more than the stake');

  // The round history once the settlement workflow has journalled both wallet calls.
  const path = `/api/provider/v1/native/history/${id}?session_id=${played}`;
  const settled = await until('the settled round in the history', async () => {
    const res = await get(keyA, path);
    assert.equal(res.status, 200, res.text);
    const done =
      res.json.data.status === 'completed' &&
      res.json.data.wallet.length === 2 &&
      res.json.data.wallet.every((w: { status: string }) => w.status === 'success');
    return done ? res : undefined;
  });
  const d = NativeRoundHistoryResponse.parse(settled.json).data;
  assert.deepEqual(
    [d.round_id, d.session_id, d.operator_id, d.currency, d.mode],
    [id, played, 'op_nh_a', 'EUR', 'operator-wallet'],
  );
  assert.deepEqual(
    [d.intent.roundId, d.intent.sessionId, d.intent.providerId, d.intent.stakeMinor, d.intent.playerId],
    [id, played, 'prov_c', '1000', player],
  );
  const stages = d.stages.map((x) => NativeStageEntry.parse(x));
  assert.deepEqual(
    stages.map((s) => [s.round_id, s.seq, s.action]),
    [
      [id, 0, 'bet'],
      [id, 1, 'reveal'],
      [id, 2, 'reveal'],
      [id, 3, 'cashout'],
    ],
  );
  assert.deepEqual(
    stages.slice(1, 3).map((s) => s.inputs.cell),
    [c1, c2],
  );
  assert.equal(stages[3]!.outcome.win_minor, win.toString());

  // Ledger and wallet: integer amounts (JSON numbers), the same ids, the wallet's own balance.
  const txIds = d.intent.transactions as { debit: string; credit: string };
  const ledger = d.ledger.map((x) => NativeLedgerEntry.parse(x));
  const walletRows = d.wallet.map((x) => NativeWalletEntry.parse(x));
  assert.deepEqual(
    ledger.map((l) => [l.transaction_id, l.transaction_type, BigInt(l.delta_minor), l.currency]),
    [
      [`${id}:debit`, 'debit', -1000n, 'EUR'],
      [`${id}:credit`, 'credit', win, 'EUR'],
    ],
  );
  assert.deepEqual(
    walletRows.map((w) => [w.transaction_id, w.transaction_type, BigInt(w.amount_minor), w.status]),
    [
      [txIds.debit, 'debit', 1000n, 'success'],
      [txIds.credit, 'credit', win, 'success'],
    ],
  );
  for (const w of walletRows) {
    assert.deepEqual(
      [w.operator_id, w.session_id, w.round_id, w.player_id, w.game_symbol, w.currency],
      ['op_nh_a', played, id, player, mines.symbol, 'EUR'],
    );
    assert.match(w.request_hash, /^[a-f0-9]{64}$/);
    assert.equal(w.http_status, 200);
  }
  for (const [i, raw] of (settled.json.data.wallet as { amount_minor: unknown }[]).entries()) {
    assert.ok(Number.isInteger(raw.amount_minor), 'wallet amounts are JSON integers');
    assert.ok(Number.isInteger(settled.json.data.ledger[i].delta_minor), 'ledger deltas are JSON integers');
  }
  const balance = BigInt((await admin.balance('op_nh_a', player, 'EUR')).balance_minor);
  assert.equal(balance, 50_000n - 1000n + win);
  assert.equal(
    ledger.reduce((sum, l) => sum + BigInt(l.delta_minor), 50_000n),
    balance,
    "the ledger adds up to the sandbox wallet's balance",
  );
  assert.equal(ledger[1]!.wallet_balance, cash.json.round.balance, 'the balance the wallet answered');

  // The session history lists the same stages, and the operator audit API the same integer totals.
  const session = await get(keyA, `/api/provider/v1/native/history?session_id=${played}`);
  assert.equal(session.status, 200, session.text);
  const sh = NativeSessionHistory.parse(session.json);
  assert.deepEqual([sh.session_id, sh.currency, sh.mode], [played, 'EUR', 'operator-wallet']);
  assert.deepEqual(
    sh.stages.map((x) => NativeStageEntry.parse(x)),
    stages,
  );
  const audit = await get(keyA, `/api/operator/v1/rounds/${id}`);
  assert.equal(audit.status, 200, audit.text);
  assert.deepEqual([audit.json.data.bet_minor, audit.json.data.win_minor], [1000, Number(win)]);
  assert.deepEqual(
    audit.json.data.transactions.map((t: { transaction_id: string; amount_minor: number }) => [
      t.transaction_id,
      t.amount_minor,
    ]),
    walletRows.map((w) => [w.transaction_id, Number(w.amount_minor)]),
  );
});

test('the native service: the prov_c family switch and the title flag must both be on, else 404', async () => {
  const paths = [
    `/api/provider/v1/native/history?session_id=${sessionId}`,
    `/api/provider/v1/native/history/${roundId}?session_id=${sessionId}`,
  ];
  const statuses = async () => Promise.all(paths.map(async (p) => (await get(keyA, p)).status));
  const titleFlag = (enabled: boolean) =>
    call(h.base, 'PUT', `/api/admin/v1/games/${mines.symbol}/operator-wallet`, {
      key: ADMIN_KEY,
      body: { enabled },
      sign: true,
    });
  const familySwitch = (provider: string, enabled: boolean) =>
    call(h.base, 'PUT', `/api/admin/v1/providers/${provider}/switch`, {
      key: ADMIN_KEY,
      body: { enabled },
      sign: true,
    });
  const expectNoService = async () => {
    for (const p of paths) {
      const res = await get(keyA, p);
      assert.equal(res.status, 404, `${p}: ${res.text}`);
      assert.match(res.json.detail, /native service/);
      const viaMaster = await get(master, `${p}&operator_id=op_nh_a`);
      assert.equal(viaMaster.status, 404, viaMaster.text);
    }
    // Ownership is still decided first: another operator's session is an unknown one (404
    // `Session not found`, nothing about the service), as is an unknown id.
    const other = await get(keyB, paths[0]!);
    const unknown = await get(keyA, '/api/provider/v1/native/history?session_id=s_unknown');
    assert.equal(other.status, 404);
    assert.equal(other.text, unknown.text);
    assert.equal(unknown.json.detail, 'Session not found');
  };
  assert.deepEqual(await statuses(), [200, 200]);
  try {
    assert.equal((await titleFlag(false)).status, 200);
    await expectNoService();
    assert.equal((await titleFlag(true)).status, 200);
    assert.deepEqual(await statuses(), [200, 200]);

    assert.equal((await familySwitch('prov_c', false)).status, 200);
    await expectNoService();
    assert.equal((await familySwitch('prov_c', true)).status, 200);
    assert.deepEqual(await statuses(), [200, 200]);

    // Another family's switch is not the native service.
    assert.equal((await familySwitch('prov_a', false)).status, 200);
    assert.deepEqual(await statuses(), [200, 200]);
  } finally {
    await titleFlag(true);
    await familySwitch('prov_c', true);
    await familySwitch('prov_a', true);
  }
});
