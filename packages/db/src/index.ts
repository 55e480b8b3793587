export * from './admin.js';
export * from './bootstrap.js';
export * from './exchange-rates.js';
export * from './migrate.js';
export * from './pool.js';
export * from './round-reconciliation.js';
export * from './secret-box.js';
export * from './seed.js';
