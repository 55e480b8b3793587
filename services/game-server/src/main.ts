import { createLogger, loadConfigOrExit } from '@opi/config';
import { serveProcess } from '@opi/play/ops/serve';
import { RankSnapshotRefresher } from '@opi/play/promotions/rank-snapshots';
import { installTemporalRuntime } from '@opi/workflows/worker';
import { createGameApp } from './app.js';
import { createGameDeps } from './create-deps.js';

const config = loadConfigOrExit();
const log = createLogger('game-server', config.LOG_LEVEL);
// The hosted settlement worker drains when deps.close() runs, after the server has stopped taking
// requests (serveProcess stops it on a signal), not at the signal itself (the SDK's default). The SDK's own lines
// go through the game server's logger at LOG_LEVEL (one per process under the cluster).
installTemporalRuntime({
  level: config.LOG_LEVEL,
  log,
  shutdownSignals: [],
  // The hosted worker's SDK metrics: one port per process (PROCESS_INDEX under the cluster).
  ...(config.TEMPORAL_SDK_METRICS_PORT && config.GAME_SETTLEMENT_WORKER === 'on'
    ? {
        metricsAddress: `${config.HOST}:${config.TEMPORAL_SDK_METRICS_PORT + Number(process.env.PROCESS_INDEX ?? 0)}`,
      }
    : {}),
});
const deps = await createGameDeps(config);
// The tournaments' rank snapshot (issue 34 point 8): every process ticks; whichever holds the
// advisory lock rebuilds it when it is due (@opi/play/promotions/rank-snapshots).
const ranks = new RankSnapshotRefresher(deps.pool, log).start();
serveProcess({
  config,
  deps,
  handler: createGameApp(deps).callback(),
  port: config.GAME_SERVER_PORT,
  // Under GAME_PROCESSES > 1 the cluster primary serves the sum instead (cluster.ts).
  metricsPort: config.GAME_METRICS_PORT,
  listening: { message: 'game server listening', fields: { game_base_url: deps.gameBaseUrl } },
  // Open event streams would hold server.close() until the grace timeout: end them first.
  onStop: () => {
    void ranks.stop();
    deps.refresh.closeStreams();
  },
});
