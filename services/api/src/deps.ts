import type { Pool, SecretBox } from '@opi/db';
import type { KeyStore } from './auth/keys.js';
import type { Logger } from './http/logger.js';

/** Everything the API's routes need, built once by main.ts (or a test). */
export interface ApiDeps {
  pool: Pool;
  /** synchronous_commit=off pool for nonce claims. */
  noncePool: Pool;
  box: SecretBox;
  keys: KeyStore;
  logger: Logger;
  publicBaseUrl: string;
  isProduction: boolean;
  signedRequestsRequired: boolean;
  maxSkewSeconds: number;
}
