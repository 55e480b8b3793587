import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import type { RoundOutcome } from '@opi/wallet/intent';
import { NativeConnection, Worker } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATH } from '../bundle.js';
import { SERVICE_SECRET, type SettlementEnv, startSettlementEnv } from '../test-support/settlement-env.js';
import { createSettlementActivities } from './activities.js';
import { startSettlement } from './start.js';

// Found by the reliability suite (PostgreSQL stopped under load): a prov_a debit whose every
// attempt failed before reaching the journal (the database unreachable) used up its budget, and
// the compensating rollback then failed on the journal's foreign key to the debit row forever:
// the round stayed open, was never flagged stuck, and blocked the player's session.

let env: SettlementEnv;
let stopWorker: () => Promise<void>;
let debitFailures = 0;

before(async () => {
  env = await startSettlementEnv();
  const connection = await NativeConnection.connect({ address: env.address });
  const real = createSettlementActivities({
    pool: env.pool,
    box: createSecretBox(SERVICE_SECRET),
    walletTimeoutMs: 2000,
    stuckAfterAttempts: 3,
    requireHttps: false,
  });
  const worker = await Worker.create({
    connection,
    taskQueue: env.taskQueue,
    workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
    activities: {
      ...real,
      // The database is down for every debit attempt: nothing is journalled, nothing is sent.
      async walletStep(input: Parameters<typeof real.walletStep>[0]) {
        if (input.operation === 'debit') {
          debitFailures++;
          throw new Error('connect ECONNREFUSED 127.0.0.1:5432 (the journal is unreachable)');
        }
        return real.walletStep(input);
      },
    },
  });
  const running = worker.run();
  stopWorker = async () => {
    worker.shutdown();
    await running;
    await connection.close();
  };
});
after(async () => {
  await stopWorker();
  await env.close();
});

test('prov_a: a debit that never reached the journal is compensated, and the round ends rolled back', {
  timeout: 60_000,
}, async () => {
  const p = await env.newPlayer({ family: 'prov_a', balanceMinor: 10_000 });
  const intent = await env.newRound(p, { stakeMinor: 300, winMinor: 0 });
  const handle = await startSettlement(env.client, env.taskQueue, intent, {
    initialRetryMs: 50,
    maxRetryMs: 200,
    debitAttemptsBeforeRollback: 3,
  });
  const outcome = (await handle.result()) as RoundOutcome;
  assert.equal(outcome.status, 'rolled_back');
  assert.equal(debitFailures, 3);

  const { rows } = await env.pool.query(
    `SELECT transaction_type, status, attempts, error_code, original_transaction_id FROM wallet_transactions
     WHERE round_id = $1 ORDER BY transaction_type`,
    [intent.roundId],
  );
  assert.deepEqual(rows, [
    {
      transaction_type: 'debit',
      status: 'failed',
      attempts: 0,
      error_code: 'reversed_by_rollback',
      original_transaction_id: null,
    },
    {
      transaction_type: 'rollback',
      status: 'success',
      attempts: 1,
      error_code: null,
      original_transaction_id: intent.transactions.debit,
    },
  ]);
  const round = await env.pool.query(`SELECT status, stuck FROM rounds WHERE round_id = $1`, [
    intent.roundId,
  ]);
  assert.deepEqual(round.rows[0], { status: 'rolled_back', stuck: false });
  // The wallet saw only the rollback (a tombstone for the debit), and the money never moved.
  const seen = await env.pool.query(
    `SELECT transaction_type FROM wallet.requests WHERE round_id = $1 ORDER BY request_seq`,
    [intent.roundId],
  );
  assert.deepEqual(
    seen.rows.map((r) => r.transaction_type),
    ['rollback'],
  );
  assert.equal((await env.wallet.admin.balance('op_settle', p.externalId, 'EUR')).balance_minor, '10000');
});
