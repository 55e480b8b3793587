export * from './client.js';
export * from './errors.js';
export * from './money.js';
export * from './reconciliation-diff.js';
export * from './round-set.js';
export {
  checkWalletSignature,
  type OperatorRequestToSign,
  operatorSignatureHeaders,
  operatorStringToSign,
  sha256Hex,
  type WalletSignatureFailure,
  walletSignature,
} from './signing.js';
export type * from './types.js';
export * from './wallet/adapters.js';
export * from './wallet/callback-kinds.js';
export * from './wallet/nonce-store.js';
export * from './wallet/verifier.js';
