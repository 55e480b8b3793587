/**
 * The game server's entry point in every stack and of deployments that want several processes per
 * host: with GAME_PROCESSES = 1 it is main.ts; with N > 1 this process is a cluster primary that
 * forks N game-server processes sharing GAME_SERVER_PORT (@opi/play's startCluster), with their summed metrics on
 * GAME_METRICS_PORT.
 */
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit } from '@opi/config';
import { startCluster } from '@opi/play/ops/cluster';

const config = loadConfigOrExit();

if (config.GAME_PROCESSES <= 1 || cluster.isWorker) {
  await import('./main.js');
} else {
  await startCluster({
    name: 'game-server',
    main: fileURLToPath(
      new URL(import.meta.url.endsWith('.ts') ? './main.ts' : './main.js', import.meta.url),
    ),
    processes: config.GAME_PROCESSES,
    port: config.GAME_SERVER_PORT,
    metricsPort: config.GAME_METRICS_PORT,
    config,
  });
}
