import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { FORBIDDEN_WALLET_RANGES, normalizeIp, PRIVATE_RANGES } from '@opi/config';

/*
 * Where an operator's wallet may live (issue 23 point 5; docs/settlement.md "Wallet addresses").
 * Link-local and cloud metadata addresses are never a wallet. Loopback and private networks are
 * refused in production unless WALLET_ALLOW_PRIVATE_NETWORKS=1 (a wallet inside the same private
 * network, or the cluster stack's sandbox wallet on 127.0.0.1). Checked when a wallet URL is
 * written (422) and again at every connection, on the address the name resolved to then.
 */

export interface WalletNetworkPolicy {
  /** Loopback and private ranges allowed: development and test, or WALLET_ALLOW_PRIVATE_NETWORKS=1. */
  allowPrivate: boolean;
}

/** The error code of a connection refused by the policy (the settlement's configuration fault). */
export const WALLET_ADDRESS_REFUSED = 'EWALLETADDRESS';

/** The policy a process runs with: private networks allowed outside production, or when told. */
export function walletNetworkPolicy(config: {
  isProduction: boolean;
  WALLET_ALLOW_PRIVATE_NETWORKS?: string | undefined;
}): WalletNetworkPolicy {
  return { allowPrivate: !config.isProduction || config.WALLET_ALLOW_PRIVATE_NETWORKS === '1' };
}

/** The 8 groups of an IPv6 address, or undefined. */
function ipv6Groups(ip: string): number[] | undefined {
  let text = ip;
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<string>(fill).fill('0'), ...tail].map((g) => Number.parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * The IPv4 address an IPv6 one carries where a transition mechanism would reach it: IPv4-mapped
 * and -compatible (::ffff:a.b.c.d, ::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002:aabb:ccdd::).
 */
function embeddedIpv4(ip: string): string | undefined {
  if (isIP(ip) !== 6) return undefined;
  const g = ipv6Groups(ip);
  if (!g) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!);
  if (zeros(0, 6) && (g[6] !== 0 || g[7]! > 1)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6]!, g[7]!);
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!);
  return undefined;
}

/** Why an address cannot be a wallet's under the policy, or undefined when it can. */
export function walletAddressRefusal(rawIp: string, policy: WalletNetworkPolicy): string | undefined {
  // A pure function of the address and the policy, asked on every wallet call (a literal host) and
  // connection: remembered for the few addresses wallets have (block-list lookups are not cheap).
  const key = `${policy.allowPrivate ? 'p' : '-'}${rawIp}`;
  const known = refusals.get(key);
  if (known !== undefined) return known === '' ? undefined : known;
  const reason = addressRefusal(rawIp, policy);
  if (refusals.size >= 1024) refusals.clear();
  refusals.set(key, reason ?? '');
  return reason;
}
const refusals = new Map<string, string>();

function addressRefusal(rawIp: string, policy: WalletNetworkPolicy): string | undefined {
  const ip = normalizeIp(rawIp);
  if (!ip) return 'not an address';
  const candidates = [ip, embeddedIpv4(ip)].filter((a): a is string => a !== undefined);
  if (candidates.some((a) => FORBIDDEN_WALLET_RANGES.has(a)))
    return 'a link-local or cloud metadata address, never a wallet';
  if (!policy.allowPrivate && candidates.some((a) => PRIVATE_RANGES.has(a)))
    return 'a loopback or private-network address, refused in production unless WALLET_ALLOW_PRIVATE_NETWORKS=1';
  return undefined;
}

/** The error a refused connection fails with (code WALLET_ADDRESS_REFUSED). */
export function walletAddressError(host: string, ip: string, reason: string): Error {
  const named = normalizeIp(host) === normalizeIp(ip) ? ip : `${host} (${ip})`;
  return Object.assign(new Error(`wallet address ${named} refused: ${reason}`), {
    code: WALLET_ADDRESS_REFUSED,
  });
}

/** `localhost` and `*.localhost` are loopback whatever a resolver says (RFC 6761). */
function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/**
 * A `lookup` for the wallet client's sockets: resolves as usual, then refuses the connection when
 * any address the name resolved to is refused by the policy (the address connected to is the one
 * checked: a DNS answer that changes after the URL was written is caught here).
 */
export function guardedLookup(
  policy: WalletNetworkPolicy,
  resolve: typeof dns.lookup = dns.lookup,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      const list = addresses as dns.LookupAddress[];
      for (const a of list) {
        const reason = walletAddressRefusal(a.address, policy);
        if (reason) {
          callback(walletAddressError(hostname, a.address, reason) as NodeJS.ErrnoException, '', 0);
          return;
        }
      }
      const first = list[0];
      if (!first) {
        callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        return;
      }
      if (options.all) callback(null, list);
      else callback(null, first.address, first.family);
    });
  };
}

/** The host of a URL, without the brackets of an IPv6 literal. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Before connecting: a URL whose host is an address literal (no lookup happens for it).
 * Undefined when the host is a name, left to the guarded lookup.
 */
export function literalHostRefusal(url: URL, policy: WalletNetworkPolicy): Error | undefined {
  const host = hostOf(url);
  if (isIP(host)) {
    const reason = walletAddressRefusal(host, policy);
    return reason ? walletAddressError(host, host, reason) : undefined;
  }
  return undefined;
}

const WRITE_LOOKUP_MS = 2_000;

/**
 * Whether a wallet URL may be stored (operator create and update): HTTPS in production, and a host
 * that is not, and does not resolve to, a refused address. A name that does not resolve now is
 * accepted (the wallet's DNS may not exist yet): every connection is checked again anyway.
 * Returns why it is refused, or undefined.
 */
export async function walletUrlRefusal(
  raw: string,
  policy: WalletNetworkPolicy & { requireHttps: boolean },
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (policy.requireHttps && url.protocol !== 'https:') return 'must be an https:// URL in production';
  const literal = literalHostRefusal(url, policy);
  if (literal) return literal.message;
  const host = hostOf(url);
  if (isIP(host)) return undefined;
  if (isLocalhostName(host)) {
    const reason = walletAddressRefusal('127.0.0.1', policy);
    return reason ? walletAddressError(host, '127.0.0.1', reason).message : undefined;
  }
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    dns.promises.lookup(host, { all: true }).catch(() => [] as dns.LookupAddress[]),
    new Promise<dns.LookupAddress[]>((r) => {
      timer = setTimeout(() => r([]), WRITE_LOOKUP_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  for (const a of addresses) {
    const reason = walletAddressRefusal(a.address, policy);
    if (reason) return walletAddressError(host, a.address, reason).message;
  }
  return undefined;
}
