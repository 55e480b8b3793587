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

/** A free TCP port chosen by the kernel. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
