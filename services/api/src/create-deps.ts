import path from 'node:path';
import type { Config } from '@opi/config';
import { createPool } from '@opi/db';
import { createPlayDeps, gameBaseUrl, replayKeyringOf } from '@opi/play/create-deps';
import { ConfigCache } from '@opi/service-kit/cache/change-feed';
import { KeyStore } from './auth/keys.js';
import { NonceClaimer } from './auth/nonces.js';
import type { ApiDeps } from './deps.js';

/**
 * Builds the operator API's dependencies from the parsed configuration. The API starts no round
 * (the game server does), so it hosts no settlement worker: its Temporal client serves the launch's
 * settlement probe and the staff's cancellations.
 */
export async function createDeps(config: Config): Promise<ApiDeps & { close(): Promise<void> }> {
  const play = await createPlayDeps(config, { name: 'api' });
  const noncePool = createPool(config.DATABASE_URL!, {
    max: 4,
    applicationName: 'opi-api-nonces',
    synchronousCommit: false,
  });
  return {
    ...play,
    nonces: new NonceClaimer(noncePool),
    caches: {
      operators: play.caches.operators,
      catalogs: new ConfigCache(play.feed),
      catalogRows: new ConfigCache(play.feed),
      jackpots: play.caches.jackpots,
    },
    keys: new KeyStore(play.pool, play.box, play.feed),
    publicBaseUrl: config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`,
    gameBaseUrl: gameBaseUrl(config),
    replayKey: replayKeyringOf(config),
    ...(config.STAFF_PORTAL_SECRET ? { staffPortalSecret: config.STAFF_PORTAL_SECRET } : {}),
    signedRequestsRequired: config.signedRequestsRequired,
    jackpotMaxSharePpm: config.JACKPOT_MAX_SHARE_PPM === 'none' ? null : config.JACKPOT_MAX_SHARE_PPM,
    maxSkewSeconds: config.SIGNATURE_MAX_SKEW_SECONDS,
    ...(config.SDK_TARBALL_DIR ? { sdkTarballDir: path.resolve(config.SDK_TARBALL_DIR) } : {}),
    async close() {
      await play.close();
      await noncePool.end();
    },
  };
}
