import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import { type RoundIntent, transactionIdsFor } from '@opi/wallet/intent';
import { ApplicationFailure } from '@temporalio/activity';
import { NativeConnection, Worker } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATH } from '../bundle.js';
import { recordHistory } from '../histories/corpus.js';
import {
  eventually,
  OPERATOR_ID,
  SERVICE_SECRET,
  type SettlementEnv,
  startSettlementEnv,
} from '../test-support/settlement-env.js';
import {
  CREDIT_ALREADY_APPLIED,
  createSettlementActivities,
  type FirstAttemptStep,
  type WalletStepInput,
  type WalletStepResult,
} from './activities.js';
import { staffCancelSignal } from './messages.js';
import { startSettlement } from './start.js';
import type { SettlementTuning } from './workflow.js';

// The slot spin's one-step first attempt (intent.oneStep): debit then credit in one local
// activity, whatever it does not settle continuing through the ordinary steps. Real Temporal dev
// server, PostgreSQL and the sandbox wallet over HTTP; the last two tests drive the workflow's
// fall-through with scripted activities on the same dev server.
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
  const { rows } = await env.pool.query<{ transaction_type: string; status: string; attempts: number }>(
    `SELECT transaction_type, status, attempts FROM wallet_transactions WHERE round_id = $1
     ORDER BY created_at, transaction_id`,
    [roundId],
  );
  return rows.map((r) => [r.transaction_type, r.status, r.attempts]);
}

async function walletRequests(roundId: string) {
  const { rows } = await env.pool.query<{ transaction_type: string; outcome: string }>(
    `SELECT transaction_type, outcome FROM wallet.requests WHERE round_id = $1 ORDER BY request_seq`,
    [roundId],
  );
  return rows.map((r) => [r.transaction_type, r.outcome]);
}

async function localActivities(roundId: string): Promise<string[]> {
  const events = (await env.client.workflow.getHandle(roundId).fetchHistory()).events ?? [];
  return events
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
    .map((e) => {
      const data = e.markerRecordedEventAttributes!.details!.data!.payloads![0]!.data!;
      return JSON.parse(Buffer.from(data).toString('utf8')).activity_type as string;
    });
}

test('a spin settles in one local activity: debit and credit each sent once, journalled first', async () => {
  const p = await env.newPlayer({ family: 'prov_a' });
  const intent = await env.newRound(p, { stakeMinor: 150, winMinor: 400, journalAhead: true, oneStep: true });
  const outcome = await (await startSettlement(env.client, env.taskQueue, intent, FAST)).result();
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(await localActivities(intent.roundId), ['debitThenCredit']);
  assert.deepEqual(await journal(intent.roundId), [
    ['debit', 'success', 1],
    ['credit', 'success', 1],
  ]);
  assert.deepEqual(await walletRequests(intent.roundId), [
    ['debit', 'applied'],
    ['credit', 'applied'],
  ]);
  assert.equal(
    Number((await env.wallet.admin.balance(OPERATOR_ID, p.externalId, 'EUR')).balance_minor),
    100_250,
  );
  recordHistory({
    workflow: 'settleRound',
    path: 'one-step-spin',
    workflowId: intent.roundId,
    address: env.address,
  });
});

test('a refused debit ends the round in the first attempt: no credit written or sent', async () => {
  const p = await env.newPlayer({ family: 'prov_b', balanceMinor: 50 });
  const intent = await env.newRound(p, { stakeMinor: 100, winMinor: 300, journalAhead: true, oneStep: true });
  const outcome = await (await startSettlement(env.client, env.taskQueue, intent, FAST)).result();
  assert.deepEqual(outcome, { status: 'rejected', error: 'insufficient_funds' });
  assert.deepEqual(await journal(intent.roundId), [['debit', 'failed', 1]]);
  assert.deepEqual(await localActivities(intent.roundId), ['debitThenCredit']);
});

test('a debit answer lost in the first attempt: the ordinary debit step claims and resends, then credits', async () => {
  const p = await env.newPlayer({ family: 'prov_b' });
  const intent = await env.newRound(p, { stakeMinor: 100, winMinor: 0, journalAhead: true, oneStep: true });
  await env.wallet.admin.setFaults({ dropAfterCommitRate: 1 });
  try {
    await startSettlement(env.client, env.taskQueue, intent, FAST);
    await eventually(
      async () => (await walletRequests(intent.roundId)).some(([t]) => t === 'debit'),
      20_000,
      'the debit reached the wallet',
    );
  } finally {
    await env.wallet.admin.setFaults({});
  }
  const outcome = await env.client.workflow.getHandle(intent.roundId).result();
  assert.equal(outcome.status, 'completed');
  const rows = await journal(intent.roundId);
  assert.equal(rows[0]![0], 'debit');
  assert.ok((rows[0]![2] as number) >= 2, 'the ordinary step claimed the debit row again');
  const debits = (await walletRequests(intent.roundId)).filter(([t]) => t === 'debit');
  assert.equal(debits.filter(([, o]) => o === 'applied').length, 1, 'applied once');
  assert.equal(
    Number((await env.wallet.admin.balance(OPERATOR_ID, p.externalId, 'EUR')).balance_minor),
    99_900,
  );
  const las = await localActivities(intent.roundId);
  assert.equal(las[0], 'debitThenCredit');
  assert.ok(las.slice(1).every((t) => t === 'walletStep'));
  recordHistory({
    workflow: 'settleRound',
    path: 'retried-debit',
    workflowId: intent.roundId,
    address: env.address,
  });
});

test('a staff cancel while the first attempt could not debit: cancelled, the credit never sent', async () => {
  const p = await env.newPlayer({ family: 'prov_b' });
  const intent = await env.newRound(p, { stakeMinor: 120, winMinor: 300, journalAhead: true, oneStep: true });
  await env.wallet.admin.setFaults({ error5xxRate: 1 });
  try {
    const handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
    await eventually(
      async () => {
        const { rows } = await env.pool.query<{ attempts: number }>(
          `SELECT attempts FROM wallet_transactions WHERE transaction_id = $1`,
          [intent.transactions.debit],
        );
        return (rows[0]?.attempts ?? 0) >= 2;
      },
      20_000,
      'the ordinary debit step retried',
    );
    await handle.signal(staffCancelSignal, { reason: 'wallet down' });
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
  assert.ok(
    !(await walletRequests(intent.roundId)).some(([t]) => t === 'credit'),
    'the credit was never sent',
  );
  assert.equal(
    Number((await env.wallet.admin.balance(OPERATOR_ID, p.externalId, 'EUR')).balance_minor),
    100_000,
  );
});

/**
 * settleRound on its own task queue with scripted activities: the first attempt answers `first`,
 * walletStep records each call and answers success. Returns the calls and the outcome.
 */
async function scripted(
  first: { debit: FirstAttemptStep; credit?: FirstAttemptStep },
  opts: { cancelFirst?: boolean; providerId?: RoundIntent['providerId']; applied?: string[] } = {},
) {
  const taskQueue = `one-step-${randomUUID()}`;
  const calls: WalletStepInput[] = [];
  const applied = new Set<string>(opts.applied);
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const connection = await NativeConnection.connect({ address: env.address });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
    activities: {
      async debitThenCredit() {
        // Held until the test has signalled (when it does): the signal lands during the attempt.
        if (opts.cancelFirst) await gate;
        return first;
      },
      async walletStep(input: WalletStepInput): Promise<WalletStepResult> {
        calls.push(input);
        // As the real step: no cancel once the credit is applied (refuseCancelAfterCredit).
        if (input.operation === 'cancel' && applied.has('credit'))
          throw ApplicationFailure.nonRetryable('credit already applied', CREDIT_ALREADY_APPLIED);
        applied.add(input.operation);
        return { status: 'success', balance: '1.00' };
      },
    },
  });
  const running = worker.run();
  try {
    const roundId = `r_${randomUUID()}`;
    const intent: RoundIntent = {
      roundId,
      operatorId: OPERATOR_ID,
      sessionId: 's',
      playerId: 'p',
      gameSymbol: 't_slot_b',
      providerId: opts.providerId ?? 'prov_b',
      currency: 'EUR',
      actionType: 'spin',
      stakeMinor: '100',
      winMinor: '300',
      transactions: transactionIdsFor(roundId),
      journalAhead: true,
      oneStep: true,
    };
    const handle = await startSettlement(env.client, taskQueue, intent, FAST);
    if (opts.cancelFirst) {
      await handle.signal(staffCancelSignal, { reason: 'staff' });
      release();
    }
    const outcome = await handle.result();
    // A workflow task the server refused (the signal came during it) runs again, and its local
    // activities with it: a step may repeat (the real steps are idempotent). Repeats are collapsed.
    const steps = calls
      .map((c) => `${c.operation}${c.claim === true ? '' : ' (no claim)'}`)
      .filter((step, i, all) => all.indexOf(step) === i);
    return { steps, applied, outcome };
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}

test('a credit sent in the first attempt without an answer is sent again, never replaced by a cancel', async () => {
  const { steps, applied, outcome } = await scripted(
    { debit: { status: 'success', balance: '9.00' }, credit: { status: 'unsettled', reason: 'timeout' } },
    { cancelFirst: true },
  );
  assert.deepEqual(steps, ['credit']);
  assert.deepEqual([...applied], ['credit']);
  assert.equal(outcome.status, 'completed');
});

test('a first attempt that sent both but recorded neither (credit ahead): both claimed again, never a cancel', async () => {
  // The statement recording both outcomes failed (the database unreachable): the credit was sent,
  // so a staff cancel that came meanwhile does not replace it.
  const { steps, applied, outcome } = await scripted(
    {
      debit: { status: 'unsettled', reason: 'journal unreachable' },
      credit: { status: 'unsettled', reason: 'journal unreachable' },
    },
    { cancelFirst: true },
  );
  assert.deepEqual(steps, ['debit', 'credit']);
  assert.ok(!applied.has('cancel'));
  assert.equal(outcome.status, 'completed');
});

test('a debit the first attempt did not settle goes on through the ordinary steps, each claiming its row', async () => {
  const plain = await scripted({ debit: { status: 'unsettled', reason: 'HTTP 500' } });
  assert.deepEqual(plain.steps, ['debit', 'credit']);
  assert.equal(plain.outcome.status, 'completed');
  // A staff cancel sent during that first attempt: the round is cancelled once the debit is known,
  // or, when the task that sent the credit was refused for the signal and ran again, completes
  // (the cancel step refuses after an applied credit). Never both a credit and a cancel.
  const raced = await scripted({ debit: { status: 'unsettled', reason: 'HTTP 500' } }, { cancelFirst: true });
  assert.ok(!(raced.applied.has('credit') && raced.applied.has('cancel')), `both applied: ${raced.steps}`);
  assert.equal(raced.steps[0], 'debit');
  assert.equal(raced.outcome.status, raced.applied.has('cancel') ? 'cancelled' : 'completed');
});

test('a cancel the workflow decides after its credit was applied in a refused task: the round completes', async () => {
  // As when a workflow task sent and recorded the credit, then the server refused its completion
  // for a staff cancel that came meanwhile: the task runs again and now sees the cancel.
  const { steps, applied, outcome } = await scripted(
    { debit: { status: 'success', balance: '9.00' } },
    { cancelFirst: true, applied: ['credit'] },
  );
  assert.equal(outcome.status, 'completed', `steps: ${steps}`);
  assert.ok(!applied.has('cancel'));
  assert.ok(steps.includes('credit'));
});

test('the cancel step refuses once the journal holds the round credit as applied', async () => {
  const p = await env.newPlayer({ family: 'prov_b' });
  const intent = await env.newRound(p, { stakeMinor: 100, winMinor: 200, journalAhead: true, oneStep: true });
  assert.equal(
    (await (await startSettlement(env.client, env.taskQueue, intent, FAST)).result()).status,
    'completed',
  );
  const activities = createSettlementActivities({
    pool: env.pool,
    box: createSecretBox(SERVICE_SECRET),
    walletTimeoutMs: 5_000,
    stuckAfterAttempts: 3,
    requireHttps: false,
  });
  await assert.rejects(
    activities.walletStep({
      intent,
      operation: 'cancel',
      amountMinor: '100',
      roundStatusOnSuccess: 'cancelled',
    }),
    (err: ApplicationFailure) => err.type === CREDIT_ALREADY_APPLIED && err.nonRetryable,
  );
  assert.ok(!(await walletRequests(intent.roundId)).some(([t]) => t === 'cancel'), 'no cancel sent');
});
