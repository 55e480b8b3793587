export * from './artwork.js';
export * from './catalog.js';
