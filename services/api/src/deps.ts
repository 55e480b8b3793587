import type { AddressSet } from '@opi/config';
import type { Game } from '@opi/contract';
import type { Pool, SecretBox } from '@opi/db';
import type { LocalOutcomes, WalletNetworkPolicy } from '@opi/workflows';
import type { Client } from '@temporalio/client';
import type { KeyStore } from './auth/keys.js';
import type { NonceClaimer } from './auth/nonces.js';
import type { OperatorRow } from './auth/operator-scope.js';
import type { RefreshHub } from './balance-refresh/hub.js';
import type { ChangeFeed, ConfigCache } from './cache/change-feed.js';
import type { PgListener } from './cache/pg-listener.js';
import type { CatalogRow } from './catalog/repository.js';
import type { SlotPlayer } from './engines/slot-player.js';
import type { Logger } from './http/logger.js';
import type { HostedWorker } from './settlement/hosted-worker.js';

/** Everything the API's routes need, built once by main.ts (or a test). */
export interface ApiDeps {
  pool: Pool;
  /** Single-use nonce claims (batched; synchronous_commit off). */
  nonces: NonceClaimer;
  /** The process's one LISTEN connection (the change feed and the refresh hub hear through it). */
  listener: PgListener;
  /** Cross-process change notifications for the in-memory caches. */
  feed: ChangeFeed;
  /** Balance refresh signalling: the game pages' event streams, presence and NOTIFY fan-out. */
  refresh: RefreshHub;
  caches: {
    operators: ConfigCache<OperatorRow | null>;
    catalogs: ConfigCache<Game[]>;
    /** Every title with the operator's assignment (launch resolves games here). */
    catalogRows: ConfigCache<CatalogRow[]>;
  };
  box: SecretBox;
  keys: KeyStore;
  logger: Logger;
  publicBaseUrl: string;
  /** The slot engine the runtime's /spin plays (prov_a, prov_b). */
  slots?: SlotPlayer;
  /** prov_c native titles: the abandon rule's idle time (NATIVE_ABANDON_AFTER_SECONDS; 300 s by default). */
  native?: { abandonAfterSeconds: number };
  /** The settlement workflows' client (absent when TEMPORAL_ADDRESS is not configured). */
  temporal?: {
    client: Client;
    taskQueue: string;
    /**
     * The client on the hosted settlement worker's NativeConnection while that worker polls
     * (API_SETTLEMENT_WORKER=on): round workflows are started with it, eagerly (startRound).
     */
    eagerClient?: Client | null;
    /** The hosted worker's round outcomes, announced in this process (settlement/start-round.ts). */
    outcomes?: LocalOutcomes;
  };
  /** The hosted settlement worker (API_SETTLEMENT_WORKER=on with TEMPORAL_ADDRESS). */
  hostedWorker?: HostedWorker;
  /** STAFF_PORTAL_SECRET: the portal's forwarded client address is believed only with it. */
  staffPortalSecret?: string;
  /**
   * TRUSTED_PROXIES: a request's client address is read from X-Forwarded-For only when its peer is
   * one of these (`resolveClientIp` in @opi/config); else the socket's peer is the client.
   */
  trustedProxies: AddressSet;
  isProduction: boolean;
  /** Where operators' wallets may be (WALLET_ALLOW_PRIVATE_NETWORKS; @opi/workflows address-policy). */
  walletNetwork?: WalletNetworkPolicy;
  signedRequestsRequired: boolean;
  maxSkewSeconds: number;
}
