import { portalOrigin } from './session';

/**
 * CSRF defence for every POST (login included): the session cookie is SameSite=Strict, and the
 * request must come from the portal's own origin: `Sec-Fetch-Site: same-origin` where the browser
 * sends it, and an `Origin` (or, without one, a `Referer`) equal to the portal's origin. A POST
 * with neither is refused.
 */
export function sameOrigin(req: Request): boolean {
  const site = req.headers.get('sec-fetch-site');
  if (site && site !== 'same-origin') return false;
  const expected = portalOrigin(req.headers);
  const origin = req.headers.get('origin');
  if (origin) return origin === expected;
  const referer = req.headers.get('referer');
  if (!referer) return false;
  try {
    return new URL(referer).origin === expected;
  } catch {
    return false;
  }
}
