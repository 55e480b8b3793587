import { BlockList, isIP } from 'node:net';

/**
 * Address ranges, parsed once: TRUSTED_PROXIES and the wallet URL rules (issue 23) share them.
 * Built on node:net's BlockList, so IPv4 and IPv6 are both exact (no string prefix tricks).
 */

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is `10.0.0.1`; brackets and zone ids go. */
export function normalizeIp(raw: string): string | undefined {
  let ip = raw.trim();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const zone = ip.indexOf('%');
  if (zone > 0) ip = ip.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped?.[1]) ip = mapped[1];
  return isIP(ip) ? ip.toLowerCase() : undefined;
}

/** A list of addresses and CIDRs ("10.0.0.0/8, 127.0.0.1, fd00::/8"); each entry must parse. */
export class AddressSet {
  readonly entries: readonly string[];
  private readonly list = new BlockList();

  constructor(entries: readonly string[]) {
    this.entries = entries;
    for (const entry of entries) {
      const parsed = parseCidr(entry);
      if (!parsed) throw new Error(`not an address or CIDR: ${JSON.stringify(entry)}`);
      this.list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
  }

  /** Parses a comma- or space-separated list; throws naming the first bad entry. */
  static parse(text: string | undefined): AddressSet {
    return new AddressSet(
      (text ?? '')
        .split(/[\s,]+/)
        .map((e) => e.trim())
        .filter((e) => e.length > 0),
    );
  }

  get size(): number {
    return this.entries.length;
  }

  has(rawIp: string | undefined): boolean {
    if (!rawIp || this.entries.length === 0) return false;
    const ip = normalizeIp(rawIp);
    if (!ip) return false;
    return this.list.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
  }
}

/** `10.0.0.0/8` or a bare address (a /32 or /128). */
export function parseCidr(
  entry: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [addr, bits, extra] = entry.split('/');
  if (extra !== undefined || !addr) return undefined;
  const ip = normalizeIp(addr);
  if (!ip) return undefined;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  const max = family === 'ipv6' ? 128 : 32;
  if (bits === undefined) return { address: ip, prefix: max, family };
  if (!/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  return prefix <= max ? { address: ip, prefix, family } : undefined;
}

/**
 * The client's address for limits and audit: the socket's peer, unless that peer is a trusted
 * proxy; then X-Forwarded-For is walked from the right, skipping trusted proxies, and the first
 * untrusted hop is the client (entries a client wrote itself sit further left and are never read).
 * An entry that is not an address ends the walk at the last trusted hop.
 */
export function resolveClientIp(
  socketIp: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: AddressSet,
): string | undefined {
  const peer = socketIp ? normalizeIp(socketIp) : undefined;
  if (!peer || !trusted.has(peer) || !forwardedFor) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h.length > 0);
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i] as string);
    if (!hop) break;
    client = hop;
    if (!trusted.has(hop)) break;
  }
  return client;
}

/**
 * Never a wallet: link-local (where cloud metadata services live) and the metadata addresses
 * that sit outside it. Refused in every environment.
 */
export const FORBIDDEN_WALLET_RANGES = new AddressSet([
  '169.254.0.0/16',
  'fe80::/10',
  '100.100.100.200',
  'fd00:ec2::254',
  '0.0.0.0/8',
  '::/128',
]);

/**
 * Inside a network: loopback, private (RFC 1918), carrier-grade NAT, unique-local IPv6, and IPv4
 * reached through IPv6 transition prefixes that could smuggle any of them. Refused for wallets in
 * production unless WALLET_ALLOW_PRIVATE_NETWORKS=1.
 */
export const PRIVATE_RANGES = new AddressSet([
  '127.0.0.0/8',
  '::1/128',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  'fc00::/7',
  '64:ff9b::/96',
  '2002::/16',
]);
