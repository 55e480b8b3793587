import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { callbackRequestId } from '@opi/wallet';
import {
  eventually,
  OPERATOR_ID,
  type SettlementEnv,
  startSettlementEnv,
} from '../test-support/settlement-env.js';
import { staffCancelSignal } from './messages.js';
import { startSettlement } from './start.js';
import type { SettlementTuning } from './workflow.js';

// Journal ahead (the slot spin's rounds): the debit's row is written with the round and the
// credit's with the debit's success, so each step's first attempt sends without a claim. Real
// Temporal dev server, PostgreSQL and the sandbox wallet over HTTP.
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
  const { rows } = await env.pool.query<{
    transaction_id: string;
    transaction_type: string;
    status: string;
    attempts: number;
    error_code: string | null;
    request_hash: string;
    request_body: string;
  }>(
    `SELECT transaction_id, transaction_type, status, attempts, error_code, request_hash, request_body
     FROM wallet_transactions WHERE round_id = $1 ORDER BY created_at, transaction_id`,
    [roundId],
  );
  return rows;
}

async function walletRequests(roundId: string) {
  const { rows } = await env.pool.query<{ transaction_type: string; outcome: string; request_hash: string }>(
    `SELECT transaction_type, outcome, request_hash FROM wallet.requests WHERE round_id = $1 ORDER BY request_seq`,
    [roundId],
  );
  return rows;
}

async function reconciliation(roundId: string) {
  const { rows } = await env.pool.query<{
    pending_rows: number;
    differs: boolean;
    wallet_delta_minor: bigint;
  }>(`SELECT pending_rows, differs, wallet_delta_minor FROM round_reconciliation WHERE round_id = $1`, [
    roundId,
  ]);
  return rows[0];
}

test('the debit row is written with the round; each step sends on its first attempt, the journalled bytes', async () => {
  const p = await env.newPlayer({ family: 'prov_a' });
  const intent = await env.newRound(p, { stakeMinor: 150, winMinor: 400, journalAhead: true });
  const before = await journal(intent.roundId);
  assert.deepEqual(
    before.map((r) => [r.transaction_type, r.status, r.attempts]),
    [['debit', 'pending', 1]],
    'journalled before any send, with the round',
  );
  const outcome = await (await startSettlement(env.client, env.taskQueue, intent, FAST)).result();
  assert.equal(outcome.status, 'completed');
  const rows = await journal(intent.roundId);
  assert.deepEqual(
    rows.map((r) => [r.transaction_type, r.status, r.attempts]),
    [
      ['debit', 'success', 1],
      ['credit', 'success', 1],
    ],
  );
  for (const r of rows) {
    assert.equal(JSON.parse(r.request_body).request_id, callbackRequestId(r.transaction_id));
  }
  const sent = await walletRequests(intent.roundId);
  assert.deepEqual(
    sent.map((r) => [r.transaction_type, r.outcome, r.request_hash]),
    rows.map((r) => [r.transaction_type, 'applied', r.request_hash]),
    'the wallet received exactly the journalled bytes, once each',
  );
  assert.equal(
    Number((await env.wallet.admin.balance(OPERATOR_ID, p.externalId, 'EUR')).balance_minor),
    100_250,
  );
  assert.deepEqual(await reconciliation(intent.roundId), {
    pending_rows: 0,
    differs: false,
    wallet_delta_minor: 250n,
  });
});

test('an answer lost after the wallet committed: the retry claims the row and resends the same bytes', async () => {
  const p = await env.newPlayer({ family: 'prov_b' });
  const intent = await env.newRound(p, { stakeMinor: 100, winMinor: 0, journalAhead: true });
  await env.wallet.admin.setFaults({ dropAfterCommitRate: 1 });
  try {
    await startSettlement(env.client, env.taskQueue, intent, FAST);
    await eventually(
      async () => (await walletRequests(intent.roundId)).some((r) => r.transaction_type === 'debit'),
      20_000,
      'the debit reached the wallet',
    );
  } finally {
    await env.wallet.admin.setFaults({});
  }
  const outcome = await env.client.workflow.getHandle(intent.roundId).result();
  assert.equal(outcome.status, 'completed');
  const rows = await journal(intent.roundId);
  assert.equal(rows[0]!.transaction_type, 'debit');
  assert.ok(rows[0]!.attempts >= 2, `the retry claimed the debit row (${rows[0]!.attempts} attempts)`);
  const sent = await walletRequests(intent.roundId);
  const debits = sent.filter((r) => r.transaction_type === 'debit');
  assert.equal(debits.filter((r) => r.outcome === 'applied').length, 1, 'applied once');
  assert.ok(debits.length >= 2, 'resent');
  assert.equal(new Set(debits.map((r) => r.request_hash)).size, 1, 'the same bytes every time');
  assert.equal(debits[0]!.request_hash, rows[0]!.request_hash);
  assert.equal(
    Number((await env.wallet.admin.balance(OPERATOR_ID, p.externalId, 'EUR')).balance_minor),
    99_900,
  );
});

test('a staff cancel while the debit is stuck: the credit row the debit wrote is voided, never sent', async () => {
  const p = await env.newPlayer({ family: 'prov_b' });
  const intent = await env.newRound(p, { stakeMinor: 120, winMinor: 300, journalAhead: true });
  await env.wallet.admin.setFaults({ error5xxRate: 1 });
  try {
    const handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
    await eventually(
      async () => ((await journal(intent.roundId))[0]?.attempts ?? 0) >= 2,
      20_000,
      'the debit retried',
    );
    await handle.signal(staffCancelSignal, { reason: 'wallet down' });
    // Let a workflow task take the signal (the debit retries as a local activity meanwhile).
    await eventually(
      async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        const signalled = events.findIndex((e) => e.workflowExecutionSignaledEventAttributes);
        return signalled >= 0 && events.slice(signalled).some((e) => e.workflowTaskCompletedEventAttributes);
      },
      60_000,
      'the workflow took the signal',
    );
  } finally {
    await env.wallet.admin.setFaults({});
  }
  const outcome = await env.client.workflow.getHandle(intent.roundId).result();
  assert.equal(outcome.status, 'cancelled');
  const rows = await journal(intent.roundId);
  assert.deepEqual(
    rows.map((r) => [r.transaction_type, r.status, r.error_code]),
    [
      ['debit', 'success', null],
      ['credit', 'failed', 'not_sent_round_cancelled'],
      ['cancel', 'success', null],
    ],
  );
  const sent = await walletRequests(intent.roundId);
  assert.ok(!sent.some((r) => r.transaction_type === 'credit'), 'the credit was never sent');
  assert.equal(
    Number((await env.wallet.admin.balance(OPERATOR_ID, p.externalId, 'EUR')).balance_minor),
    100_000,
  );
  assert.deepEqual(await reconciliation(intent.roundId), {
    pending_rows: 0,
    differs: false,
    wallet_delta_minor: 0n,
  });
});
