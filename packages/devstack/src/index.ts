export * from './paths.js';
export * from './portal.js';
export * from './processes.js';
export * from './secrets.js';
export * from './temporal-cli.js';
export * from './temporal-cluster.js';
export * from './temporal-server.js';
export * from './wait.js';
