import type { Context } from 'koa';

/*
 * What every player-facing page of the game server sends (the slot, native and crash pages and the
 * round replay): one policy and one set of headers, so that no family's page drifts from the others.
 */

/**
 * Same-origin script, styles and images only, no inline code, calls to the page's own origin only,
 * and no HTML string sinks (Trusted Types with no policy allowed). Framing is left open: the
 * operator may show the game in an iframe of its own site.
 */
export const GAME_PAGE_CSP = [
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

/**
 * A launch URL, and a replay link, carry a bearer secret: the page is never cached, never sent on
 * as a referrer and never indexed.
 */
export function gamePageHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', GAME_PAGE_CSP);
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

/** A BCP 47-looking language tag for `<html lang>`, else `en` (the session's lang is free text). */
export function pageLang(lang: string | null | undefined): string {
  return lang && /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}$/.test(lang) ? lang : 'en';
}

/** A query parameter given once, else undefined (absent, or repeated: `?a=1&a=2` is an array). */
export function queryOne(v: string | string[] | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
