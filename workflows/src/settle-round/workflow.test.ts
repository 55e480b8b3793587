import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RoundOutcome } from '@opi/wallet/intent';
import type { WorkflowHandle } from '@temporalio/client';
import { recordHistory } from '../histories/corpus.js';
import {
  eventually,
  OPERATOR_ID,
  type SettlementEnv,
  startSettlementEnv,
  WALLET_SECRET,
} from '../test-support/settlement-env.js';
import { settle, startSettlement } from './start.js';
import type { SettlementTuning } from './workflow.js';

// Real Temporal dev server, real PostgreSQL, the sandbox wallet over HTTP. Short retries.
const FAST: Partial<SettlementTuning> = {
  initialRetryMs: 50,
  maxRetryMs: 400,
  debitAttemptsBeforeRollback: 3,
};

let env: SettlementEnv;
before(async () => {
  env = await startSettlementEnv();
  await env.startWorker();
});
after(() => env.close());

async function journal(roundId: string) {
  const { rows } = await env.pool.query(
    `SELECT transaction_id, transaction_type, amount_minor, status, attempts, error_code, original_transaction_id, request_hash
     FROM wallet_transactions WHERE round_id = $1 ORDER BY created_at, transaction_id`,
    [roundId],
  );
  return rows;
}
async function round(roundId: string) {
  const { rows } = await env.pool.query(
    'SELECT status, stuck, bet_minor, win_minor FROM rounds WHERE round_id = $1',
    [roundId],
  );
  return rows[0];
}
async function balance(externalId: string, currency = 'EUR') {
  return Number((await env.wallet.admin.balance(OPERATOR_ID, externalId, currency)).balance_minor);
}
async function walletRequests(roundId: string) {
  const { rows } = await env.pool.query(
    `SELECT transaction_id, transaction_type AS operation FROM wallet.requests WHERE round_id = $1 ORDER BY request_seq`,
    [roundId],
  );
  return rows as { transaction_id: string; operation: string }[];
}
/** Adds the finished workflow's history to the replay corpus (RECORD_HISTORIES=1; histories/corpus.ts). */
function maybeRecord(path: string, handle: WorkflowHandle) {
  recordHistory({ workflow: 'settleRound', path, workflowId: handle.workflowId, address: env.address });
}

describe('single-step rounds', () => {
  test('happy path: debit then credit, exactly once each; round completed', async () => {
    const p = await env.newPlayer({ family: 'prov_b' });
    const intent = await env.newRound(p, { stakeMinor: 150, winMinor: 400 });
    const handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
    const outcome = await handle.result();
    assert.deepEqual(outcome, { status: 'completed', winMinor: '400', balance: '1002.50' });
    assert.equal(await balance(p.externalId), 100_000 - 150 + 400);
    const rows = await journal(intent.roundId);
    assert.deepEqual(
      rows.map((r) => [r.transaction_type, r.amount_minor, r.status, r.attempts]),
      [
        ['debit', 150n, 'success', 1],
        ['credit', 400n, 'success', 1],
      ],
    );
    assert.deepEqual(await round(intent.roundId), {
      status: 'completed',
      stuck: false,
      bet_minor: 150n,
      win_minor: 400n,
    });
    maybeRecord('ordinary-steps', handle);
  });

  test('a zero win still sends a zero credit that closes the round', async () => {
    const p = await env.newPlayer({ family: 'prov_a' });
    const intent = await env.newRound(p, { stakeMinor: 200, winMinor: 0 });
    const outcome = await settle(env.client, env.taskQueue, intent, FAST);
    assert.equal(outcome.status, 'completed');
    const rows = await journal(intent.roundId);
    assert.deepEqual(
      rows.map((r) => [r.transaction_type, r.amount_minor, r.status]),
      [
        ['debit', 200n, 'success'],
        ['credit', 0n, 'success'],
      ],
    );
    assert.equal(await balance(p.externalId), 100_000 - 200);
  });

  test('a definite rejection (insufficient funds) ends the round with no credit', async () => {
    const p = await env.newPlayer({ family: 'prov_b', balanceMinor: 100 });
    const intent = await env.newRound(p, { stakeMinor: 500, winMinor: 1000 });
    const handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
    assert.deepEqual(await handle.result(), { status: 'rejected', error: 'insufficient_funds' });
    const rows = await journal(intent.roundId);
    assert.deepEqual(
      rows.map((r) => [r.transaction_type, r.status, r.error_code]),
      [['debit', 'failed', 'insufficient_funds']],
    );
    assert.equal((await round(intent.roundId)).status, 'rejected');
    assert.equal(await balance(p.externalId), 100);
    maybeRecord('rejected-debit', handle);
  });

  test('a second start of the same round attaches to it: no second debit', async () => {
    const p = await env.newPlayer({ family: 'prov_c' });
    const intent = await env.newRound(p, { stakeMinor: 100, winMinor: 100 });
    const [a, b] = await Promise.all([
      settle(env.client, env.taskQueue, intent, FAST),
      settle(env.client, env.taskQueue, intent, FAST),
    ]);
    assert.deepEqual(a, b);
    const again = await settle(env.client, env.taskQueue, intent, FAST);
    assert.deepEqual(again, a, 'a finished round is not run again');
    const reqs = await walletRequests(intent.roundId);
    assert.deepEqual(
      reqs.map((r) => r.operation),
      ['debit', 'credit'],
    );
  });

  test('amounts use the currency exponent: JPY 0, BHD 3', async () => {
    for (const [currency, expected] of [
      ['JPY', 1000 - 150],
      ['BHD', 1000 - 150],
    ] as const) {
      const p = await env.newPlayer({ family: 'prov_b', currency, balanceMinor: 1000 });
      const intent = await env.newRound(p, { stakeMinor: 150, winMinor: 0 });
      const outcome = await settle(env.client, env.taskQueue, intent, FAST);
      assert.equal(outcome.status, 'completed');
      assert.equal(await balance(p.externalId, currency), expected);
      const { rows } = await env.pool.query(
        `SELECT request_body FROM wallet_transactions WHERE transaction_id = $1`,
        [intent.transactions.debit],
      );
      const body = JSON.parse(rows[0].request_body);
      assert.equal(body.amount_minor, 150);
      assert.equal(body.amount, currency === 'JPY' ? 150 : 0.15);
      assert.equal(body.contract_version, '2026-09-01');
      assert.equal(body.original_transaction_id, undefined);
    }
  });
});

describe('uncertain outcomes and family recovery', () => {
  test('prov_a: a debit still uncertain after its budget is compensated by a rollback', async () => {
    const p = await env.newPlayer({ family: 'prov_a' });
    const intent = await env.newRound(p, { stakeMinor: 300, winMinor: 0 });
    await env.wallet.admin.setFaults({ dropAfterCommitRate: 1 });
    try {
      const handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
      // The debit committed at the wallet, but no answer ever came back; then the rollback too.
      await eventually(
        async () => (await journal(intent.roundId)).some((r) => r.transaction_type === 'rollback'),
        20_000,
        'rollback',
      );
      await env.wallet.admin.setFaults({});
      const outcome = await handle.result();
      assert.equal(outcome.status, 'rolled_back');
      maybeRecord('prov-a-rollback', handle);
    } finally {
      await env.wallet.admin.setFaults({});
    }
    assert.equal(await balance(p.externalId), 100_000, 'the committed debit was reversed');
    const rows = await journal(intent.roundId);
    assert.deepEqual(
      rows.map((r) => [r.transaction_type, r.status, r.original_transaction_id]),
      [
        ['debit', 'failed', null],
        ['rollback', 'success', intent.transactions.debit],
      ],
    );
    assert.equal(rows[0].error_code, 'reversed_by_rollback');
    assert.equal((await round(intent.roundId)).status, 'rolled_back');
    const reqs = await walletRequests(intent.roundId);
    assert.ok(
      reqs
        .filter((r) => r.operation === 'debit')
        .every((r) => r.transaction_id === intent.transactions.debit),
    );
    assert.equal(reqs.filter((r) => r.operation === 'credit').length, 0, 'no credit after a rollback');
  });

  test('prov_b keeps the durable intent: stuck while the wallet fails, then completes once; same body every time', async () => {
    const p = await env.newPlayer({ family: 'prov_b' });
    const intent = await env.newRound(p, { stakeMinor: 120, winMinor: 80 });
    await env.wallet.admin.setFaults({ error5xxRate: 1 });
    let handle: WorkflowHandle;
    try {
      handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
      await eventually(async () => (await round(intent.roundId)).stuck === true, 20_000, 'stuck round');
      const attempts = (await journal(intent.roundId))[0].attempts;
      assert.ok(attempts >= 3, `retried ${attempts} times`);
    } finally {
      await env.wallet.admin.setFaults({});
    }
    const outcome: RoundOutcome = await handle.result();
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(await round(intent.roundId), {
      status: 'completed',
      stuck: false,
      bet_minor: 120n,
      win_minor: 80n,
    });
    assert.equal(await balance(p.externalId), 100_000 - 120 + 80);
    const reqs = await walletRequests(intent.roundId);
    assert.equal(new Set(reqs.filter((r) => r.operation === 'debit').map((r) => r.transaction_id)).size, 1);
    const { rows } = await env.pool.query(
      `SELECT count(DISTINCT request_hash) AS hashes FROM wallet.requests WHERE transaction_id = $1`,
      [intent.transactions.debit],
    );
    assert.equal(Number(rows[0].hashes), 1, 'every attempt sent the same bytes');
    maybeRecord('stuck-then-recovered', handle);
  });

  test('a wrong wallet secret (401) is a configuration fault: prov_a keeps the intent, no rollback', async () => {
    const p = await env.newPlayer({ family: 'prov_a' });
    const intent = await env.newRound(p, { stakeMinor: 90, winMinor: 10 });
    await env.wallet.admin.setSecret(OPERATOR_ID, 'wsec_rotated_wrongly_0000000000000');
    let handle: WorkflowHandle;
    try {
      handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
      await eventually(async () => (await round(intent.roundId)).stuck === true, 20_000, 'stuck round');
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(
        (await journal(intent.roundId)).map((r) => r.transaction_type),
        ['debit'],
        'no rollback for a signature fault',
      );
    } finally {
      await env.wallet.admin.setSecret(OPERATOR_ID, WALLET_SECRET);
    }
    assert.equal((await handle.result()).status, 'completed');
    assert.equal(await balance(p.externalId), 100_000 - 90 + 10);
  });
});

describe('multi-step rounds', () => {
  test('stages, then finish: one workflow from the first debit to the last credit', async () => {
    const p = await env.newPlayer({ family: 'prov_c' });
    const intent = await env.newRound(p, {
      stakeMinor: 100,
      winMinor: null,
      multiStep: { abandonAfterSeconds: 60, rule: 'loss' },
    });
    const handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
    await eventually(
      async () => (await handle.query<{ phase: string }>('state')).phase === 'open',
      10_000,
      'open round',
    );
    await handle.signal('stage', { cashoutMinor: '130' });
    await handle.signal('stage', { cashoutMinor: '180' });
    const outcome = await handle.executeUpdate<RoundOutcome, [{ winMinor: string }]>('finish', {
      args: [{ winMinor: '180' }],
    });
    assert.equal(outcome.status, 'completed');
    assert.equal(await balance(p.externalId), 100_000 - 100 + 180);
    await assert.rejects(
      handle.executeUpdate('finish', { args: [{ winMinor: '999' }] }),
      /round is done|already completed/,
    );
    assert.equal(await balance(p.externalId), 100_000 - 100 + 180, 'cash-out credits once');
    maybeRecord('native-stages', handle);
  });

  test('cancel: the wager comes back through a cancel callback', async () => {
    const p = await env.newPlayer({ family: 'prov_d' });
    const intent = await env.newRound(p, { stakeMinor: 250, winMinor: null });
    const handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
    await eventually(
      async () => (await handle.query<{ phase: string }>('state')).phase === 'open',
      10_000,
      'open round',
    );
    const outcome = await handle.executeUpdate<RoundOutcome, [{ reason: string }]>('cancel', {
      args: [{ reason: 'runtime could not start the round' }],
    });
    assert.equal(outcome.status, 'cancelled');
    assert.equal(await balance(p.externalId), 100_000);
    assert.deepEqual(
      (await journal(intent.roundId)).map((r) => [r.transaction_type, r.status]),
      [
        ['debit', 'success'],
        ['cancel', 'success'],
      ],
    );
    assert.equal((await round(intent.roundId)).status, 'cancelled');
    maybeRecord('cancel', handle);
  });

  test('an abandoned round is settled by its rule (automatic cash-out at the last offer)', async () => {
    const p = await env.newPlayer({ family: 'prov_c' });
    const intent = await env.newRound(p, {
      stakeMinor: 100,
      winMinor: null,
      multiStep: { abandonAfterSeconds: 1, rule: 'cashout' },
    });
    const handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
    await eventually(
      async () => (await handle.query<{ phase: string }>('state')).phase === 'open',
      10_000,
      'open round',
    );
    await handle.signal('stage', { cashoutMinor: '150' });
    const outcome = await handle.result();
    assert.deepEqual(outcome.status, 'completed');
    assert.equal(await balance(p.externalId), 100_000 - 100 + 150);
  });

  test('an abandoned round under the loss rule closes with a zero credit', async () => {
    const p = await env.newPlayer({ family: 'prov_c' });
    const intent = await env.newRound(p, {
      stakeMinor: 100,
      winMinor: null,
      multiStep: { abandonAfterSeconds: 1, rule: 'loss' },
    });
    const outcome = await settle(env.client, env.taskQueue, intent, FAST);
    assert.equal(outcome.status, 'completed');
    assert.equal(await balance(p.externalId), 100_000 - 100);
  });
});
