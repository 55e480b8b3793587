/**
 * Browsers ask for /favicon.ico on their own (before or beside the page's `<link rel="icon">`,
 * which names app/icon.svg). Answer with that icon instead of a 404 that shows as a console error:
 * a permanent redirect, so a browser asks once. The location is relative: the server's own idea
 * of its address (`request.url`) need not be the one the browser used, and an icon from another
 * origin is refused by the page's Content-Security-Policy (img-src 'self').
 */
export function GET(): Response {
  return new Response(null, { status: 308, headers: { location: '/icon.svg' } });
}
