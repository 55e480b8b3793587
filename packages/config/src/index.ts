export * from './chromium.js';
export * from './load-config.js';
export * from './logger.js';
export * from './metrics-server.js';
export * from './net.js';
export * from './schema.js';
export * from './serve.js';
