export * from './app.js';
export * from './http/errors.js';
export * from './http/logger.js';
