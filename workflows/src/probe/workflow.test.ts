import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createLogger } from '@opi/config';
import { createTestDatabase, type TestDatabase } from '@opi/db/testing';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities.js';
import { WORKFLOW_BUNDLE_PATH } from '../bundle.js';
import { installTemporalRuntime, testTemporalLevel } from '../runtime-logger.js';

// Real Temporal dev server (started by the test runner) and real PostgreSQL; the worker loads
// the workflow bundle built ahead of time, exactly as services/worker does.
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

test('a workflow started through the client runs an activity that writes to PostgreSQL', async () => {
  const taskQueue = `probe-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address: address! });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH },
    activities: createActivities({ pool: db.pool }),
  });
  const probeId = `probe-${randomUUID()}`;
  const result = await worker.runUntil(
    client.workflow.execute('probeWorkflow', { taskQueue, workflowId: probeId, args: [probeId] }),
  );
  assert.equal(result.probeId, probeId);
  assert.match(result.worker, /:\d+$/);
  const { rows } = await db.pool.query('SELECT worker, completed_at FROM system_probes WHERE probe_id = $1', [
    probeId,
  ]);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].worker, result.worker);
  assert.equal(rows[0].completed_at.toISOString(), result.completedAt);
  // runUntil shut the worker down cleanly once the workflow finished.
  assert.equal(worker.getState(), 'STOPPED');
  await nativeConnection.close();

  const description = await client.workflow.getHandle(probeId).describe();
  assert.equal(description.status.name, 'COMPLETED');
});

test('a second start with the same workflow id is rejected while the first is recorded', async () => {
  const probeId = `probe-${randomUUID()}`;
  const taskQueue = `probe-${randomUUID()}`;
  await client.workflow.start('probeWorkflow', { taskQueue, workflowId: probeId, args: [probeId] });
  await assert.rejects(
    client.workflow.start('probeWorkflow', { taskQueue, workflowId: probeId, args: [probeId] }),
    /already started/i,
  );
  await client.workflow.getHandle(probeId).terminate('test done');
});
