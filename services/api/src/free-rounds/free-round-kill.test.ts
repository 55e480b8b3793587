import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CATALOG, SLOT_SYMBOLS } from '@opi/games';
import { call, type Harness, SERVICE_SECRET } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { Client, Connection } from '@temporalio/client';

/*
 * A free round's credit survives a worker SIGKILL (issue 18). The standalone worker process
 * (services/worker/src/main.ts) runs the round's settlement; the sandbox wallet holds the credit
 * 2 s before handling it, and the worker is SIGKILLed while the wallet holds it (our journal row
 * still pending). A new worker process finishes the round. Checked on the wallet's own records
 * (wallet.requests, wallet.transactions, the balance) as well as ours: exactly one credit of the
 * win applied, never a debit, the journal row a success, the grant's won_minor equal to the
 * credits, the round completed, and the workflow finished by the new worker.
 */
const OP = 'op_fr_kill';
const OPENING = 10_000n;
const slot = CATALOG.find(
  (e) => e.provider_id === 'prov_a' && e.release.status === 'accepted' && SLOT_SYMBOLS.includes(e.symbol),
)!;
const WORKER_MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../worker/src/main.ts');
let w: PlayWorld | undefined;
let address: string;
let taskQueue: string;
let h: Harness;
let admin: WalletAdminClient;
let key: string;
const workers: ChildProcess[] = [];

before(async () => {
  // The API records rounds and starts their workflows; it hosts no worker: the worker processes do.
  w = await startPlayWorld({
    queue: 'fr-kill',
    worker: false,
    operators: [{ id: OP, titles: [slot.symbol] }],
  });
  ({ h, admin, key, address, taskQueue } = w);
});

after(async () => {
  await admin?.setFaults({}).catch(() => {});
  for (const x of workers) if (x.exitCode === null && x.signalCode === null) x.kill('SIGKILL');
  await w?.close();
});

/** A worker process as deployed (npm start runs the same entry), on this test's task queue. */
async function startWorkerProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', WORKER_MAIN], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: h.db.url,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      SERVICE_SECRET,
      WORKER_METRICS_PORT: '0',
      WALLET_TIMEOUT_MS: '5000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  workers.push(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  await until(
    `worker ${child.pid} started`,
    async () => {
      if (child.exitCode !== null) throw new Error(`the worker exited: ${output.slice(-2000)}`);
      return output.includes('worker started');
    },
    90_000,
    100,
  );
  return child;
}

const freeSpin = (token: string) =>
  call(h.game, 'POST', '/api/runtime/spin', {
    headers: { 'x-session-token': token },
    body: { bet_minor: 100, free_round: true },
  });

/**
 * One free round with a win, its worker SIGKILLed mid-credit, finished by a new worker process.
 * `held`: the wallet holds the credit (2 s latency) when the kill lands, so the killed worker's
 * request dies with it. `committed`: the wallet applied the credit and every answer is dropped
 * after its commit, so the wallet holds the money and our journal row is still pending when the
 * kill lands; the new worker's resend must be answered from the wallet's idempotency record.
 */
async function killMidCredit(mode: 'held' | 'committed', player: string, campaign: string) {
  await admin.createPlayer({ operatorId: OP, playerId: player, currency: 'EUR', balanceMinor: OPENING });
  const created = await call(h.base, 'POST', '/api/provider/v1/free-rounds', {
    key,
    sign: true,
    body: {
      campaign_id: campaign,
      symbols: [slot.symbol],
      currency: 'EUR',
      bet_minor: 100,
      rounds: 30,
      valid_from: new Date(Date.now() - 3600_000).toISOString(),
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      players: [player],
    },
  });
  assert.equal(created.status, 201, created.text);
  const launched = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol: slot.symbol, external_player_id: player, currency: 'EUR' },
  });
  assert.equal(launched.status, 200, launched.text);
  assert.equal(launched.json.free_rounds.campaign_id, campaign);
  const token = new URL(launched.json.launch_url).searchParams.get('mgckey')!;

  const first = await startWorkerProcess();
  // Free rounds are played until one wins something (the engine's outcome is random; a zero win is
  // credited too, but a win makes the money checks bite); that round's worker is killed mid-credit.
  const fault =
    mode === 'held'
      ? { latencyMs: [2_000, 2_000] as [number, number], latencyRate: 1 }
      : { dropAfterCommitRate: 1 };
  await admin.setFaults(fault);
  let victim: { round_id: string; win: string } | undefined;
  let answer: Promise<unknown> = Promise.resolve();
  for (let attempt = 0; attempt < 25 && !victim; attempt++) {
    const held = (await admin.getFaults()).counters.latency;
    const spinning = freeSpin(token);
    answer = spinning.catch((err: unknown) => err);
    const round = await until(
      'the free round recorded',
      async () => {
        const { rows } = await h.db.pool.query<{ round_id: string; win: string }>(
          `SELECT round_id, intent->>'winMinor' AS win FROM rounds
            WHERE operator_id = $1 AND free_round_campaign_id = $2 AND status = 'open'`,
          [OP, campaign],
        );
        return rows[0];
      },
      20_000,
      20,
    );
    if (round.win === '0') {
      // Let it settle (a dropped answer is retried until the wallet answers) and play the next.
      if (mode === 'committed') await admin.setFaults({});
      const res = (await spinning) as Awaited<ReturnType<typeof freeSpin>>;
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.status, 'completed', res.text);
      if (mode === 'committed') await admin.setFaults(fault);
      continue;
    }
    // The credit's journal row is written with the round (journal ahead). Wait for the wallet to
    // hold the credit's request (held) or to have committed it (committed), then kill the worker.
    if (mode === 'held')
      await until(
        'the wallet holds the credit',
        async () => (await admin.getFaults()).counters.latency > held,
      );
    else
      await until('the wallet committed the credit', async () => {
        const { rows } = await h.db.pool.query(
          `SELECT 1 FROM wallet.transactions WHERE round_id = $1 AND status = 'success'`,
          [round.round_id],
        );
        return rows.length > 0;
      });
    victim = round;
  }
  assert.ok(victim, 'a free round with a win within 25 rounds');
  first.kill('SIGKILL');
  await new Promise((r) =>
    first.exitCode !== null || first.signalCode !== null ? r(null) : first.once('exit', r),
  );
  const killedAt = Date.now();
  const { rows: inFlight } = await h.db.pool.query<{ transaction_type: string; status: string }>(
    `SELECT transaction_type, status FROM wallet_transactions WHERE round_id = $1`,
    [victim.round_id],
  );
  assert.deepEqual(
    inFlight.map((r) => `${r.transaction_type}:${r.status}`),
    ['credit:pending'],
    'the kill landed with the credit in flight (its journal row still pending)',
  );
  const { rows: openAtKill } = await h.db.pool.query<{ status: string }>(
    `SELECT status FROM rounds WHERE round_id = $1`,
    [victim.round_id],
  );
  assert.equal(openAtKill[0]!.status, 'open');

  // A new worker process finishes the round (the wallet is healthy again).
  await admin.setFaults({});
  const second = await startWorkerProcess();
  await until(
    'the free round completed by the new worker',
    async () => {
      const { rows } = await h.db.pool.query<{ status: string }>(
        `SELECT status FROM rounds WHERE round_id = $1`,
        [victim!.round_id],
      );
      return rows[0]?.status === 'completed';
    },
    120_000,
    200,
  );
  const recoveredSeconds = ((Date.now() - killedAt) / 1000).toFixed(1);
  await answer;

  // Temporal: the workflow completed, its last workflow task completed by the new worker.
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const handle = client.workflow.getHandle(victim.round_id);
    const outcome = (await handle.result()) as { status: string; winMinor: string };
    assert.equal(outcome.status, 'completed');
    assert.equal(outcome.winMinor, victim.win);
    const history = await handle.fetchHistory();
    const completedBy = (history.events ?? [])
      .filter((e) => e.workflowTaskCompletedEventAttributes)
      .map((e) => e.workflowTaskCompletedEventAttributes!.identity ?? '');
    assert.ok(
      completedBy.at(-1)!.startsWith(`${second.pid}@`),
      `workflow tasks completed by ${completedBy.join(', ')}; the new worker is ${second.pid}`,
    );
    // The killed worker held the round's first workflow task (running the credit, a local
    // activity) when it died: that task timed out and the new worker took the round over.
    const startedBy = (history.events ?? [])
      .filter((e) => e.workflowTaskStartedEventAttributes)
      .map((e) => e.workflowTaskStartedEventAttributes!.identity ?? '');
    assert.ok(
      startedBy.some((id) => id.startsWith(`${first.pid}@`)),
      `the killed worker ${first.pid} ran the round first: workflow tasks started by ${startedBy.join(', ')}`,
    );
    assert.ok(
      (history.events ?? []).some(
        (e) => e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes,
      ),
      "the killed worker's workflow task timed out",
    );
  } finally {
    await connection.close();
  }

  // The wallet's own records: every request it received for the round was the one credit (never a
  // debit, rollback or cancel), applied once, for the win.
  const { rows: requests } = await h.db.pool.query<{
    transaction_id: string;
    transaction_type: string;
    amount_minor: bigint;
    outcome: string;
  }>(
    `SELECT transaction_id, transaction_type, amount_minor, outcome FROM wallet.requests
      WHERE round_id = $1 ORDER BY request_seq`,
    [victim.round_id],
  );
  assert.ok(requests.length >= 1, 'the wallet received the credit');
  for (const r of requests) {
    assert.equal(
      r.transaction_type,
      'credit',
      `the wallet received a ${r.transaction_type} for a free round`,
    );
    assert.equal(r.transaction_id, `${victim.round_id}:credit`);
    assert.equal(r.amount_minor, BigInt(victim.win));
  }
  assert.equal(requests.filter((r) => r.outcome === 'applied').length, 1, 'the credit applied exactly once');
  if (mode === 'committed') {
    // Applied before the kill; the new worker's resend was answered from the idempotency record.
    assert.equal(requests[0]!.outcome, 'applied');
    assert.ok(
      requests.slice(1).length >= 1 && requests.slice(1).every((r) => r.outcome === 'replayed'),
      `resends after the commit are replays: ${requests.map((r) => r.outcome).join(', ')}`,
    );
  }
  const { rows: moved } = await h.db.pool.query<{
    transaction_type: string;
    amount_minor: bigint;
    status: string;
  }>(`SELECT transaction_type, amount_minor, status FROM wallet.transactions WHERE round_id = $1`, [
    victim.round_id,
  ]);
  assert.deepEqual(
    moved.map((m) => [m.transaction_type, m.amount_minor, m.status]),
    [['credit', BigInt(victim.win), 'success']],
  );

  // Ours: the journal row a success, the round completed with its win, the grant's totals.
  const { rows: journal } = await h.db.pool.query<{
    transaction_type: string;
    amount_minor: bigint;
    status: string;
  }>(`SELECT transaction_type, amount_minor, status FROM wallet_transactions WHERE round_id = $1`, [
    victim.round_id,
  ]);
  assert.deepEqual(
    journal.map((j) => [j.transaction_type, j.amount_minor, j.status]),
    [['credit', BigInt(victim.win), 'success']],
  );
  const { rows: roundRow } = await h.db.pool.query<{ status: string; bet_minor: bigint; win_minor: bigint }>(
    `SELECT status, bet_minor, win_minor FROM rounds WHERE round_id = $1`,
    [victim.round_id],
  );
  assert.deepEqual(roundRow[0], { status: 'completed', bet_minor: 0n, win_minor: BigInt(victim.win) });

  // Every round of the campaign (the zero-win ones before the kill too): no debit anywhere, the
  // grant counts the rounds recorded, and its won_minor equals our journal's credits and the
  // wallet's credits; the balance is the opening plus those credits.
  const { rows: campaignRounds } = await h.db.pool.query<{ round_id: string; status: string }>(
    `SELECT round_id, status FROM rounds WHERE operator_id = $1 AND free_round_campaign_id = $2`,
    [OP, campaign],
  );
  const ids = campaignRounds.map((r) => r.round_id);
  assert.ok(
    campaignRounds.every((r) => r.status === 'completed'),
    JSON.stringify(campaignRounds),
  );
  const { rows: debits } = await h.db.pool.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM wallet.requests WHERE round_id = ANY ($1) AND transaction_type <> 'credit')
          + (SELECT count(*) FROM wallet.transactions WHERE round_id = ANY ($1) AND transaction_type <> 'credit')
          + (SELECT count(*) FROM wallet_transactions WHERE round_id = ANY ($1) AND transaction_type <> 'credit')
          AS n`,
    [ids],
  );
  assert.equal(
    Number(debits[0]!.n),
    0,
    'no debit, rollback or cancel for any free round, at the wallet or in the journal',
  );
  const { rows: sums } = await h.db.pool.query<{ journal: string; wallet: string }>(
    `SELECT (SELECT coalesce(sum(amount_minor), 0) FROM wallet_transactions
              WHERE round_id = ANY ($1) AND transaction_type = 'credit' AND status = 'success')::text AS journal,
            (SELECT coalesce(sum(amount_minor), 0) FROM wallet.transactions
              WHERE round_id = ANY ($1) AND transaction_type = 'credit' AND status = 'success')::text AS wallet`,
    [ids],
  );
  const { rows: grant } = await h.db.pool.query<{
    rounds_used: number;
    rounds_total: number;
    won_minor: bigint;
  }>(
    `SELECT rounds_used, rounds_total, won_minor FROM free_round_grants
      WHERE operator_id = $1 AND campaign_id = $2 AND external_player_id = $3`,
    [OP, campaign, player],
  );
  assert.equal(grant[0]!.rounds_used, campaignRounds.length);
  assert.equal(grant[0]!.won_minor.toString(), sums[0]!.journal, "won_minor equals the journal's credits");
  assert.equal(grant[0]!.won_minor.toString(), sums[0]!.wallet, "won_minor equals the wallet's credits");
  assert.ok(grant[0]!.won_minor >= BigInt(victim.win));
  assert.equal(
    BigInt((await admin.balance(OP, player, 'EUR')).balance_minor),
    OPENING + grant[0]!.won_minor,
    "the wallet balance is the opening plus the free rounds' credits",
  );
  assert.ok((await admin.ledgerCheck()).ok, 'the wallet ledger is consistent');
  const read = await call(h.base, 'GET', `/api/provider/v1/free-rounds/${campaign}`, { key, sign: true });
  assert.equal(read.json.data.players[0].won_minor, grant[0]!.won_minor.toString());

  // The next test starts its own pair of workers on the queue.
  second.kill('SIGTERM');
  await new Promise((r) =>
    second.exitCode !== null || second.signalCode !== null ? r(null) : second.once('exit', r),
  );
  process.stdout.write(
    `free-round kill (${mode}): ${campaignRounds.length} free rounds; round ${victim.round_id} (win ${victim.win}) ` +
      `killed with its credit ${mode === 'held' ? 'held by' : 'committed at'} the wallet, completed by the new worker ${recoveredSeconds} s later; ` +
      `wallet requests for it: ${requests.map((r) => r.outcome).join(', ')}\n`,
  );
}

test(
  "a free round's credit held by the wallet when its worker is SIGKILLed: a new worker credits it once, never a debit",
  {
    timeout: 240_000,
  },
  () => killMidCredit('held', 'fr-kill-held', 'c-kill-held'),
);

test(
  "a free round's credit committed at the wallet, unrecorded, when its worker is SIGKILLed: the resend is a replay, won_minor counted once",
  {
    timeout: 240_000,
  },
  () => killMidCredit('committed', 'fr-kill-committed', 'c-kill-committed'),
);
