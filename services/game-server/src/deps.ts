import type { PlayDeps } from '@opi/play/deps';
import type { SlotPlayer } from '@opi/play/engines/slot-player';
import type { ConfigCache } from '@opi/service-kit/cache/change-feed';
import type { ReplayKeyring } from '@opi/signing';
import type { Client } from '@temporalio/client';
import type { JackpotTicker } from './jackpots/ticker.js';
import type { SpinPrizeDrop } from './promotions/prize-drop.js';
import type { HostedWorker } from './settlement/hosted-worker.js';
import type { LocalOutcomes } from './settlement/local-outcomes.js';

/** Everything the game server's routes need, built once by its create-deps.ts (or a test). */
export interface GameDeps extends PlayDeps {
  /** The settlement workflows' client, and what the hosted worker adds to it. */
  temporal?: NonNullable<PlayDeps['temporal']> & {
    /**
     * The client on the hosted settlement worker's NativeConnection while that worker polls
     * (GAME_SETTLEMENT_WORKER=on): round workflows are started with it, eagerly (startRound).
     */
    eagerClient?: Client | null;
    /** The hosted worker's round outcomes, announced in this process (settlement/start-round.ts). */
    outcomes?: LocalOutcomes;
  };
  /** The hosted settlement worker (GAME_SETTLEMENT_WORKER=on with TEMPORAL_ADDRESS). */
  hostedWorker?: HostedWorker;
  /** The slot engine the runtime's /spin plays (prov_a, prov_b). */
  slots?: SlotPlayer;
  /** prov_c native titles: the abandon rule's idle time (NATIVE_ABANDON_AFTER_SECONDS; 300 s by default). */
  native?: { abandonAfterSeconds: number };
  /** How long a spin waits for its settlement before answering `pending` (SPIN_WAIT_MS; 15 s by default). */
  spinWaitMs?: number;
  /**
   * Paid spins: SPIN_REFUSALS_LIMIT refused wagers of a player within SPIN_REFUSALS_WINDOW_SECONDS,
   * then 429 (slots/refused-wagers.ts; its defaults when absent).
   */
  spinRefusals?: { limit: number; windowSeconds: number };
  /** GAME_BASE_URL: the game server's public origin (every launch URL points at it). */
  gameBaseUrl: string;
  /**
   * The replay links' keys (`replayKeyringOf`, @opi/play/create-deps; issue 34): the current key
   * signs new links (a round's details link in its intent, the history's share links); the replay
   * page accepts the current, retired ones until their dates and the legacy (SERVICE_SECRET's) one.
   */
  replayKey: ReplayKeyring;
  /** The pages' live jackpot values (jackpots/ticker.ts). */
  jackpots: JackpotTicker;
  /** The prize drop a session's spins may win, per operator, title and currency (change feed). */
  prizeDrops: ConfigCache<SpinPrizeDrop | null>;
}
