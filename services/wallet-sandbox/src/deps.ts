import { createPool, type Pool } from '@opi/db';
import type { WalletDeps } from './app.js';
import type { WalletConfig } from './config.js';
import { FaultInjector } from './faults.js';
import { createLogger, type Logger } from './logger.js';
import { WireLog } from './wire-log.js';

/** Builds the wallet's dependencies from its configuration (main.ts). */
export function createWalletDeps(
  config: WalletConfig,
): WalletDeps & { pool: Pool; logger: Logger; close(): Promise<void> } {
  if (!config.databaseUrl) throw new Error('DATABASE_URL is required');
  const pool = createPool(config.databaseUrl, {
    max: config.databasePoolSize,
    applicationName: 'opi-wallet-sandbox',
  });
  const wireLog = config.wireLogFile ? new WireLog(config.wireLogFile) : undefined;
  return {
    pool,
    logger: createLogger('wallet-sandbox', config.logLevel),
    adminToken: config.adminToken,
    maxSkewSeconds: config.maxSkewSeconds,
    autoCreatePlayersWithMinor: config.autoCreatePlayersWithMinor,
    faults: new FaultInjector(config.faults ?? {}),
    ...(wireLog ? { wireLog } : {}),
    async close() {
      wireLog?.close();
      await pool.end();
    },
  };
}
