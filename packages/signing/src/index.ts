export * from './headers.js';
export * from './hmac.js';
export * from './operator.js';
export * from './replay-links.js';
export * from './round-set.js';
export * from './timestamp.js';
export * from './verify.js';
export * from './wallet.js';
