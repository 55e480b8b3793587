import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { recordHistory } from '../histories/corpus.js';
import {
  OPERATOR_ID,
  type PlayerSession,
  type SettlementEnv,
  startSettlementEnv,
} from '../test-support/settlement-env.js';
import { signalTournamentCancel, startTournamentWorkflow, tournamentWorkflowId } from './start.js';
import type { PromoTuning } from './workflow.js';

// Each path runTournament can take, run end to end on the real Temporal dev server, PostgreSQL and
// the sandbox wallet: start, freeze and payouts; a cancel before the end; a cancel signal that
// arrives after the end (the database refuses it: the tournament pays); and a tournament whose
// worker is stopped while it waits for its end and another worker finishes it. Each run's
// history goes into the replay corpus (RECORD_HISTORIES=1).
const FAST: Partial<PromoTuning> = { initialRetryMs: 50, maxRetryMs: 400 };
let env: SettlementEnv;

before(async () => {
  env = await startSettlementEnv();
});
after(() => env?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A running tournament on t_slot_a ending in `endsInMs`, op_settle opted in, two prizes. */
async function tournament(endsInMs: number): Promise<string> {
  const id = `tp-${randomUUID().slice(0, 8)}`;
  await env.pool.query(
    `INSERT INTO tournaments (tournament_id, name, scoring, starts_at, ends_at, status)
     VALUES ($1, 'Paths', 'total_win', now() - interval '1 hour', now() + $2 * interval '1 millisecond', 'running')`,
    [id, endsInMs],
  );
  await env.pool.query(`INSERT INTO tournament_titles VALUES ($1, 't_slot_a')`, [id]);
  await env.pool.query(
    `INSERT INTO tournament_operators (tournament_id, operator_id, opted_in) VALUES ($1, $2, true)`,
    [id, OPERATOR_ID],
  );
  await env.pool.query(`INSERT INTO tournament_currencies VALUES ($1, 'EUR', 1)`, [id]);
  await env.pool.query(`INSERT INTO tournament_prizes VALUES ($1, 'EUR', 1, 700), ($1, 'EUR', 2, 300)`, [id]);
  return id;
}

/** A settled round of the player, counted by the tournament (win `win`). */
async function play(p: PlayerSession, win: number): Promise<void> {
  const intent = await env.newRound(p, { stakeMinor: 100, winMinor: win });
  await env.pool.query(
    `UPDATE rounds SET status = 'completed', settled_at = now(), win_minor = $2 WHERE round_id = $1`,
    [intent.roundId, win],
  );
}

async function paidTo(id: string): Promise<string[]> {
  const { rows } = await env.pool.query<{ external_player_id: string }>(
    `SELECT external_player_id FROM promo_payouts WHERE promo_id = $1 AND status = 'paid' ORDER BY rank`,
    [id],
  );
  return rows.map((r) => r.external_player_id);
}

function record(path: string, id: string) {
  recordHistory({
    workflow: 'runTournament',
    path,
    workflowId: tournamentWorkflowId(id),
    address: env.address,
  });
}

test('start, freeze and payouts: each prize paid once', async () => {
  const stop = await env.startWorker();
  try {
    const id = await tournament(1_500);
    const [a, b] = [await env.newPlayer({ family: 'prov_a' }), await env.newPlayer({ family: 'prov_a' })];
    await play(a, 500);
    await play(b, 200);
    const { handle } = await startTournamentWorkflow(env.client, env.taskQueue, id, FAST);
    assert.deepEqual(await handle.result(), { status: 'paid', payouts: 2 });
    assert.deepEqual(await paidTo(id), [a.externalId, b.externalId]);
    record('start-freeze-payouts', id);
  } finally {
    await stop();
  }
});

test('cancelled before its end: nothing frozen, nothing paid', async () => {
  const stop = await env.startWorker();
  try {
    const id = await tournament(60_000);
    await play(await env.newPlayer({ family: 'prov_a' }), 400);
    const { handle } = await startTournamentWorkflow(env.client, env.taskQueue, id, FAST);
    await sleep(300);
    // As the admin API's cancel does: the database decides, the signal wakes the workflow.
    await env.pool.query(
      `UPDATE tournaments SET status = 'cancelled', cancelled_at = now(), updated_at = now() WHERE tournament_id = $1`,
      [id],
    );
    assert.equal(await signalTournamentCancel(env.client, id), true);
    assert.deepEqual(await handle.result(), { status: 'cancelled', payouts: 0 });
    assert.deepEqual(await paidTo(id), []);
    record('cancelled-before-end', id);
  } finally {
    await stop();
  }
});

test('a cancel signal after its end changes nothing: the tournament pays', async () => {
  // The worker is stopped while the tournament waits for its end, so the signal surely lands after
  // the end and before the freeze.
  const stopFirst = await env.startWorker();
  const id = await tournament(1_000);
  const p = await env.newPlayer({ family: 'prov_a' });
  await play(p, 300);
  const { handle } = await startTournamentWorkflow(env.client, env.taskQueue, id, FAST);
  await sleep(500);
  await stopFirst();
  await sleep(800);
  // The API refuses a cancel after the end (409); a signal that arrives anyway only wakes it.
  assert.equal(await signalTournamentCancel(env.client, id), true);
  const stop = await env.startWorker();
  try {
    assert.deepEqual(await handle.result(), { status: 'paid', payouts: 1 });
    assert.deepEqual(await paidTo(id), [p.externalId]);
    record('cancelled-after-end', id);
  } finally {
    await stop();
  }
});

test('a tournament spanning a worker restart is finished by the next worker, paid once', async () => {
  const stopFirst = await env.startWorker();
  const id = await tournament(3_000);
  const p = await env.newPlayer({ family: 'prov_a' });
  await play(p, 250);
  const { handle } = await startTournamentWorkflow(env.client, env.taskQueue, id, FAST);
  await sleep(800);
  await stopFirst();
  await sleep(2_700);
  const stopSecond = await env.startWorker();
  try {
    assert.deepEqual(await handle.result(), { status: 'paid', payouts: 1 });
    assert.deepEqual(await paidTo(id), [p.externalId]);
    record('worker-restart', id);
  } finally {
    await stopSecond();
  }
});
