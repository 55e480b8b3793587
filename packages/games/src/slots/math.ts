/**
 * Exact (theoretical) return of a slot config.
 *
 * Reels stop independently and uniformly, so:
 * - line titles: every payline sees, on reel r, a symbol distributed like the
 *   symbol frequencies of strip r. The expected line pay per unit of total bet
 *   is therefore E[paytable multiplier of one line] (enumerated over the 3^5
 *   classes {symbol, wild, other} per reel).
 * - ways titles: E[ways of exactly k] = prod_{r<k} E[c_r] * P(c_k = 0), with the
 *   per-reel window counts c_r enumerated over all stops.
 * - scatters: the per-reel distribution of scatter cells in the window is
 *   enumerated over all stops and convolved across reels.
 * - free spins: by Wald's identity the feature value is
 *   E[spins played] * E[win per free spin]; E[spins played] comes from a DP
 *   over (spins remaining, spins awarded) with the retrigger cap.
 * Everything is linear in the paytable, which the calibration in configs.ts uses.
 */
import { REELS, ROWS, SCATTER, type SlotConfig, TOP_SYMBOL, WILD } from './engine.js';

type Strips = readonly (readonly number[])[];

/** probs[s][k]: expected pay weight for symbol s with count k, per line bet unit (ways: ways/lines). */
export function lineWeights(cfg: SlotConfig, strips: Strips): number[][] {
  const nSyms = cfg.paytable.length;
  const out: number[][] = Array.from({ length: nSyms }, () => [0, 0, 0, 0, 0, 0]);
  if (cfg.ways) {
    for (let s = TOP_SYMBOL; s < nSyms; s++) {
      const ec: number[] = [];
      const p0: number[] = [];
      strips.forEach((strip, r) => {
        const len = strip.length;
        let sum = 0;
        let zero = 0;
        for (let stop = 0; stop < len; stop++) {
          let n = 0;
          for (let row = 0; row < ROWS; row++) {
            const g = strip[(stop + row) % len];
            if (g === s || (r > 0 && g === WILD)) n++;
          }
          sum += n;
          if (n === 0) zero++;
        }
        ec.push(sum / len);
        p0.push(zero / len);
      });
      let prod = 1;
      for (let k = 1; k <= REELS; k++) {
        prod *= ec[k - 1]!;
        const exact = k < REELS ? prod * p0[k]! : prod;
        out[s]![k] = exact / cfg.lines;
      }
    }
    return out;
  }
  const freq = strips.map((strip) => {
    const f = new Array<number>(nSyms).fill(0);
    for (const g of strip) if (g < nSyms) f[g] = (f[g] ?? 0) + 1 / strip.length;
    return f;
  });
  for (let s = TOP_SYMBOL; s < nSyms; s++) {
    const row = out[s]!;
    // classes: 0 = s, 1 = wild, 2 = other
    for (let pat = 0; pat < 3 ** REELS; pat++) {
      let p = 1;
      let x = pat;
      const cls: number[] = [];
      for (let r = 0; r < REELS; r++) {
        const c = x % 3;
        x = Math.floor(x / 3);
        cls.push(c);
        const fr = freq[r]!;
        const ps = fr[s]!;
        const pw = fr[WILD]!;
        p *= c === 0 ? ps : c === 1 ? pw : 1 - ps - pw;
      }
      if (p === 0) continue;
      const firstNonWild = cls.findIndex((c) => c !== 1);
      if (firstNonWild === -1) {
        if (s === TOP_SYMBOL) row[REELS] = (row[REELS] ?? 0) + p;
        continue;
      }
      if (cls[firstNonWild] !== 0) continue;
      let count = 0;
      while (count < REELS && cls[count] !== 2) count++;
      row[count] = (row[count] ?? 0) + p;
    }
  }
  return out;
}

/** P(number of scatter cells on the grid = k), k = 0..15 */
export function scatterDistribution(strips: Strips): number[] {
  let dist = [1];
  for (const strip of strips) {
    const len = strip.length;
    const reel = [0, 0, 0, 0];
    for (let stop = 0; stop < len; stop++) {
      let n = 0;
      for (let row = 0; row < ROWS; row++) if (strip[(stop + row) % len] === SCATTER) n++;
      reel[n] = (reel[n] ?? 0) + 1 / len;
    }
    const next = new Array<number>(dist.length + 3).fill(0);
    dist.forEach((a, i) => {
      reel.forEach((b, j) => {
        next[i + j] = (next[i + j] ?? 0) + a * b;
      });
    });
    dist = next;
  }
  return dist;
}

/** scatter weights per pay index 0..5 (counts above 5 pay as 5) and P(trigger) */
export function scatterWeights(strips: Strips): { weights: number[]; trigger: number } {
  const dist = scatterDistribution(strips);
  const weights = [0, 0, 0, 0, 0, 0];
  let trigger = 0;
  dist.forEach((p, k) => {
    weights[Math.min(k, 5)]! += p;
    if (k >= 3) trigger += p;
  });
  return { weights, trigger };
}

/** Expected number of free spins played for one feature (award, retrigger prob, cap). */
export function expectedFreeSpins(award: number, retrigger: number, cap: number): number {
  const memo = new Map<number, number>();
  const f = (remaining: number, awarded: number): number => {
    if (remaining === 0) return 0;
    const key = remaining * 100_000 + awarded;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const add = Math.min(award, cap - awarded);
    const v =
      1 +
      (add > 0 ? retrigger * f(remaining - 1 + add, awarded + add) : retrigger * f(remaining - 1, awarded)) +
      (1 - retrigger) * f(remaining - 1, awarded);
    memo.set(key, v);
    return v;
  };
  return f(award, award);
}

function dot(table: readonly (readonly number[])[], w: readonly (readonly number[])[]): number {
  let s = 0;
  table.forEach((row, i) => {
    row.forEach((v, k) => {
      s += v * (w[i]?.[k] ?? 0);
    });
  });
  return s;
}

export interface Breakdown {
  /** line/ways return per unit bet */
  readonly lines: number;
  readonly scatter: number;
  readonly trigger: number;
  /** expected free-spin feature value in units of the bet (unscaled by special multipliers) */
  readonly featureValue: number;
  readonly features: number;
  readonly total: number;
}

/** Theoretical return of the free-spin feature per unit of bet. */
export function featureValue(cfg: SlotConfig): number {
  const fs = cfg.freeSpins;
  if (fs === null) return 0;
  const lw = lineWeights(cfg, cfg.strips);
  const { weights, trigger } = scatterWeights(cfg.strips);
  const perSpin = (dot(cfg.paytable, lw) + dot([cfg.scatterPay], [weights])) / 100;
  return fs.multiplier * perSpin * expectedFreeSpins(fs.award, trigger, fs.maxSpins);
}

/** Theoretical breakdown for a reel set (base or a special level's) with a scatter/feature multiplier. */
export function breakdown(cfg: SlotConfig, strips: Strips = cfg.strips, multiplier = 1): Breakdown {
  const lines = dot(cfg.paytable, lineWeights(cfg, strips)) / 100;
  const { weights, trigger } = scatterWeights(strips);
  const scatter = (multiplier * dot([cfg.scatterPay], [weights])) / 100;
  const fv = featureValue(cfg);
  const features = cfg.freeSpins === null ? 0 : multiplier * trigger * fv;
  return { lines, scatter, trigger, featureValue: fv, features, total: lines + scatter + features };
}

/** Theoretical RTP of a mode (return / cost). */
export function theoreticalRtp(cfg: SlotConfig, mode: 'base' | 'buy' | 'special', bl?: number): number {
  if (mode === 'base') return breakdown(cfg).total;
  if (mode === 'buy') {
    if (cfg.buyPriceX === null) throw new Error('no buy feature');
    return featureValue(cfg) / cfg.buyPriceX;
  }
  const lvl = cfg.special?.find((l) => l.bl === bl) ?? cfg.special?.[cfg.special.length - 1];
  if (!lvl) throw new Error('no special bet');
  return breakdown(cfg, lvl.strips, lvl.scatterFeatureMultBp / 10_000).total / lvl.bl;
}
