import { readdirSync, readFileSync } from 'node:fs';

/**
 * Where the CPU goes during a measurement: user+system seconds per part of the stack, read from
 * /proc (Linux; elsewhere the snapshot is empty). Processes are grouped by what they run. Only this
 * process and its descendants count (the stack the benchmark started), not other stacks that share
 * the machine (another checkout's tests, a second benchmark).
 */
export type CpuSnapshot = Map<string, number>;

const TICKS_PER_SECOND = 100;

function labelOf(pid: string): string | undefined {
  if (Number(pid) === process.pid) return 'bench client';
  let cmd: string;
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
  if (/\btemporal\b.*server/.test(cmd)) return 'temporal dev server';
  if (/postgres/.test(cmd)) return 'postgresql';
  if (cmd.includes('services/worker/')) return 'worker';
  if (cmd.includes('services/wallet-sandbox/')) return 'wallet sandbox';
  if (cmd.includes('services/api/')) return 'api';
  if (cmd.includes('services/game-server/')) return 'game';
  return undefined;
}

export interface ProcEntry {
  ppid: number;
  /** user + system + reaped children's CPU seconds. */
  seconds: number;
}

/**
 * Every process's parent and CPU seconds, from /proc (empty elsewhere). Fields after the
 * parenthesised command name: ppid is field 4, utime 14, stime 15, and the reaped children's cutime
 * 16, cstime 17 (1-based). With the children's time a process that ends during a measurement (a
 * PostgreSQL backend whose idle pool connection closes) keeps counting in its parent instead of
 * taking its whole past CPU out of the difference.
 */
export function procTable(): Map<number, ProcEntry> {
  const stats = new Map<number, ProcEntry>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p));
  } catch {
    return stats;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(pid), {
        ppid: Number(fields[1]),
        seconds:
          (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) /
          TICKS_PER_SECOND,
      });
    } catch {
      // The process ended between listing and reading.
    }
  }
  return stats;
}

/** `root` and every descendant of it in `table`. */
export function descendants(table: Map<number, ProcEntry>, root: number): Set<number> {
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, { ppid }] of table)
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
  }
  return tree;
}

export function cpuSnapshot(): CpuSnapshot {
  const out: CpuSnapshot = new Map();
  const stats = procTable();
  for (const pid of descendants(stats, process.pid)) {
    const label = labelOf(String(pid));
    const stat = stats.get(pid);
    if (label && stat) out.set(label, (out.get(label) ?? 0) + stat.seconds);
  }
  return out;
}

/** CPU seconds spent per part between two snapshots, divided by `units` (say, per round, in ms). */
export function cpuPerUnit(before: CpuSnapshot, after: CpuSnapshot, units: number): [string, number][] {
  return [...after.entries()]
    .map(([label, s]): [string, number] => [label, ((s - (before.get(label) ?? 0)) * 1000) / units])
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1]);
}
