export * from './artwork.js';
export * from './catalog.js';
export * from './native/index.js';
export * from './slots/index.js';
