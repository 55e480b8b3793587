import type { Context } from 'koa';

/*
 * The replay page's headers: the game pages' (src/pages/routes.ts PAGE_CSP and pageHeaders; the
 * replay is shared by every family, so it keeps its own copy instead of importing the slot
 * family's; replay.test.ts asserts the CSP is the same string).
 */

/** Same-origin script, styles and images, no inline code, no HTML sinks (Trusted Types, no policy). */
export const REPLAY_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** The link is a credential: the page is never cached, never sent as a referrer, never indexed. */
export function replayPageHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', REPLAY_PAGE_CSP);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Robots-Tag', 'noindex, nofollow');
  ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
}

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
