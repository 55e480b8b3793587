import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { promoTransactionId } from '@opi/wallet';
import { recordHistory } from '../histories/corpus.js';
import {
  eventually,
  OPERATOR_ID,
  type SettlementEnv,
  startSettlementEnv,
} from '../test-support/settlement-env.js';
import { startPayPromo } from './start.js';

// A promotional payout (issue 25): one `promo_win` credit, journalled first, retried until the
// wallet takes it (faults and rejections included), paid once however often it is started. Real
// Temporal, real PostgreSQL, the sandbox wallet over HTTP.
let env: SettlementEnv;
const TUNING = { initialRetryMs: 100, maxRetryMs: 400 };

before(async () => {
  env = await startSettlementEnv();
  await env.startWorker();
});
after(() => env?.close());

/** A payout row as a tournament's freeze writes it (the session id may name nothing open). */
async function newPayout(opts: {
  externalId: string;
  playerPk: string;
  amountMinor: number;
  sessionId?: string;
}): Promise<string> {
  const promoId = `t-${randomUUID().slice(0, 8)}`;
  const h = createHash('sha256').update(`${OPERATOR_ID}\n${opts.externalId}\nEUR`).digest('hex').slice(0, 32);
  const payoutId = `pp_t_${promoId}_${h}`;
  await env.pool.query(
    `INSERT INTO promo_payouts (payout_id, promo_type, promo_id, operator_id, external_player_id, player_id, currency,
                                amount_minor, rank, session_id, game_symbol)
     VALUES ($1, 'tournament', $2, $3, $4, $5, 'EUR', $6, 1, $7, 't_slot_a')`,
    [
      payoutId,
      promoId,
      OPERATOR_ID,
      opts.externalId,
      opts.playerPk,
      opts.amountMinor,
      opts.sessionId ?? 's_gone',
    ],
  );
  return payoutId;
}

async function walletCredits(payoutId: string) {
  const { rows } = await env.pool.query(
    `SELECT transaction_type, amount_minor::text, player_delta_minor::text FROM wallet.transactions
      WHERE operator_id = $1 AND round_id = $2`,
    [OPERATOR_ID, payoutId],
  );
  return rows;
}

test('a payout is one promo_win credit with the promotion fields; a second start pays nothing', async () => {
  const p = await env.newPlayer({ balanceMinor: 1_000 });
  // The session is long closed: the payout needs none (its id is only the callback's reference).
  await env.pool.query(`UPDATE sessions SET status = 'closed' WHERE session_id = $1`, [p.sessionId]);
  const payoutId = await newPayout({
    externalId: p.externalId,
    playerPk: p.playerPk,
    amountMinor: 2_500,
    sessionId: p.sessionId,
  });
  const first = await startPayPromo(env.client, env.taskQueue, payoutId, TUNING);
  assert.equal(first.started, true);
  assert.deepEqual(await first.handle.result(), { status: 'paid', balance: '35.00' });

  const { rows } = await env.pool.query(
    `SELECT t.transaction_id, t.round_id, t.status, t.request_body, t.amount_minor::text, pp.status AS payout_status,
            pp.paid_at IS NOT NULL AS paid_at
       FROM wallet_transactions t JOIN promo_payouts pp ON pp.payout_id = t.round_id WHERE t.round_id = $1`,
    [payoutId],
  );
  assert.equal(rows.length, 1);
  const row = rows[0];
  assert.deepEqual(
    [row.transaction_id, row.status, row.amount_minor, row.payout_status, row.paid_at],
    [promoTransactionId(payoutId), 'success', '2500', 'paid', true],
  );
  const body = JSON.parse(row.request_body);
  assert.deepEqual(
    {
      transaction_type: body.transaction_type,
      action_type: body.action_type,
      round_id: body.round_id,
      transaction_id: body.transaction_id,
      session_id: body.session_id,
      game_symbol: body.game_symbol,
      player_id: body.player_id,
      amount: body.amount,
      amount_minor: body.amount_minor,
      promo_type: body.promo_type,
      rank: body.rank,
      contract_version: body.contract_version,
    },
    {
      transaction_type: 'credit',
      action_type: 'promo_win',
      round_id: payoutId,
      transaction_id: `${payoutId}:credit`,
      session_id: p.sessionId,
      game_symbol: 't_slot_a',
      player_id: p.externalId,
      amount: 25,
      amount_minor: 2500,
      promo_type: 'tournament',
      rank: 1,
      contract_version: '2026-09-01',
    },
  );
  assert.match(body.promo_id, /^t-/);
  assert.match(body.request_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

  const again = await startPayPromo(env.client, env.taskQueue, payoutId, TUNING);
  assert.equal(again.started, false, 'a finished payout is never run again');
  assert.deepEqual(await walletCredits(payoutId), [
    { transaction_type: 'credit', amount_minor: '2500', player_delta_minor: '2500' },
  ]);
  assert.equal((await env.wallet.admin.balance(OPERATOR_ID, p.externalId, 'EUR')).balance_minor, '3500');
  recordHistory({
    workflow: 'payPromo',
    path: 'paid-first-time',
    workflowId: payoutId,
    address: env.address,
  });
});

test('payPromo is retried until the wallet answers: 5xx faults, then an answer lost after the wallet committed', async () => {
  const p = await env.newPlayer({ balanceMinor: 0 });
  const payoutId = await newPayout({ externalId: p.externalId, playerPk: p.playerPk, amountMinor: 700 });
  const journal = async () =>
    (
      await env.pool.query<{ attempts: number; status: string; last_error: string | null }>(
        `SELECT attempts, status, last_error FROM wallet_transactions WHERE transaction_id = $1`,
        [promoTransactionId(payoutId)],
      )
    ).rows[0];
  await env.wallet.admin.setFaults({ error5xxRate: 1 });
  try {
    const { handle } = await startPayPromo(env.client, env.taskQueue, payoutId, TUNING);
    await eventually(async () => ((await journal())?.attempts ?? 0) >= 3, 20_000, 'three failed attempts');
    assert.match((await journal())!.last_error ?? '', /500|injected/);
    assert.deepEqual(await walletCredits(payoutId), [], 'nothing applied while the wallet answers 500');
    // The wallet applies the credit and the answer is lost: the payout is still owed as far as we know.
    await env.wallet.admin.setFaults({ dropAfterCommitRate: 1 });
    await eventually(async () => (await walletCredits(payoutId)).length === 1, 20_000, 'the credit applied');
    await eventually(async () => ((await journal())?.attempts ?? 0) >= 5, 20_000, 'more attempts');
    assert.equal((await journal())!.status, 'pending');
    await env.wallet.admin.setFaults({});
    const result = await handle.result();
    assert.deepEqual(result, { status: 'paid', balance: '7.00' });
  } finally {
    await env.wallet.admin.setFaults({});
  }
  assert.deepEqual(await walletCredits(payoutId), [
    { transaction_type: 'credit', amount_minor: '700', player_delta_minor: '700' },
  ]);
  assert.equal((await env.wallet.admin.balance(OPERATOR_ID, p.externalId, 'EUR')).balance_minor, '700');
  const { rows } = await env.pool.query(
    `SELECT t.status, t.attempts, pp.status AS payout_status FROM wallet_transactions t
       JOIN promo_payouts pp ON pp.payout_id = t.round_id WHERE t.round_id = $1`,
    [payoutId],
  );
  assert.equal(rows.length, 1, 'one journal row however many attempts');
  assert.deepEqual([rows[0].status, rows[0].payout_status], ['success', 'paid']);
  // Every attempt sent the same bytes.
  const { rows: seen } = await env.pool.query(
    `SELECT count(*)::int AS n, count(DISTINCT request_hash)::int AS bodies FROM wallet.requests
      WHERE operator_id = $1 AND transaction_id = $2`,
    [OPERATOR_ID, promoTransactionId(payoutId)],
  );
  assert.ok(seen[0].n >= 2, `requests ${seen[0].n}`);
  assert.equal(seen[0].bodies, 1);
  recordHistory({
    workflow: 'payPromo',
    path: 'paid-after-retries',
    workflowId: payoutId,
    address: env.address,
  });
});

test('a rejected promotional credit is never given up: it stays pending and is sent again', async () => {
  // A player the wallet does not know: the credit is rejected (unknown_player), and retried.
  const externalId = `gone-${randomUUID().slice(0, 8)}`;
  const playerPk = `p_${randomUUID()}`;
  await env.pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ($1, $2, $3, 'global')`,
    [playerPk, OPERATOR_ID, externalId],
  );
  const payoutId = await newPayout({ externalId, playerPk, amountMinor: 300 });
  const { handle } = await startPayPromo(env.client, env.taskQueue, payoutId, TUNING);
  try {
    await eventually(
      async () => {
        const { rows } = await env.pool.query(
          `SELECT attempts, last_error FROM wallet_transactions WHERE transaction_id = $1`,
          [promoTransactionId(payoutId)],
        );
        return (rows[0]?.attempts ?? 0) >= 3 && /unknown_player/.test(rows[0].last_error ?? '');
      },
      20_000,
      'three rejected attempts',
    );
    const { rows } = await env.pool.query(
      `SELECT pp.status, t.status AS journal FROM promo_payouts pp JOIN wallet_transactions t ON t.round_id = pp.payout_id
        WHERE pp.payout_id = $1`,
      [payoutId],
    );
    assert.deepEqual(rows[0], { status: 'pending', journal: 'pending' });
    assert.equal((await handle.describe()).status.name, 'RUNNING');
  } finally {
    await handle.terminate('test over');
  }
});
