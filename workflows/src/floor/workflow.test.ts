import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createLogger } from '@opi/config';
import { createTestDatabase, type TestDatabase } from '@opi/db/testing';
import { type RoundIntent, transactionIdsFor } from '@opi/wallet/intent';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities.js';
import { WORKFLOW_BUNDLE_PATH } from '../bundle.js';
import { installTemporalRuntime, testTemporalLevel } from '../runtime-logger.js';
import { startFloorRound } from './start.js';

// Real Temporal dev server (started by the test runner, default dynamic config) and a real worker
// on the ahead-of-time bundle with the activities every worker registers.
const address = process.env.OPI_TEST_TEMPORAL_ADDRESS;
let db: TestDatabase;
let connection: Connection;
let client: Client;

// The SDK's own lines through the project's logger (warnings and errors unless LOG_LEVEL is set).
installTemporalRuntime({ level: testTemporalLevel(), log: createLogger('temporal', testTemporalLevel()) });

before(async () => {
  assert.ok(address, 'OPI_TEST_TEMPORAL_ADDRESS is set by npm test');
  db = await createTestDatabase();
  connection = await Connection.connect({ address });
  client = new Client({ connection });
});
after(async () => {
  await connection?.close();
  await db?.drop();
});

function intent(): RoundIntent {
  const roundId = `r_${randomUUID()}`;
  return {
    roundId,
    operatorId: 'op_floor',
    sessionId: `s_${randomUUID()}`,
    playerId: 'pl-floor',
    gameSymbol: 't_slot_b',
    providerId: 'prov_b',
    currency: 'EUR',
    actionType: 'spin',
    stakeMinor: '100',
    winMinor: '250',
    transactions: transactionIdsFor(roundId),
  };
}

async function floorWorker(nativeConnection: NativeConnection, taskQueue: string) {
  return Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
    activities: createActivities({ pool: db.pool }),
  });
}

test('floorRound runs its two no-op local activities on a worker and completes', async () => {
  const taskQueue = `floor-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address: address! });
  try {
    const worker = await floorWorker(nativeConnection, taskQueue);
    const i = intent();
    const result = await worker.runUntil(async () => {
      const handle = await startFloorRound(client, taskQueue, i);
      // A plain client connection cannot start eagerly: the first task went through matching.
      assert.equal(handle.eagerlyStarted, false);
      return handle.result();
    });
    assert.deepEqual(result.pids, [process.pid, process.pid]);

    const history = await client.workflow.getHandle(i.roundId).fetchHistory();
    const markers = (history.events ?? []).filter((e) => e.markerRecordedEventAttributes);
    assert.equal(markers.length, 2, 'two local activity markers');
    assert.equal(
      (history.events ?? []).some((e) => e.activityTaskScheduledEventAttributes),
      false,
      'no regular activity',
    );
    assert.equal((await client.workflow.getHandle(i.roundId).describe()).status.name, 'COMPLETED');
  } finally {
    await nativeConnection.close();
  }
});

test('started on the NativeConnection of a worker in the same process, floorRound starts eagerly (the dev server allows it by default)', async () => {
  const taskQueue = `floor-eager-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address: address! });
  try {
    const worker = await floorWorker(nativeConnection, taskQueue);
    const eagerClient = new Client({ connection: nativeConnection });
    const i = intent();
    const { eagerlyStarted, result } = await worker.runUntil(async () => {
      const handle = await startFloorRound(eagerClient, taskQueue, i, { eager: true });
      return { eagerlyStarted: handle.eagerlyStarted, result: await handle.result() };
    });
    assert.equal(eagerlyStarted, true);
    assert.deepEqual(result.pids, [process.pid, process.pid]);
    // Started the way a round is: a finished round is never run again.
    await assert.rejects(startFloorRound(client, taskQueue, i), /already started/i);
  } finally {
    await nativeConnection.close();
  }
});
