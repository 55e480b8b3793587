export * from './load-config.js';
export * from './schema.js';
