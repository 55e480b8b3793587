/**
 * The API entry point of the default stack and of deployments that want several processes per
 * host: with API_PROCESSES = 1 it is main.ts; with N > 1 this process is a cluster primary that
 * forks N API processes sharing PORT (@opi/play's startCluster), with their summed metrics on
 * API_METRICS_PORT.
 */
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit } from '@opi/config';
import { startCluster } from '@opi/play/ops/cluster';

const config = loadConfigOrExit();

if (config.API_PROCESSES <= 1 || cluster.isWorker) {
  await import('./main.js');
} else {
  await startCluster({
    name: 'api',
    main: fileURLToPath(
      new URL(import.meta.url.endsWith('.ts') ? './main.ts' : './main.js', import.meta.url),
    ),
    processes: config.API_PROCESSES,
    port: config.PORT,
    metricsPort: config.API_METRICS_PORT,
    config,
  });
}
