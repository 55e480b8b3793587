import type { AddressSet } from '@opi/config';
import type { Pool, SecretBox } from '@opi/db';
import type { ChangeFeed, ConfigCache } from '@opi/service-kit/cache/change-feed';
import type { PgListener } from '@opi/service-kit/cache/pg-listener';
import type { Logger } from '@opi/service-kit/http/logger';
import type { WalletNetworkPolicy } from '@opi/wallet';
import type { Client } from '@temporalio/client';
import type { RefreshHub } from './balance-refresh/hub.js';
import type { SpinJackpot } from './jackpots/spin-jackpot.js';
import type { OperatorRow } from './sessions/operators.js';

/**
 * What the shared play code (sessions, settlement start, readiness, client addresses) needs of a
 * service: the operator API's ApiDeps and the game server's GameDeps both carry it.
 */
export interface PlayDeps {
  pool: Pool;
  /** The process's one LISTEN connection (the change feed and the refresh hub hear through it). */
  listener: PgListener;
  /** Cross-process change notifications for the in-memory caches. */
  feed: ChangeFeed;
  /** Balance refresh signalling: the game pages' event streams, presence and NOTIFY fan-out. */
  refresh: RefreshHub;
  caches: { operators: ConfigCache<OperatorRow | null>; jackpots: ConfigCache<SpinJackpot | null> };
  box: SecretBox;
  logger: Logger;
  /**
   * The settlement workflows' client (absent when TEMPORAL_ADDRESS is not configured). The game
   * server adds its hosted worker's eager client and local outcomes (services/game-server deps.ts).
   */
  temporal?: {
    client: Client;
    taskQueue: string;
  };
  /**
   * TRUSTED_PROXIES: a request's client address is read from X-Forwarded-For only when its peer is
   * one of these (`resolveClientIp` in @opi/config); else the socket's peer is the client.
   */
  trustedProxies: AddressSet;
  isProduction: boolean;
  /** Where operators' wallets may be (WALLET_ALLOW_PRIVATE_NETWORKS; @opi/wallet address-policy). */
  walletNetwork?: WalletNetworkPolicy;
}
