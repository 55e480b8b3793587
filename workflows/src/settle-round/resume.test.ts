import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually, type SettlementEnv, startSettlementEnv } from '../test-support/settlement-env.js';
import { resumeUnstartedRounds } from './resume.js';
import { settle } from './start.js';

// A round recorded by the runtime whose workflow never started (the API process died between its
// commit and the start, or Temporal did not answer): found by the reliability suite.

let env: SettlementEnv;
before(async () => {
  env = await startSettlementEnv();
  await env.startWorker();
});
after(() => env.close());

test('an open slot round without a settlement is started late, once, and settles as its intent says', async () => {
  const p = await env.newPlayer({ family: 'prov_b', balanceMinor: 10_000 });
  const orphan = await env.newRound(p, { stakeMinor: 200, winMinor: 500 });
  const q = await env.newPlayer({ family: 'prov_a', balanceMinor: 10_000 });
  const settled = await env.newRound(q, { stakeMinor: 100, winMinor: 0 });
  assert.equal((await settle(env.client, env.taskQueue, settled)).status, 'completed');
  // Rounds younger than the threshold are left alone (their runtime may be starting them).
  assert.deepEqual(
    await resumeUnstartedRounds(env.pool, env.client, env.taskQueue, { olderThanSeconds: 60 }),
    [],
  );

  const started = await resumeUnstartedRounds(env.pool, env.client, env.taskQueue, { olderThanSeconds: 0 });
  assert.deepEqual(started, [orphan.roundId]);
  await eventually(
    async () =>
      (await env.pool.query(`SELECT status FROM rounds WHERE round_id = $1`, [orphan.roundId])).rows[0]
        ?.status === 'completed',
    20_000,
    'the resumed round to complete',
  );
  assert.equal((await env.wallet.admin.balance('op_settle', p.externalId, 'EUR')).balance_minor, '10300');
  // Nothing left to resume; a second pass starts nothing and moves no money.
  assert.deepEqual(
    await resumeUnstartedRounds(env.pool, env.client, env.taskQueue, { olderThanSeconds: 0 }),
    [],
  );
  const { rows } = await env.pool.query(
    `SELECT transaction_type, status FROM wallet_transactions WHERE round_id = $1 ORDER BY transaction_type`,
    [orphan.roundId],
  );
  assert.deepEqual(rows, [
    { transaction_type: 'credit', status: 'success' },
    { transaction_type: 'debit', status: 'success' },
  ]);
});

test('a journal-ahead round whose workflow never started (its debit row written with it) is resumed too', async () => {
  const p = await env.newPlayer({ family: 'prov_a', balanceMinor: 10_000 });
  const orphan = await env.newRound(p, { stakeMinor: 300, winMinor: 100, journalAhead: true });
  const started = await resumeUnstartedRounds(env.pool, env.client, env.taskQueue, { olderThanSeconds: 0 });
  assert.deepEqual(started, [orphan.roundId]);
  await eventually(
    async () =>
      (await env.pool.query(`SELECT status FROM rounds WHERE round_id = $1`, [orphan.roundId])).rows[0]
        ?.status === 'completed',
    20_000,
    'the resumed round to complete',
  );
  assert.equal((await env.wallet.admin.balance('op_settle', p.externalId, 'EUR')).balance_minor, '9800');
  assert.deepEqual(
    await resumeUnstartedRounds(env.pool, env.client, env.taskQueue, { olderThanSeconds: 0 }),
    [],
  );
});
