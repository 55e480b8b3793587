import { loadConfigOrExit } from '@opi/config';
import { createApp } from './app.js';
import { createLogger } from './http/logger.js';

const config = loadConfigOrExit();
const logger = createLogger('api', config.LOG_LEVEL);
const app = createApp({ logger });
const server = app.listen(config.PORT, config.HOST, () => {
  logger.info('api listening', { url: `http://${config.HOST}:${config.PORT}` });
});
server.keepAliveTimeout = 65_000;

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Under the default stack, exit if the supervisor died (no orphaned API processes).
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop();
}, 1000).unref();
