export * from './admin-client.js';
export {
  ADMIN_TOKEN_HEADER,
  type LedgerCheck,
  type LedgerCheckRow,
  ledgerCheck,
  type PlayerProtection,
} from './admin-routes.js';
export * from './app.js';
export * from './callback.js';
export * from './config.js';
export * from './deps.js';
export * from './faults.js';
export * from './logger.js';
export * from './migrate.js';
export { type Answer, type Outcome, WALLET_ERRORS, WalletService } from './wallet-service.js';
export * from './wire-log.js';
