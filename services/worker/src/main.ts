import { existsSync } from 'node:fs';
import { createLogger, loadConfigOrExit, startMetricsServer } from '@opi/config';
import { createPool, createSecretBox } from '@opi/db';
import { walletNetworkPolicy } from '@opi/wallet';
import { startRoundResumer, WORKFLOW_BUNDLE_PATH } from '@opi/workflows';
import { installTemporalRuntime } from '@opi/workflows/worker';
import { Client, Connection } from '@temporalio/client';
import { createWorker } from './create-worker.js';
import { workerMetrics } from './metrics.js';

const config = loadConfigOrExit();
const logger = createLogger('worker', config.LOG_LEVEL);
const log = (level: 'info' | 'warn' | 'error', msg: string, extra: Record<string, unknown> = {}) =>
  logger[level](msg, extra);

if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS || !config.SERVICE_SECRET) {
  process.stderr.write(
    'The worker needs DATABASE_URL, TEMPORAL_ADDRESS and SERVICE_SECRET (npm start sets them).\n',
  );
  process.exit(2);
}
if (!existsSync(WORKFLOW_BUNDLE_PATH)) {
  process.stderr.write(
    `No workflow bundle at ${WORKFLOW_BUNDLE_PATH}: run \`npm run build -w workflows\` first.\n`,
  );
  process.exit(2);
}

// SIGINT/SIGTERM start a graceful shutdown: no new tasks, running activities finish or time out.
// The SDK's own lines (and the Core's warnings) go through this logger at LOG_LEVEL.
installTemporalRuntime({
  level: config.LOG_LEVEL,
  log: logger,
  shutdownSignals: ['SIGINT', 'SIGTERM'],
  ...(config.TEMPORAL_SDK_METRICS_PORT
    ? { metricsAddress: `${config.HOST}:${config.TEMPORAL_SDK_METRICS_PORT}` }
    : {}),
});

const pool = createPool(config.DATABASE_URL, {
  max: config.DATABASE_POOL_SIZE,
  applicationName: 'opi-worker',
});
const { worker, connection } = await createWorker({
  temporalAddress: config.TEMPORAL_ADDRESS,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  pool,
  box: createSecretBox(config.SERVICE_SECRET),
  walletTimeoutMs: config.WALLET_TIMEOUT_MS,
  requireHttps: config.isProduction,
  allowPrivateNetworks: walletNetworkPolicy(config).allowPrivate,
  log: (level, msg, fields) => log(level, msg, fields),
  bundlePath: WORKFLOW_BUNDLE_PATH,
  maxConcurrentActivities: config.WORKER_MAX_ACTIVITIES,
  maxConcurrentWorkflowTasks: config.WORKER_MAX_WORKFLOW_TASKS,
  ...(config.WORKER_BUILD_ID
    ? { deployment: { name: config.WORKER_DEPLOYMENT_NAME, buildId: config.WORKER_BUILD_ID } }
    : {}),
});
const registry = workerMetrics(pool, config.TEMPORAL_TASK_QUEUE);
startMetricsServer({
  host: config.HOST,
  port: config.WORKER_METRICS_PORT,
  render: () => registry.metrics(),
  contentType: registry.contentType,
  logger,
});
// Rounds the runtime recorded but whose settlement never started (an API process died between
// its commit and the start): started late from their durable intent (@opi/workflows resume.ts).
const clientConnection = Connection.lazy({ address: config.TEMPORAL_ADDRESS });
const stopResumer = startRoundResumer({
  pool,
  client: new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE }),
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  log: (level, msg, fields) => log(level, msg, fields),
});
log('info', 'worker started', {
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  namespace: config.TEMPORAL_NAMESPACE,
});

// Under the default stack, exit if the supervisor died (no orphaned workers).
const parent = process.ppid;
setInterval(() => {
  // Once: a second shutdown() while draining throws ("Not running").
  if (process.ppid !== parent && worker.getState() === 'RUNNING') worker.shutdown();
}, 1000).unref();

try {
  await worker.run();
} finally {
  stopResumer();
  await clientConnection.close().catch(() => {});
  await connection.close();
  await pool.end();
  log('info', 'worker stopped');
}
