import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startMetricsServer } from '@opi/config';
import { createPool } from '@opi/db';
import { publicReadiness, readiness, sharedReadiness } from '@opi/play/ops/ready';
import { readyRoute } from '@opi/play/ops/routes';
import { call, freePort, type Harness, startApi } from '@opi/testkit/harness';

// Issue 23 point 7: the public /ready says which check failed, never why (driver and Temporal
// messages name hosts, ports and users). The reasons go to the log and to /ready on the metrics port.

let h: Harness;
before(async () => {
  // Temporal answers, but no worker polls this task queue: the worker check fails naming the queue.
  h = await startApi({
    TEMPORAL_ADDRESS: process.env.OPI_TEST_TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: 'internal-queue-name',
  });
});
after(async () => {
  await h.close();
});

test('public /ready: booleans, timings and the poller count only; no message, host or queue name', async () => {
  const res = await call(h.base, 'GET', '/ready');
  assert.equal(res.status, 503);
  assert.equal(res.json.status, 'not_ready');
  assert.deepEqual(Object.keys(res.json.checks).sort(), ['postgres', 'temporal', 'worker']);
  assert.deepEqual(Object.keys(res.json.checks.postgres).sort(), ['ms', 'ok']);
  assert.deepEqual(Object.keys(res.json.checks.temporal).sort(), ['ms', 'ok']);
  assert.deepEqual(Object.keys(res.json.checks.worker).sort(), ['ms', 'ok', 'pollers']);
  assert.equal(res.json.checks.postgres.ok, true);
  assert.equal(res.json.checks.temporal.ok, true);
  assert.equal(res.json.checks.worker.ok, false);
  assert.equal(res.json.checks.worker.pollers, 0);
  assert.doesNotMatch(res.text, /internal-queue-name|no worker polls|error|task_queue/i);
});

test('the metrics port answers /ready with the reasons', async () => {
  const port = await freePort();
  const server = startMetricsServer({
    host: '127.0.0.1',
    port,
    render: async () => '',
    routes: { '/ready': readyRoute(sharedReadiness(h.deps)) },
  });
  try {
    await new Promise((r) => server!.once('listening', r));
    const res = await fetch(`http://127.0.0.1:${port}/ready`);
    assert.equal(res.status, 503);
    const body = (await res.json()) as any;
    assert.equal(body.checks.temporal.ok, true);
    assert.equal(body.checks.worker.error, 'no worker polls task queue internal-queue-name');
    assert.equal(body.checks.worker.task_queue, 'internal-queue-name');
  } finally {
    server?.close();
  }
});

test('a database failure: the driver message is logged (once while it lasts), the public answer is a boolean', async () => {
  const pool = createPool('postgres://ready_user:not-the-password@127.0.0.1:1/opi', { max: 1 });
  const logged: { msg: string; fields: Record<string, unknown> | undefined }[] = [];
  const logger = {
    debug() {},
    info(msg: string, fields?: Record<string, unknown>) {
      logged.push({ msg, fields });
    },
    warn(msg: string, fields?: Record<string, unknown>) {
      logged.push({ msg, fields });
    },
    error() {},
  };
  try {
    const ready = readiness({ pool, temporal: undefined, logger });
    const report = await ready();
    assert.equal(report.status, 'not_ready');
    assert.match(report.checks.postgres.error ?? '', /ECONNREFUSED|127\.0\.0\.1/);
    const pub = publicReadiness(report);
    assert.deepEqual(pub.checks.postgres, { ok: false, ms: report.checks.postgres.ms });
    assert.doesNotMatch(JSON.stringify(pub), /ECONNREFUSED|127\.0\.0\.1|ready_user|TEMPORAL_ADDRESS/);
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.msg, 'not ready');
    assert.match(JSON.stringify(logged[0]!.fields), /ECONNREFUSED|127\.0\.0\.1/);
    // The same failure again (after the 1 s shared answer): not logged again within the minute.
    await new Promise((r) => setTimeout(r, 1_100));
    await ready();
    assert.equal(logged.length, 1);
  } finally {
    await pool.end();
  }
});
