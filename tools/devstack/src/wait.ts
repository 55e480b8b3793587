import { readFileSync } from 'node:fs';
import net from 'node:net';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves once something accepts TCP connections on host:port, or rejects after timeoutMs. */
export async function waitForPort(
  host: string,
  port: number,
  timeoutMs: number,
  isDead?: () => string | undefined,
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = isDead?.();
    if (dead) throw new Error(dead);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`nothing listened on ${host}:${port} within ${timeoutMs} ms`);
}

/** Whether host:port is free to bind. */
export function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** The kernel's range for the local ports of outgoing connections (Linux), or its default. */
function ephemeralRange(): [number, number] {
  try {
    const [lo = 0, hi = 0] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (Number.isInteger(lo) && Number.isInteger(hi) && lo > 0 && hi >= lo) return [lo, hi];
  } catch {
    // not Linux: the IANA dynamic range
  }
  return [49152, 65535];
}

const handedOut = new Set<number>();

/**
 * A free TCP port for a server that will bind it a while later. A port the kernel picks (listen on 0)
 * comes from the ephemeral range, which every outgoing connection of every process also draws from:
 * in a busy test run one of them can take it between this call and the bind (CI saw "WALLET_PORT is
 * in use" ten seconds after the pick). So the port is drawn at random from outside that range, checked
 * free, and never handed out twice by this process; the kernel's pick is the fallback.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [lo, hi] = ephemeralRange();
  const ranges: Array<[number, number]> = [];
  if (lo - 1 >= 10_000) ranges.push([10_000, lo - 1]);
  if (hi + 1 <= 65_535) ranges.push([hi + 1, 65_535]);
  const sizes = ranges.map(([a, b]) => b - a + 1);
  const total = sizes.reduce((a, b) => a + b, 0);
  for (let attempt = 0; total > 0 && attempt < 100; attempt++) {
    let n = Math.floor(Math.random() * total);
    let port = 0;
    for (let i = 0; i < ranges.length; i++) {
      if (n < sizes[i]!) {
        port = ranges[i]![0] + n;
        break;
      }
      n -= sizes[i]!;
    }
    if (handedOut.has(port)) continue;
    if (await portFree(host, port)) {
      handedOut.add(port);
      return port;
    }
  }
  return kernelPort(host);
}

function kernelPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
