export * from './app.js';
export * from './create-deps.js';
export type * from './deps.js';
