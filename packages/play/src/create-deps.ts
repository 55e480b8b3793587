import { createHmac } from 'node:crypto';
import { AddressSet, type Config, isoDate, parseRetiredReplaySecrets } from '@opi/config';
import { createPool, createSecretBox } from '@opi/db';
import { ChangeFeed, ConfigCache } from '@opi/service-kit/cache/change-feed';
import { PgListener } from '@opi/service-kit/cache/pg-listener';
import { createLogger } from '@opi/service-kit/http/logger';
import { type ReplayKeyring, replayKeyring } from '@opi/signing';
import { walletNetworkPolicy } from '@opi/wallet';
import { Client, Connection } from '@temporalio/client';
import { RefreshHub } from './balance-refresh/hub.js';
import type { PlayDeps } from './deps.js';

export interface PlayDepsOptions {
  /** The service (`api`, `game-server`): its logger's name and its connections' application_name. */
  name: string;
}

/**
 * What both services build the same way from the configuration: the pool, the secret box, the
 * process's one LISTEN connection with the change feed and the refresh hub on it, the operators'
 * cache, the Temporal client. `close()` releases them in order. (The game server adds its hosted
 * settlement worker: services/game-server/src/create-deps.ts.)
 */
export async function createPlayDeps(
  config: Config,
  options: PlayDepsOptions,
): Promise<PlayDeps & { close(): Promise<void> }> {
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required (npm start sets it)');
  if (!config.SERVICE_SECRET) throw new Error('SERVICE_SECRET is required (npm start generates one)');
  const pool = createPool(config.DATABASE_URL, {
    max: config.DATABASE_POOL_SIZE,
    applicationName: `opi-${options.name}`,
  });
  const box = createSecretBox(config.SERVICE_SECRET);
  const logger = createLogger(options.name, config.LOG_LEVEL);
  // One LISTEN connection per process: channels are registered (feed, hub) before it starts.
  const listener = new PgListener(config.DATABASE_URL);
  const feed = new ChangeFeed(listener);
  const refresh = new RefreshHub(pool, listener, logger);
  await listener.start();
  refresh.start();
  // Lazy: the service starts before Temporal answers; calls wait for it.
  const connection = config.TEMPORAL_ADDRESS
    ? Connection.lazy({ address: config.TEMPORAL_ADDRESS })
    : undefined;
  const temporal: PlayDeps['temporal'] = connection
    ? {
        client: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
      }
    : undefined;
  return {
    ...(temporal ? { temporal } : {}),
    pool,
    listener,
    feed,
    refresh,
    caches: { operators: new ConfigCache(feed), jackpots: new ConfigCache(feed) },
    box,
    logger,
    trustedProxies: AddressSet.parse(config.TRUSTED_PROXIES),
    isProduction: config.isProduction,
    walletNetwork: walletNetworkPolicy(config),
    async close() {
      await connection?.close().catch(() => {});
      // Ends the event streams and deletes this process's presence rows (needs the pool).
      await refresh.stop();
      await listener.stop();
      await pool.end();
    },
  };
}

/** GAME_BASE_URL, else the game server on this host (the default stack's): every launch URL's origin. */
export function gameBaseUrl(config: Config): string {
  return config.GAME_BASE_URL ?? `http://${config.HOST}:${config.GAME_SERVER_PORT}`;
}

/**
 * The replay links' keys (issue 34, @opi/signing replay-links): the current one from
 * REPLAY_LINK_SECRET, retired ones until their dates (REPLAY_LINK_RETIRED_SECRETS), and the legacy
 * key of the links issued before issue 34 (SERVICE_SECRET's, until REPLAY_LINK_LEGACY_UNTIL).
 * Production requires REPLAY_LINK_SECRET; elsewhere a secret derived from SERVICE_SECRET under its
 * own label stands in (the default stack generates a real one into DATA_DIR/secrets.json).
 */
export function replayKeyringOf(config: Config): ReplayKeyring {
  if (!config.SERVICE_SECRET) throw new Error('SERVICE_SECRET is required (npm start generates one)');
  if (!config.REPLAY_LINK_SECRET && config.isProduction)
    throw new Error('REPLAY_LINK_SECRET is required when NODE_ENV=production (npm start generates one)');
  const secret =
    config.REPLAY_LINK_SECRET ??
    createHmac('sha256', config.SERVICE_SECRET)
      .update('opi:replay-link-secret:development')
      .digest('base64url');
  return replayKeyring({
    secret,
    retired: config.REPLAY_LINK_RETIRED_SECRETS
      ? (parseRetiredReplaySecrets(config.REPLAY_LINK_RETIRED_SECRETS) ?? [])
      : [],
    legacySecret: config.SERVICE_SECRET,
    legacyUntil: config.REPLAY_LINK_LEGACY_UNTIL ? isoDate(config.REPLAY_LINK_LEGACY_UNTIL) : null,
  });
}
