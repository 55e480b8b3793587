import { BlockList, isIP } from 'node:net';

/*
 * The portal server's copy of @opi/config's net.ts rules (the portal runs plain Node without the
 * platform's packages): the client's address is the socket's peer unless that peer is one of
 * TRUSTED_PROXIES; then X-Forwarded-For is walked from the right, skipping trusted proxies, and the
 * first untrusted hop is the client. portal-client-address.browser.test.ts checks both agree.
 */

/** `::ffff:10.0.0.1` is `10.0.0.1`; brackets and zone ids go; undefined when not an address. */
export function normalizeIp(raw) {
  let ip = String(raw).trim();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const zone = ip.indexOf('%');
  if (zone > 0) ip = ip.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped?.[1]) ip = mapped[1];
  return isIP(ip) ? ip.toLowerCase() : undefined;
}

/** TRUSTED_PROXIES ("10.0.0.0/8, 127.0.0.1"): a matcher; throws naming the first bad entry. */
export function parseTrustedProxies(text) {
  const list = new BlockList();
  const entries = String(text ?? '')
    .split(/[\s,]+/)
    .filter((e) => e.length > 0);
  for (const entry of entries) {
    const [addr, bits, extra] = entry.split('/');
    const ip = addr && extra === undefined ? normalizeIp(addr) : undefined;
    const family = ip && isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    const max = family === 'ipv6' ? 128 : 32;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
    if (!ip || !(prefix <= max))
      throw new Error(`TRUSTED_PROXIES: not an address or CIDR: ${JSON.stringify(entry)}`);
    list.addSubnet(ip, prefix, family);
  }
  return {
    size: entries.length,
    has(raw) {
      const ip = raw && entries.length ? normalizeIp(raw) : undefined;
      return ip ? list.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4') : false;
    },
  };
}

/** The client's address from the socket's peer and X-Forwarded-For (see above). */
export function resolveClientIp(socketIp, forwardedFor, trusted) {
  const peer = socketIp ? normalizeIp(socketIp) : undefined;
  if (!peer || !trusted.has(peer) || !forwardedFor) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h.length > 0);
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i]);
    if (!hop) break;
    client = hop;
    if (!trusted.has(hop)) break;
  }
  return client;
}
