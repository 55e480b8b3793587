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

/** How the load run judges a series: the knobs of `judgeMemory`. */
export interface MemoryRule {
  /** Samples before this (seconds since sampling started) are the warm-up: not judged. */
  warmupSeconds: number;
  /** The last part of the run judged for a climb, as a fraction of the sampled span (0.4: 4 of 10 min). */
  tailFraction: number;
  /** A climb faster than this, MB per minute, over both the last part and the whole run is a leak. */
  maxClimbMbPerMin: number;
}

export interface MemoryJudgment {
  /** Facts kept from the old growth rule (reported, not judged): median of the first tenth after warm-up. */
  afterWarmupMb: number;
  /** Median of the last tenth. */
  endMb: number;
  peakMb: number;
  /** endMb / afterWarmupMb - 1. */
  growth: number;
  /** Theil–Sen slope of every sample after the warm-up, MB/min. */
  runSlopeMbPerMin: number;
  /** Theil–Sen slope of the floor (the least memory held from each sample on) over the last part, MB/min. */
  tailSlopeMbPerMin: number;
  /** The rate judged: the smaller of the two slopes, MB/min. */
  climbMbPerMin: number;
  /** The climb as a share of the last part's median level, % per hour. */
  pctPerHour: number;
  /** Where the last part starts, seconds since sampling started. */
  tailFromSeconds: number;
  /** At least three samples after the warm-up and three in the last part. */
  judged: boolean;
  /** judged, and the climb is faster than the rule allows. */
  leaking: boolean;
}

/** The lower median (the old growth rule's, kept so its figures stay comparable across reports). */
function lowerMedian(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : Number.NaN;
}

/**
 * Theil–Sen slope: the median of the slopes between every pair of samples, in MB per minute. A GC
 * drop or a spike moves a handful of the pairs, not their median, so one sample cannot make or
 * hide a climb the way it can a least-squares fit.
 */
export function theilSenMbPerMin(samples: [number, number][]): number {
  const slopes: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    for (let j = i + 1; j < samples.length; j++) {
      const dt = samples[j]![0] - samples[i]![0];
      if (dt > 0) slopes.push(((samples[j]![1] - samples[i]![1]) / dt) * 60);
    }
  }
  if (!slopes.length) return Number.NaN;
  slopes.sort((a, b) => a - b);
  const mid = slopes.length >> 1;
  return slopes.length % 2 ? slopes[mid]! : (slopes[mid - 1]! + slopes[mid]!) / 2;
}

/** For each sample, the least memory held from it to the end: what the process did not give back. */
export function floorOf(samples: [number, number][]): [number, number][] {
  const out: [number, number][] = new Array(samples.length);
  let least = Number.POSITIVE_INFINITY;
  for (let i = samples.length - 1; i >= 0; i--) {
    least = Math.min(least, samples[i]![1]);
    out[i] = [samples[i]![0], least];
  }
  return out;
}

/**
 * Judges one part's memory over the load run: does it still climb, the way a leak does?
 *
 * A leak is memory that is never given back, so it shows as a floor that keeps rising, and it
 * rises at the same rate all run long (the load is steady after the warm-up). Two slopes, both
 * Theil–Sen, must exceed `maxClimbMbPerMin`:
 * - the floor's over the last part (`tailFraction` of the run): a working set that grew once and
 *   levelled off has a flat floor there, and so does memory that climbed and was then collected
 *   (the floor is the least held from each sample to the end, so a late GC drop flattens it);
 * - every sample's after the warm-up: a long GC sawtooth whose upswing happens to fill the last
 *   part climbs there, but not over the run.
 * The old growth figure (median of the first tenth after warm-up against the last tenth) is kept
 * as a fact.
 */
export function judgeMemory(samples: [number, number][], rule: MemoryRule): MemoryJudgment {
  const after = samples.filter(([t]) => t >= rule.warmupSeconds);
  const window = Math.max(3, Math.round(after.length / 10));
  const afterWarmupMb = lowerMedian(after.slice(0, window).map(([, mb]) => mb));
  const endMb = lowerMedian(after.slice(-window).map(([, mb]) => mb));
  const lastT = samples.length ? samples[samples.length - 1]![0] : 0;
  const tailFromSeconds = Math.max(rule.warmupSeconds, lastT * (1 - rule.tailFraction));
  const tail = samples.filter(([t]) => t >= tailFromSeconds);
  const judged = after.length >= 3 && tail.length >= 3;
  const runSlopeMbPerMin = theilSenMbPerMin(after);
  const tailSlopeMbPerMin = theilSenMbPerMin(floorOf(tail));
  const climbMbPerMin = Math.min(runSlopeMbPerMin, tailSlopeMbPerMin);
  const level = lowerMedian(tail.map(([, mb]) => mb));
  return {
    afterWarmupMb,
    endMb,
    peakMb: samples.length ? Math.max(...samples.map(([, mb]) => mb)) : Number.NaN,
    growth: endMb / afterWarmupMb - 1,
    runSlopeMbPerMin,
    tailSlopeMbPerMin,
    climbMbPerMin,
    pctPerHour: ((climbMbPerMin * 60) / level) * 100,
    tailFromSeconds,
    judged,
    leaking: judged && climbMbPerMin > rule.maxClimbMbPerMin,
  };
}
