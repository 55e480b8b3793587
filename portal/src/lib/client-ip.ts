/**
 * The browser's address for the API's login limits and audit log. portal/server.mjs overwrites
 * X-Forwarded-For with the one address it resolved (the socket's peer, or, only when that peer is
 * one of TRUSTED_PROXIES, the first untrusted hop of the proxy's header) before Next sees the
 * request, so the header holds exactly that address; the last entry is read all the same. The API
 * believes it only with the portal's shared secret.
 */
export function clientIp(headers: Headers): string | undefined {
  const xff = headers.get('x-forwarded-for');
  if (!xff) return undefined;
  const last = xff
    .split(',')
    .pop()
    ?.trim()
    .replace(/^::ffff:/, '');
  return last && /^[0-9A-Fa-f:.]{2,64}$/.test(last) ? last : undefined;
}
