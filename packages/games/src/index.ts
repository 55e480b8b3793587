export * from './artwork.js';
export * from './catalog.js';
export * from './crash/index.js';
export * from './native/index.js';
export * from './slots/index.js';
