import { procTable } from './cpu.js';

/** The pids whose parent is `pid` (Linux /proc; empty elsewhere). */
export function childrenOf(pid: number): number[] {
  return [...procTable()].filter(([, e]) => e.ppid === pid).map(([child]) => child);
}

/**
 * Waits until an API cluster primary has forked `n` processes, then gives them `settleMs` to load
 * and listen (the port answers as soon as the first listens; the primary hands connections only to
 * processes that listen, so a late one would be skipped by the warm-up, not by the measurement).
 */
export async function waitForApiProcesses(primary: number, n: number, settleMs = 6000): Promise<number[]> {
  if (n <= 1) return [primary];
  const deadline = Date.now() + 60_000;
  let kids = childrenOf(primary);
  while (kids.length < n) {
    if (Date.now() > deadline) throw new Error(`the API cluster forked ${kids.length} of ${n} processes`);
    await new Promise((r) => setTimeout(r, 100));
    kids = childrenOf(primary);
  }
  await new Promise((r) => setTimeout(r, settleMs));
  return kids;
}
