import { existsSync } from 'node:fs';
import { loadConfigOrExit } from '@opi/config';
import { createPool } from '@opi/db';
import { WORKFLOW_BUNDLE_PATH } from '@opi/workflows';
import { Runtime } from '@temporalio/worker';
import { createWorker } from './create-worker.js';

const config = loadConfigOrExit();
const log = (level: string, msg: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(
    `${JSON.stringify({ time: new Date().toISOString(), level, service: 'worker', msg, ...extra })}\n`,
  );

if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
  process.stderr.write('The worker needs DATABASE_URL and TEMPORAL_ADDRESS (npm start sets both).\n');
  process.exit(2);
}
if (!existsSync(WORKFLOW_BUNDLE_PATH)) {
  process.stderr.write(
    `No workflow bundle at ${WORKFLOW_BUNDLE_PATH}: run \`npm run build -w workflows\` first.\n`,
  );
  process.exit(2);
}

// SIGINT/SIGTERM start a graceful shutdown: no new tasks, running activities finish or time out.
Runtime.install({ shutdownSignals: ['SIGINT', 'SIGTERM'] });

const pool = createPool(config.DATABASE_URL, {
  max: config.DATABASE_POOL_SIZE,
  applicationName: 'opi-worker',
});
const { worker, connection } = await createWorker({
  temporalAddress: config.TEMPORAL_ADDRESS,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  pool,
  bundlePath: WORKFLOW_BUNDLE_PATH,
  maxConcurrentActivities: config.WORKER_MAX_ACTIVITIES,
  maxConcurrentWorkflowTasks: config.WORKER_MAX_WORKFLOW_TASKS,
});
log('info', 'worker started', {
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  namespace: config.TEMPORAL_NAMESPACE,
});

// Under the default stack, exit if the supervisor died (no orphaned workers).
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) worker.shutdown();
}, 1000).unref();

try {
  await worker.run();
} finally {
  await connection.close();
  await pool.end();
  log('info', 'worker stopped');
}
