import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { recordHistory } from '../histories/corpus.js';
import {
  eventually,
  OPERATOR_ID,
  type SettlementEnv,
  startSettlementEnv,
} from '../test-support/settlement-env.js';
import { outcomeStatement } from './outcome-statement.js';
import { closeUnsentCredits, resumeUnstartedRounds } from './resume.js';
import { startSettlement } from './start.js';
import type { SettlementTuning } from './workflow.js';

// Credit ahead (issue 36 point 6): the slot spin writes its credit's journal row with the round,
// so the one-step first attempt records the debit's and the credit's success in one statement (one
// transaction instead of two). Real Temporal dev server, PostgreSQL and the sandbox wallet over
// HTTP; the wallet is reached through a pass-through proxy that can lose a credit's answer after
// the sandbox applied it (the sandbox's own faults cannot tell a credit from a debit).
const FAST: Partial<SettlementTuning> = {
  initialRetryMs: 50,
  maxRetryMs: 400,
  debitAttemptsBeforeRollback: 3,
};

let env: SettlementEnv;
let proxy: Server;
/** `drop`: the proxy forwards a credit, then closes the connection without its answer. */
let creditMode: 'pass' | 'drop' = 'pass';
let creditsDropped = 0;

before(async () => {
  env = await startSettlementEnv();
  const target = new URL(env.wallet.base);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const drop = creditMode === 'drop' && req.url?.endsWith('/credit');
      const out = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            if (drop) {
              creditsDropped++;
              req.socket.destroy();
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      out.on('error', () => req.socket.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  proxy.listen(0, '127.0.0.1');
  await new Promise((r) => proxy.once('listening', r));
  const proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  // Before the worker starts: its wallet address cache is empty.
  await env.pool.query(`UPDATE operators SET wallet_base_url = $2 WHERE operator_id = $1`, [
    OPERATOR_ID,
    `${proxyBase}/wallet`,
  ]);
  await env.startWorker();
});
after(async () => {
  await env.close();
  proxy.closeAllConnections();
  await new Promise<void>((r) => proxy.close(() => r()));
});

interface JournalRow {
  transaction_type: string;
  status: string;
  attempts: number;
  error_code: string | null;
  xmin: string;
}

async function journal(roundId: string): Promise<JournalRow[]> {
  const { rows } = await env.pool.query<JournalRow>(
    `SELECT transaction_type, status, attempts, error_code, xmin::text FROM wallet_transactions
     WHERE round_id = $1 ORDER BY created_at, transaction_id`,
    [roundId],
  );
  return rows;
}

async function walletRequests(roundId: string) {
  const { rows } = await env.pool.query<{ transaction_type: string; outcome: string }>(
    `SELECT transaction_type, outcome FROM wallet.requests WHERE round_id = $1 ORDER BY request_seq`,
    [roundId],
  );
  return rows.map((r) => [r.transaction_type, r.outcome]);
}

async function round(roundId: string) {
  const { rows } = await env.pool.query<{ status: string; xmin: string; stuck: boolean }>(
    `SELECT status, xmin::text, stuck FROM rounds WHERE round_id = $1`,
    [roundId],
  );
  return rows[0]!;
}

/** The round's reconciliation row (kept by the journal's and the round's triggers). */
async function reconciliation(roundId: string) {
  const { rows } = await env.pool.query<{ differs: boolean; pending_rows: number; journal_rows: number }>(
    `SELECT differs, pending_rows, journal_rows FROM round_reconciliation WHERE round_id = $1`,
    [roundId],
  );
  return rows[0]!;
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

const balance = async (externalId: string) =>
  Number((await env.wallet.admin.balance(OPERATOR_ID, externalId, 'EUR')).balance_minor);

const aheadRound = { journalAhead: true, oneStep: true, creditAhead: true } as const;

test('both rows are written with the round; both outcomes and the round are recorded in one transaction', async () => {
  const p = await env.newPlayer({ family: 'prov_b' });
  const intent = await env.newRound(p, { stakeMinor: 150, winMinor: 400, ...aheadRound });
  // Journal first: both rows pending before the workflow starts, the debit's listed first.
  assert.deepEqual(
    (await journal(intent.roundId)).map((r) => [r.transaction_type, r.status, r.attempts]),
    [
      ['debit', 'pending', 1],
      ['credit', 'pending', 1],
    ],
  );
  const outcome = await (await startSettlement(env.client, env.taskQueue, intent, FAST)).result();
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(await localActivities(intent.roundId), ['debitThenCredit']);
  const rows = await journal(intent.roundId);
  assert.deepEqual(
    rows.map((r) => [r.transaction_type, r.status, r.attempts]),
    [
      ['debit', 'success', 1],
      ['credit', 'success', 1],
    ],
  );
  // One transaction wrote the debit's outcome, the credit's and the round's status.
  const r = await round(intent.roundId);
  assert.equal(r.status, 'completed');
  assert.equal(rows[0]!.xmin, rows[1]!.xmin, 'the debit and the credit recorded by one transaction');
  assert.equal(r.xmin, rows[1]!.xmin, 'the round completed in that transaction');
  assert.deepEqual(await walletRequests(intent.roundId), [
    ['debit', 'applied'],
    ['credit', 'applied'],
  ]);
  assert.equal(await balance(p.externalId), 100_250);
  assert.deepEqual(await reconciliation(intent.roundId), {
    differs: false,
    pending_rows: 0,
    journal_rows: 2,
  });
});

test('a refused debit ends the round and closes the credit row as never sent', async () => {
  const p = await env.newPlayer({ family: 'prov_b', balanceMinor: 50 });
  const intent = await env.newRound(p, { stakeMinor: 100, winMinor: 300, ...aheadRound });
  const outcome = await (await startSettlement(env.client, env.taskQueue, intent, FAST)).result();
  assert.deepEqual(outcome, { status: 'rejected', error: 'insufficient_funds' });
  const rows = await journal(intent.roundId);
  assert.deepEqual(
    rows.map((r) => [r.transaction_type, r.status, r.error_code]),
    [
      ['debit', 'failed', 'insufficient_funds'],
      ['credit', 'failed', 'not_sent_debit_rejected'],
    ],
  );
  assert.equal(rows[0]!.xmin, rows[1]!.xmin, 'closed in the statement recording the refusal');
  assert.deepEqual(
    (await walletRequests(intent.roundId)).map(([t]) => t),
    ['debit'],
    'the credit was never sent',
  );
  assert.equal((await round(intent.roundId)).status, 'rejected');
  assert.equal(await balance(p.externalId), 50);
  assert.equal((await reconciliation(intent.roundId)).differs, false);
});

test("a credit's answer lost in the first attempt: the debit recorded alone, the credit sent again, applied once", async () => {
  const p = await env.newPlayer({ family: 'prov_b' });
  const intent = await env.newRound(p, { stakeMinor: 100, winMinor: 250, ...aheadRound });
  creditMode = 'drop';
  const dropped = creditsDropped;
  try {
    await startSettlement(env.client, env.taskQueue, intent, FAST);
    await eventually(async () => creditsDropped > dropped, 20_000, "the credit's answer lost");
  } finally {
    creditMode = 'pass';
  }
  const outcome = await env.client.workflow.getHandle(intent.roundId).result();
  assert.equal(outcome.status, 'completed');
  const rows = await journal(intent.roundId);
  assert.deepEqual(
    rows.map((r) => [r.transaction_type, r.status]),
    [
      ['debit', 'success'],
      ['credit', 'success'],
    ],
  );
  assert.equal(rows[0]!.attempts, 1, 'the debit was sent once');
  assert.ok(rows[1]!.attempts >= 2, 'the ordinary credit step claimed the row again');
  assert.notEqual(rows[0]!.xmin, rows[1]!.xmin, 'the debit was recorded before the credit settled');
  const requests = await walletRequests(intent.roundId);
  assert.equal(requests.filter(([t]) => t === 'debit').length, 1, 'never a second debit');
  assert.equal(requests.filter(([t, o]) => t === 'credit' && o === 'applied').length, 1, 'credited once');
  assert.equal(await balance(p.externalId), 100_150);
  const las = await localActivities(intent.roundId);
  assert.equal(las[0], 'debitThenCredit');
  assert.ok(las.slice(1).every((t) => t === 'walletStep'));
  assert.equal((await reconciliation(intent.roundId)).differs, false);
});

test('prov_a: a debit uncertain through its budget is rolled back, and the credit row closed as never sent', async () => {
  const p = await env.newPlayer({ family: 'prov_a' });
  const intent = await env.newRound(p, { stakeMinor: 300, winMinor: 500, ...aheadRound });
  await env.wallet.admin.setFaults({ dropAfterCommitRate: 1 });
  try {
    const handle = await startSettlement(env.client, env.taskQueue, intent, FAST);
    await eventually(
      async () => (await journal(intent.roundId)).some((r) => r.transaction_type === 'rollback'),
      20_000,
      'rollback',
    );
    await env.wallet.admin.setFaults({});
    assert.equal((await handle.result()).status, 'rolled_back');
  } finally {
    await env.wallet.admin.setFaults({});
  }
  assert.deepEqual(
    (await journal(intent.roundId)).map((r) => [r.transaction_type, r.status, r.error_code]),
    [
      ['debit', 'failed', 'reversed_by_rollback'],
      ['credit', 'failed', 'not_sent_round_rolled_back'],
      ['rollback', 'success', null],
    ],
  );
  assert.ok(!(await walletRequests(intent.roundId)).some(([t]) => t === 'credit'), 'no credit sent');
  assert.equal(await balance(p.externalId), 100_000, 'the committed debit was reversed');
  assert.equal((await reconciliation(intent.roundId)).differs, false);
});

test('prov_a: both applied but the statement recording them failed: the debit resent until recorded, never rolled back', async () => {
  // Our database refuses to record the debit's success (a one-shot fault: a sequence, which a
  // failed transaction does not roll back), first for the first attempt's statement and its debit
  // alone, then for more tries than prov_a's rollback budget allows. The wallet applied the debit
  // and the credit: the debit is resent durably (the wallet answers its stored result) until the
  // journal takes it, and the stake is never refunded (patched first-attempt-debit-applied).
  const p = await env.newPlayer({ family: 'prov_a' });
  const intent = await env.newRound(p, { stakeMinor: 200, winMinor: 700, ...aheadRound });
  const refusals = 2 + FAST.debitAttemptsBeforeRollback! + 1;
  const seq = `fail_${intent.transactions.debit.replace(/[^a-z0-9]/gi, '_')}`.slice(0, 60);
  await env.pool.query(`CREATE SEQUENCE ${seq}`);
  await env.pool.query(
    `CREATE FUNCTION ${seq}() RETURNS trigger LANGUAGE plpgsql AS $f$
     BEGIN
       IF NEW.transaction_id = '${intent.transactions.debit}' AND NEW.status = 'success'
          AND nextval('${seq}') <= ${refusals} THEN
         RAISE EXCEPTION 'test: the journal refuses the debit''s success';
       END IF;
       RETURN NEW;
     END $f$`,
  );
  await env.pool.query(
    `CREATE TRIGGER ${seq} BEFORE UPDATE ON wallet_transactions FOR EACH ROW EXECUTE FUNCTION ${seq}()`,
  );
  try {
    const outcome = await (await startSettlement(env.client, env.taskQueue, intent, FAST)).result();
    assert.equal(outcome.status, 'completed');
    const { rows } = await env.pool.query<{ n: string }>(`SELECT last_value AS n FROM ${seq}`);
    assert.ok(Number(rows[0]!.n) > refusals, 'the journal refused every try it was set to');
  } finally {
    await env.pool.query(`DROP TRIGGER ${seq} ON wallet_transactions`);
    await env.pool.query(`DROP FUNCTION ${seq}()`);
    await env.pool.query(`DROP SEQUENCE ${seq}`);
  }
  const rows = await journal(intent.roundId);
  assert.deepEqual(
    rows.map((r) => [r.transaction_type, r.status]),
    [
      ['debit', 'success'],
      ['credit', 'success'],
    ],
  );
  assert.ok(rows[0]!.attempts > FAST.debitAttemptsBeforeRollback!, 'the debit was claimed past the budget');
  const requests = await walletRequests(intent.roundId);
  assert.ok(!requests.some(([t]) => t === 'rollback'), 'no rollback sent');
  assert.equal(requests.filter(([t, o]) => t === 'debit' && o === 'applied').length, 1, 'debited once');
  assert.equal(requests.filter(([t, o]) => t === 'credit' && o === 'applied').length, 1, 'credited once');
  assert.equal(await balance(p.externalId), 100_500);
  assert.equal((await round(intent.roundId)).status, 'completed');
  assert.equal((await reconciliation(intent.roundId)).differs, false);
  recordHistory({
    workflow: 'settleRound',
    path: 'first-attempt-debit-applied',
    workflowId: intent.roundId,
    address: env.address,
  });
});

test('a credit-ahead round whose workflow never started (both rows as written) is resumed', async () => {
  const p = await env.newPlayer({ family: 'prov_b', balanceMinor: 10_000 });
  const orphan = await env.newRound(p, { stakeMinor: 300, winMinor: 100, ...aheadRound });
  const started = await resumeUnstartedRounds(env.pool, env.client, env.taskQueue, { olderThanSeconds: 0 });
  assert.deepEqual(started, [orphan.roundId]);
  await eventually(
    async () => (await round(orphan.roundId)).status === 'completed',
    20_000,
    'the resumed round to complete',
  );
  assert.equal(await balance(p.externalId), 9_800);
  assert.deepEqual(
    await resumeUnstartedRounds(env.pool, env.client, env.taskQueue, { olderThanSeconds: 0 }),
    [],
  );
});

test("a credit-ahead round an older worker rejected (its credit row left pending) has that row closed by the resumer's sweep", async () => {
  const p = await env.newPlayer({ family: 'prov_b' });
  const intent = await env.newRound(p, { stakeMinor: 100, winMinor: 300, ...aheadRound });
  // The refusal as a worker of the release before credit ahead records it: its statement knows no
  // creditAhead, so the credit row the spin wrote stays pending.
  const { creditAhead: _, ...older } = intent;
  const { text, params } = outcomeStatement(
    { intent: older, operation: 'debit', amountMinor: intent.stakeMinor, roundStatusOnRejection: 'rejected' },
    intent.transactions.debit,
    { status: 'failed', error: 'insufficient_funds', httpStatus: 400 },
  );
  await env.pool.query(text, params);
  assert.deepEqual(
    (await journal(intent.roundId)).map((r) => [r.transaction_type, r.status]),
    [
      ['debit', 'failed'],
      ['credit', 'pending'],
    ],
  );
  assert.equal((await reconciliation(intent.roundId)).pending_rows, 1);
  // Younger than the threshold: left alone.
  assert.deepEqual(await closeUnsentCredits(env.pool, { olderThanSeconds: 60 }), []);
  assert.deepEqual(await closeUnsentCredits(env.pool, { olderThanSeconds: 0 }), [intent.transactions.credit]);
  assert.deepEqual(
    (await journal(intent.roundId)).map((r) => [r.transaction_type, r.status, r.error_code]),
    [
      ['debit', 'failed', 'insufficient_funds'],
      ['credit', 'failed', 'not_sent_debit_rejected'],
    ],
  );
  assert.equal((await reconciliation(intent.roundId)).differs, false);
  assert.deepEqual(await closeUnsentCredits(env.pool, { olderThanSeconds: 0 }), [], 'nothing left to close');
});
