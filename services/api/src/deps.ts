import type { Game } from '@opi/contract';
import type { PlayDeps } from '@opi/play/deps';
import type { ConfigCache } from '@opi/service-kit/cache/change-feed';
import type { ReplayKeyring } from '@opi/signing';
import type { KeyStore } from './auth/keys.js';
import type { NonceClaimer } from './auth/nonces.js';
import type { OperatorRow } from './auth/operator-scope.js';
import type { CatalogRow } from './catalog/repository.js';

/** Everything the operator API's routes need, built once by create-deps.ts (or a test). */
export interface ApiDeps extends PlayDeps {
  /** Single-use nonce claims (batched; synchronous_commit off). */
  nonces: NonceClaimer;
  caches: {
    operators: ConfigCache<OperatorRow | null>;
    catalogs: ConfigCache<Game[]>;
    /** Every title with the operator's assignment (launch resolves games here). */
    catalogRows: ConfigCache<CatalogRow[]>;
    jackpots: PlayDeps['caches']['jackpots'];
  };
  keys: KeyStore;
  /** PUBLIC_BASE_URL: the operator API's public origin (artwork URLs). */
  publicBaseUrl: string;
  /** GAME_BASE_URL: the game server's public origin, to which every launch URL points. */
  gameBaseUrl: string;
  /**
   * The replay links' keys (`replayKeyringOf`, @opi/play/create-deps; issue 34): the current key
   * signs round_details_url and share links.
   */
  replayKey: ReplayKeyring;
  /** STAFF_PORTAL_SECRET: the portal's forwarded client address is believed only with it. */
  staffPortalSecret?: string;
  signedRequestsRequired: boolean;
  /** JACKPOT_MAX_SHARE_PPM: the most a jackpot definition may return per stake (null: no ceiling). */
  jackpotMaxSharePpm?: number | null;
  maxSkewSeconds: number;
  /** SDK_TARBALL_DIR: where GET /docs/sdk/<file> finds the operator SDK's tarball (unset: the built one). */
  sdkTarballDir?: string;
}
