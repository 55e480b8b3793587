import type { Config } from '@opi/config';
import { createPlayDeps, gameBaseUrl, replayKeyringOf } from '@opi/play/create-deps';
import { createSlotPlayer } from '@opi/play/engines/slot-player';
import { ConfigCache } from '@opi/service-kit/cache/change-feed';
import type { GameDeps } from './deps.js';
import { JackpotTicker } from './jackpots/ticker.js';

/** Builds the game server's dependencies: the shared play ones, the engines, the hosted worker. */
export async function createGameDeps(config: Config): Promise<GameDeps & { close(): Promise<void> }> {
  const play = await createPlayDeps(config, {
    name: 'game-server',
    hostWorker: config.GAME_SETTLEMENT_WORKER === 'on',
  });
  const jackpots = new JackpotTicker(play.pool, (subscriber, tick) =>
    play.refresh.sendTo(subscriber, 'jackpot', tick),
  );
  return {
    ...play,
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
      await play.close();
    },
  };
}
