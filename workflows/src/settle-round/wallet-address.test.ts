import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import type { RoundOutcome } from '@opi/wallet/intent';
import { NativeConnection, Worker } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATH } from '../bundle.js';
import {
  eventually,
  OPERATOR_ID,
  SERVICE_SECRET,
  type SettlementEnv,
  startSettlementEnv,
} from '../test-support/settlement-env.js';
import { createSettlementActivities, WALLET_CONFIG_FAULT } from './activities.js';
import { startSettlement } from './start.js';

// Issue 23 point 5: the settlement connects only to a wallet address the network policy allows,
// checked on the address the wallet's name resolves to at connect time. A refused address is a
// configuration fault (nothing was sent): the intent is kept and retried, never compensated.

let env: SettlementEnv;
let requests = 0;
let stopWorker: () => Promise<void>;
/** The worker's policy: its activities follow this switch (one worker, two policies). */
let allowPrivate = false;

function activities(allowPrivateNetworks: boolean) {
  return createSettlementActivities({
    pool: env.pool,
    box: createSecretBox(SERVICE_SECRET),
    walletTimeoutMs: 2000,
    stuckAfterAttempts: 3,
    requireHttps: false,
    allowPrivateNetworks,
  });
}

before(async () => {
  env = await startSettlementEnv();
  env.wallet.server.on('request', () => {
    requests++;
  });
  const strict = activities(false);
  const permissive = activities(true);
  const current = () => (allowPrivate ? permissive : strict);
  const connection = await NativeConnection.connect({ address: env.address });
  const worker = await Worker.create({
    connection,
    taskQueue: env.taskQueue,
    workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
    activities: {
      ...strict,
      walletStep: (input: Parameters<typeof strict.walletStep>[0]) => current().walletStep(input),
      debitThenCredit: (input: Parameters<typeof strict.debitThenCredit>[0]) =>
        current().debitThenCredit(input),
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
  allowPrivate = true;
  await stopWorker();
  await env.close();
});

async function setWalletUrl(url: string) {
  await env.pool.query('UPDATE operators SET wallet_base_url = $2 WHERE operator_id = $1', [
    OPERATOR_ID,
    url,
  ]);
}

test('a wallet name that resolves to loopback, private networks refused: no callback is sent, the debit is kept and settles once allowed', {
  timeout: 90_000,
}, async () => {
  // `localhost` is a name (the URL check at connect time resolves it): 127.0.0.1, the sandbox wallet.
  const port = new URL(env.wallet.base).port;
  await setWalletUrl(`http://localhost:${port}/wallet`);
  const p = await env.newPlayer({ family: 'prov_a', balanceMinor: 10_000 });
  const intent = await env.newRound(p, { stakeMinor: 300, winMinor: 500 });
  const before = requests;
  allowPrivate = false;
  const handle = await startSettlement(env.client, env.taskQueue, intent, {
    initialRetryMs: 50,
    maxRetryMs: 200,
    debitAttemptsBeforeRollback: 2,
  });
  // Past the debit budget: a configuration fault is never an uncertain debit (no rollback).
  await eventually(
    async () => {
      const { rows } = await env.pool.query<{ attempts: number }>(
        `SELECT attempts FROM wallet_transactions WHERE transaction_id = $1`,
        [intent.transactions.debit],
      );
      return (rows[0]?.attempts ?? 0) >= 4;
    },
    30_000,
    'four refused debit attempts',
  );
  assert.equal(requests, before, 'the wallet received no request');
  const { rows } = await env.pool.query(
    `SELECT transaction_type, status, last_error, http_status FROM wallet_transactions WHERE round_id = $1`,
    [intent.roundId],
  );
  assert.equal(rows.length, 1, 'no rollback was journalled');
  assert.equal(rows[0].transaction_type, 'debit');
  assert.equal(rows[0].status, 'pending');
  assert.equal(rows[0].http_status, null);
  assert.match(
    rows[0].last_error,
    /^wallet_address_refused: wallet address localhost \(127\.0\.0\.1\) refused/,
  );
  const round = await env.pool.query(`SELECT status, stuck FROM rounds WHERE round_id = $1`, [
    intent.roundId,
  ]);
  assert.equal(round.rows[0].stuck, true);
  assert.equal(requests, before, 'still no request');

  // The same intent, retried once the worker may reach private networks, settles.
  allowPrivate = true;
  const outcome = (await handle.result()) as RoundOutcome;
  assert.equal(outcome.status, 'completed');
  assert.ok(requests > before);
});

test('a link-local or metadata wallet address is refused under any policy, before any connection', async () => {
  const permissive = activities(true);
  for (const url of [
    'http://169.254.169.254/wallet',
    'http://[fe80::1]/wallet',
    'http://100.100.100.200/wallet',
    'http://[fd00:ec2::254]/wallet',
    'http://[::ffff:169.254.169.254]/wallet',
    'http://[64:ff9b::a9fe:a9fe]/wallet',
  ]) {
    await setWalletUrl(url);
    const p = await env.newPlayer({ family: 'prov_a', balanceMinor: 10_000 });
    const intent = await env.newRound(p, { stakeMinor: 100, winMinor: 0 });
    const started = performance.now();
    await assert.rejects(
      permissive.walletStep({ intent, operation: 'debit', amountMinor: '100' }),
      (err: Error & { type?: string }) => {
        assert.equal(err.type, WALLET_CONFIG_FAULT, url);
        assert.match(
          err.message,
          /wallet not called: wallet address .* refused: a link-local or cloud metadata address/,
        );
        return true;
      },
    );
    // Refused at once (no connection attempt that would wait for a timeout).
    assert.ok(performance.now() - started < 1000, url);
  }
});
