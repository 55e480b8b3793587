/**
 * The browser's address for the API's login limits and audit log: the last X-Forwarded-For entry
 * (the one the nearest proxy, or Next itself, appended). Behind a reverse proxy, let it set the
 * header; the API believes it only with the portal's shared secret.
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
