export * from './app.js';
export * from './auth/keys.js';
export * from './catalog/seed.js';
export * from './create-deps.js';
export type * from './deps.js';
export * from './http/errors.js';
export * from './http/logger.js';
export * from './openapi/document.js';
export { ensureDemoStaff } from './staff/accounts.js';
