import type { Config } from '@opi/config';
import { createPlayDeps, gameBaseUrl, replayKeyringOf } from '@opi/play/create-deps';
import { createSlotPlayer } from '@opi/play/engines/slot-player';
import { ConfigCache } from '@opi/service-kit/cache/change-feed';
import { walletNetworkPolicy } from '@opi/wallet';
import type { GameDeps } from './deps.js';
import { JackpotTicker } from './jackpots/ticker.js';
import { type HostedWorker, startHostedWorker } from './settlement/hosted-worker.js';
import { createLocalOutcomes } from './settlement/local-outcomes.js';

/** Builds the game server's dependencies: the shared play ones, the engines, the hosted worker. */
export async function createGameDeps(config: Config): Promise<GameDeps & { close(): Promise<void> }> {
  const play = await createPlayDeps(config, { name: 'game-server' });
  // The same object as play's: the hosted worker sets its eager client on it.
  const temporal: GameDeps['temporal'] = play.temporal;
  if (temporal) temporal.eagerClient = null;
  // The process's own settlement worker (GAME_SETTLEMENT_WORKER=on): round workflows it starts run
  // here, eagerly.
  let hosted: HostedWorker | undefined;
  if (temporal && config.TEMPORAL_ADDRESS && config.GAME_SETTLEMENT_WORKER === 'on') {
    // Its activities tell the routes each round's outcome as soon as it is recorded.
    const outcomes = createLocalOutcomes();
    temporal.outcomes = outcomes;
    hosted = startHostedWorker({
      outcomes,
      address: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      pool: play.pool,
      box: play.box,
      walletTimeoutMs: config.WALLET_TIMEOUT_MS,
      requireHttps: config.isProduction,
      allowPrivateNetworks: walletNetworkPolicy(config).allowPrivate,
      maxConcurrentActivities: config.WORKER_MAX_ACTIVITIES,
      maxConcurrentWorkflowTasks: config.WORKER_MAX_WORKFLOW_TASKS,
      ...(config.WORKER_BUILD_ID
        ? { deployment: { name: config.WORKER_DEPLOYMENT_NAME, buildId: config.WORKER_BUILD_ID } }
        : {}),
      logger: play.logger,
      onEagerClient: (client) => {
        temporal.eagerClient = client;
      },
    });
  }
  const jackpots = new JackpotTicker(play.pool, (subscriber, tick) =>
    play.refresh.sendTo(subscriber, 'jackpot', tick),
  );
  return {
    ...play,
    ...(temporal ? { temporal } : {}),
    ...(hosted ? { hostedWorker: hosted } : {}),
    slots: createSlotPlayer(),
    native: { abandonAfterSeconds: config.NATIVE_ABANDON_AFTER_SECONDS },
    spinWaitMs: config.SPIN_WAIT_MS,
    spinRefusals: { limit: config.SPIN_REFUSALS_LIMIT, windowSeconds: config.SPIN_REFUSALS_WINDOW_SECONDS },
    gameBaseUrl: gameBaseUrl(config),
    replayKey: replayKeyringOf(config),
    jackpots,
    prizeDrops: new ConfigCache(play.feed),
    async close() {
      jackpots.stop();
      // Drains the hosted worker first: workflow tasks and wallet steps in hand finish.
      await hosted?.stop();
      await play.close();
    },
  };
}
