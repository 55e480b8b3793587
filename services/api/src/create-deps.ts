import { AddressSet, type Config } from '@opi/config';
import { createPool, createSecretBox } from '@opi/db';
import { createLocalOutcomes, walletNetworkPolicy } from '@opi/workflows';
import { Client, Connection } from '@temporalio/client';
import { KeyStore } from './auth/keys.js';
import { NonceClaimer } from './auth/nonces.js';
import { RefreshHub } from './balance-refresh/hub.js';
import { ChangeFeed, ConfigCache } from './cache/change-feed.js';
import { PgListener } from './cache/pg-listener.js';
import type { ApiDeps } from './deps.js';
import { createSlotPlayer } from './engines/slot-player.js';
import { createLogger } from './http/logger.js';
import { type HostedWorker, startHostedWorker } from './settlement/hosted-worker.js';

/** Builds the API's dependencies from the parsed configuration. */
export async function createDeps(config: Config): Promise<ApiDeps & { close(): Promise<void> }> {
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required (npm start sets it)');
  if (!config.SERVICE_SECRET) throw new Error('SERVICE_SECRET is required (npm start generates one)');
  const pool = createPool(config.DATABASE_URL, {
    max: config.DATABASE_POOL_SIZE,
    applicationName: 'opi-api',
  });
  const noncePool = createPool(config.DATABASE_URL, {
    max: 4,
    applicationName: 'opi-api-nonces',
    synchronousCommit: false,
  });
  const box = createSecretBox(config.SERVICE_SECRET);
  const logger = createLogger('api', config.LOG_LEVEL);
  // One LISTEN connection per process: channels are registered (feed, hub) before it starts.
  const listener = new PgListener(config.DATABASE_URL);
  const feed = new ChangeFeed(listener);
  const refresh = new RefreshHub(pool, listener, logger);
  await listener.start();
  refresh.start();
  // Lazy: the API starts (and serves the catalog) before Temporal answers; calls wait for it.
  const connection = config.TEMPORAL_ADDRESS
    ? Connection.lazy({ address: config.TEMPORAL_ADDRESS })
    : undefined;
  const temporal: ApiDeps['temporal'] = connection
    ? {
        client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        eagerClient: null,
      }
    : undefined;
  // The process's own settlement worker: round workflows it starts run here, eagerly.
  let hosted: HostedWorker | undefined;
  if (temporal && config.TEMPORAL_ADDRESS && config.API_SETTLEMENT_WORKER === 'on') {
    // Its activities tell the routes each round's outcome as soon as it is recorded.
    const outcomes = createLocalOutcomes();
    temporal.outcomes = outcomes;
    hosted = startHostedWorker({
      outcomes,
      address: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      pool,
      box,
      walletTimeoutMs: config.WALLET_TIMEOUT_MS,
      requireHttps: config.isProduction,
      allowPrivateNetworks: walletNetworkPolicy(config).allowPrivate,
      maxConcurrentActivities: config.WORKER_MAX_ACTIVITIES,
      maxConcurrentWorkflowTasks: config.WORKER_MAX_WORKFLOW_TASKS,
      logger,
      onEagerClient: (client) => {
        temporal.eagerClient = client;
      },
    });
  }
  return {
    ...(temporal ? { temporal } : {}),
    ...(hosted ? { hostedWorker: hosted } : {}),
    pool,
    slots: createSlotPlayer(),
    native: { abandonAfterSeconds: config.NATIVE_ABANDON_AFTER_SECONDS },
    nonces: new NonceClaimer(noncePool),
    listener,
    feed,
    refresh,
    caches: {
      operators: new ConfigCache(feed),
      catalogs: new ConfigCache(feed),
      catalogRows: new ConfigCache(feed),
    },
    box,
    keys: new KeyStore(pool, box, feed),
    logger,
    publicBaseUrl: config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`,
    ...(config.STAFF_PORTAL_SECRET ? { staffPortalSecret: config.STAFF_PORTAL_SECRET } : {}),
    trustedProxies: AddressSet.parse(config.TRUSTED_PROXIES),
    isProduction: config.isProduction,
    walletNetwork: walletNetworkPolicy(config),
    signedRequestsRequired: config.signedRequestsRequired,
    maxSkewSeconds: config.SIGNATURE_MAX_SKEW_SECONDS,
    async close() {
      // Drains the hosted worker: workflow tasks and wallet steps in hand finish first.
      await hosted?.stop();
      await connection?.close().catch(() => {});
      // Ends the event streams and deletes this process's presence rows (needs the pool).
      await refresh.stop();
      await listener.stop();
      await pool.end();
      await noncePool.end();
    },
  };
}
