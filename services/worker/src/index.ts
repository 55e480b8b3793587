export * from './create-worker.js';
