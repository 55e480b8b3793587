import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { RoundOutcome } from '@opi/wallet/intent';
import { Connection, type WorkflowHandle } from '@temporalio/client';
import { signalTournamentCancel, startTournamentWorkflow } from './promotions/start.js';
import { startSettlement } from './settle-round/start.js';
import { eventually, type SettlementEnv, startSettlementEnv } from './test-support/settlement-env.js';
import { adoptOrphanedWorkflows, describeWorkerDeployment, setCurrentWorkerVersion } from './versioning.js';

// Worker Deployment Versioning on the Temporal dev server (the same server code as the cluster's):
// two versions of the settlement workers on one task queue. A round started on v1 stays on v1
// after v2 becomes current (pinned) and finishes there; a tournament moves to v2 at its next
// workflow task (auto-upgrade); new rounds start on v2.
let env: SettlementEnv;
let connection: Connection;
const deploymentName = `opi-versioning-${randomUUID().slice(0, 8)}`;
const v1 = { name: deploymentName, buildId: 'v1' };
const v2 = { name: deploymentName, buildId: 'v2' };
const stops: (() => Promise<void>)[] = [];

before(async () => {
  env = await startSettlementEnv();
  connection = await Connection.connect({ address: env.address });
});
after(async () => {
  for (const stop of stops.reverse()) await stop();
  await connection?.close();
  await env?.close();
});

interface Versioning {
  behavior: string;
  buildId: string | undefined;
}
async function versioningOf(handle: WorkflowHandle): Promise<Versioning> {
  const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
  return {
    behavior: String(info?.behavior ?? ''),
    buildId: info?.deploymentVersion?.buildId ?? undefined,
  };
}
const PINNED = /PINNED|^1$/;
const AUTO = /AUTO_UPGRADE|^2$/;

test('rounds stay pinned to the version they started on; tournaments auto-upgrade; new work goes to the current version', {
  timeout: 120_000,
}, async () => {
  stops.push(await env.startWorker({ deployment: v1 }));
  await setCurrentWorkerVersion(connection, 'default', { deploymentName, buildId: 'v1' });
  assert.equal((await describeWorkerDeployment(connection, 'default', deploymentName)).currentBuildId, 'v1');

  // A multi-step round (open until finished) and a tournament that ends in a minute, both on v1.
  const p = await env.newPlayer({ family: 'prov_c' });
  const intent = await env.newRound(p, {
    stakeMinor: 100,
    winMinor: null,
    multiStep: { abandonAfterSeconds: 120, rule: 'loss' },
  });
  const round = await startSettlement(env.client, env.taskQueue, intent, {
    initialRetryMs: 50,
    maxRetryMs: 400,
  });
  await eventually(
    async () => (await round.query<{ phase: string }>('state')).phase === 'open',
    20_000,
    'round open',
  );
  const tid = `tv-${randomUUID().slice(0, 8)}`;
  await env.pool.query(
    `INSERT INTO tournaments (tournament_id, name, scoring, starts_at, ends_at, status)
     VALUES ($1, 'Versions', 'total_win', now() - interval '1 hour', now() + interval '1 minute', 'running')`,
    [tid],
  );
  const { handle: tournament } = await startTournamentWorkflow(env.client, env.taskQueue, tid);
  await eventually(async () => (await versioningOf(tournament)).buildId === 'v1', 20_000, 'tournament on v1');
  assert.match((await versioningOf(round)).behavior, PINNED);
  assert.equal((await versioningOf(round)).buildId, 'v1');
  assert.match((await versioningOf(tournament)).behavior, AUTO);

  // v2's workers start, and v2 becomes current.
  stops.push(await env.startWorker({ deployment: v2 }));
  await setCurrentWorkerVersion(connection, 'default', { deploymentName, buildId: 'v2' });

  // The open round stays on v1: its next task (a stage) runs there, and it finishes there.
  await round.signal('stage', { cashoutMinor: '130' });
  const outcome = await round.executeUpdate<RoundOutcome, [{ winMinor: string }]>('finish', {
    args: [{ winMinor: '130' }],
  });
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(await versioningOf(round), {
    behavior: (await versioningOf(round)).behavior,
    buildId: 'v1',
  });
  assert.match((await versioningOf(round)).behavior, PINNED);
  const history = (await round.fetchHistory()).events ?? [];
  const identities = new Set(
    history.map((e) => e.workflowTaskCompletedEventAttributes?.identity).filter((i): i is string => !!i),
  );
  assert.deepEqual([...identities], ['worker-v1'], 'every workflow task of the round ran on v1');

  // The tournament moves to v2 at its next workflow task (a wake-up signal; the database decides).
  assert.equal(await signalTournamentCancel(env.client, tid), true);
  await eventually(async () => (await versioningOf(tournament)).buildId === 'v2', 20_000, 'tournament on v2');
  assert.match((await versioningOf(tournament)).behavior, AUTO);

  // A new round starts on v2.
  const q = await env.newPlayer({ family: 'prov_b' });
  const next = await startSettlement(
    env.client,
    env.taskQueue,
    await env.newRound(q, { stakeMinor: 100, winMinor: 50 }),
  );
  assert.equal((await next.result()).status, 'completed');
  assert.equal((await versioningOf(next)).buildId, 'v2');
  const state = await describeWorkerDeployment(connection, 'default', deploymentName);
  assert.equal(state.currentBuildId, 'v2');
  assert.deepEqual(state.versions.map((v) => v.buildId).sort(), ['v1', 'v2']);
  await env.pool.query(
    `UPDATE tournaments SET status = 'cancelled', cancelled_at = now() WHERE tournament_id = $1`,
    [tid],
  );
  await signalTournamentCancel(env.client, tid);
  assert.deepEqual(await tournament.result(), { status: 'cancelled', payouts: 0 });
});

test('a stop-the-world deploy: an open round pinned to a version whose workers are gone is moved to the new version and finishes there', {
  timeout: 120_000,
}, async () => {
  // Stop the world: the earlier test's workers (another deployment's v1 and v2 on this task
  // queue) are gone too, so none of them can take the round's first task while the server's task
  // queue partitions still route to that deployment's current version (a race a fresh-clone run lost).
  for (const stop of stops.splice(0).reverse()) await stop();
  const name = `opi-adopt-${randomUUID().slice(0, 8)}`;
  const stopOld = await env.startWorker({ deployment: { name, buildId: 'old' } });
  await setCurrentWorkerVersion(connection, 'default', { deploymentName: name, buildId: 'old' });
  const p = await env.newPlayer({ family: 'prov_c' });
  const round = await startSettlement(
    env.client,
    env.taskQueue,
    await env.newRound(p, {
      stakeMinor: 100,
      winMinor: null,
      multiStep: { abandonAfterSeconds: 120, rule: 'loss' },
    }),
    { initialRetryMs: 50, maxRetryMs: 400 },
  );
  await eventually(
    async () => (await round.query<{ phase: string }>('state')).phase === 'open',
    20_000,
    'round open',
  );
  assert.equal((await versioningOf(round)).buildId, 'old');
  // Every process stops; the new release starts and becomes current.
  await stopOld();
  stops.push(await env.startWorker({ deployment: { name, buildId: 'new' } }));
  await setCurrentWorkerVersion(connection, 'default', { deploymentName: name, buildId: 'new' });
  const moved = await adoptOrphanedWorkflows(connection, 'default', { deploymentName: name, buildId: 'new' });
  assert.ok(moved.includes(round.workflowId), `moved: ${moved}`);
  // Its next task (a stage, then the finish) runs on the new version's worker.
  await round.signal('stage', { cashoutMinor: '120' });
  const outcome = await round.executeUpdate<RoundOutcome, [{ winMinor: string }]>('finish', {
    args: [{ winMinor: '120' }],
  });
  assert.equal(outcome.status, 'completed');
  const history = (await round.fetchHistory()).events ?? [];
  const identities = history.map((e) => e.workflowTaskCompletedEventAttributes?.identity).filter(Boolean);
  assert.equal(identities.at(-1), 'worker-new');
  // Nothing is left to move.
  assert.deepEqual(
    await adoptOrphanedWorkflows(connection, 'default', { deploymentName: name, buildId: 'new' }),
    [],
  );
});
