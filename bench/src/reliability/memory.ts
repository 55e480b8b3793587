import { readFileSync } from 'node:fs';

/**
 * Memory of one part of the stack, MB. A single process: its resident set (VmRSS). Several (a
 * PostgreSQL server and its backends): the sum of their proportional set sizes (Pss), so the shared
 * buffers are counted once rather than once per backend.
 */
export function memoryMb(pids: number[]): number | undefined {
  if (pids.length === 1) {
    try {
      const status = readFileSync(`/proc/${pids[0]}/status`, 'utf8');
      const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
      return Number.isFinite(kb) ? kb / 1024 : undefined;
    } catch {
      return undefined;
    }
  }
  let total = 0;
  let seen = 0;
  for (const pid of pids) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const kb = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1]);
      if (Number.isFinite(kb)) {
        total += kb;
        seen++;
      }
    } catch {}
  }
  return seen ? total / 1024 : undefined;
}

export interface MemorySeries {
  name: string;
  /** [seconds since the start of sampling, MB] */
  samples: [number, number][];
}

/** Samples every part's memory every `everyMs` until stopped. */
export class MemorySampler {
  readonly series = new Map<string, MemorySeries>();
  private timer: NodeJS.Timeout | undefined;
  private t0 = 0;

  constructor(private readonly parts: () => { name: string; pids: number[] }[]) {}

  sample(): void {
    const t = (Date.now() - this.t0) / 1000;
    for (const { name, pids } of this.parts()) {
      const mb = memoryMb(pids);
      if (mb === undefined) continue;
      let s = this.series.get(name);
      if (!s) {
        s = { name, samples: [] };
        this.series.set(name, s);
      }
      s.samples.push([t, mb]);
    }
  }

  start(everyMs: number): void {
    this.t0 = Date.now();
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }
}
