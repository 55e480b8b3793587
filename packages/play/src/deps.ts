import type { AddressSet } from '@opi/config';
import type { Pool, SecretBox } from '@opi/db';
import type { ChangeFeed, ConfigCache } from '@opi/service-kit/cache/change-feed';
import type { PgListener } from '@opi/service-kit/cache/pg-listener';
import type { Logger } from '@opi/service-kit/http/logger';
import type { LocalOutcomes, WalletNetworkPolicy } from '@opi/workflows';
import type { Client } from '@temporalio/client';
import type { RefreshHub } from './balance-refresh/hub.js';
import type { SpinJackpot } from './jackpots/spin-jackpot.js';
import type { OperatorRow } from './sessions/operators.js';
import type { HostedWorker } from './settlement/hosted-worker.js';

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
  /** The settlement workflows' client (absent when TEMPORAL_ADDRESS is not configured). */
  temporal?: {
    client: Client;
    taskQueue: string;
    /**
     * The client on the hosted settlement worker's NativeConnection while that worker polls
     * (GAME_SETTLEMENT_WORKER=on): round workflows are started with it, eagerly (startRound).
     */
    eagerClient?: Client | null;
    /** The hosted worker's round outcomes, announced in this process (settlement/start-round.ts). */
    outcomes?: LocalOutcomes;
  };
  /** The hosted settlement worker (game server, GAME_SETTLEMENT_WORKER=on with TEMPORAL_ADDRESS). */
  hostedWorker?: HostedWorker;
  /**
   * TRUSTED_PROXIES: a request's client address is read from X-Forwarded-For only when its peer is
   * one of these (`resolveClientIp` in @opi/config); else the socket's peer is the client.
   */
  trustedProxies: AddressSet;
  isProduction: boolean;
  /** Where operators' wallets may be (WALLET_ALLOW_PRIVATE_NETWORKS; @opi/workflows address-policy). */
  walletNetwork?: WalletNetworkPolicy;
}
