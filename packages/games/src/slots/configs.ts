/**
 * Slot configs of the prov_a / prov_b video slots in the catalog.
 *
 * Every title is built from a small, readable set of parameters (symbol counts
 * per reel, scatters per reel, free-spin rules, a template paytable). The
 * template paytable is then calibrated deterministically against the title's
 * STORED_RTP using the exact mathematics in math.ts: RTP is linear in the
 * paytable, so the template is scaled to the target, rounded to hundredths,
 * and nudged by single hundredths until the theoretical RTP is within
 * CALIBRATION_TOLERANCE of the stored value. The buy-feature price and the
 * special-bet levels are derived from the calibrated base game.
 */
import { CATALOG, type CatalogEntry, isSlotTitle, STORED_RTP } from '../catalog.js';
import { M_SCALE, REELS, SCATTER, type SlotConfig, type SpecialLevel, WILD } from './engine.js';
import { breakdown, featureValue, lineWeights, scatterWeights } from './math.js';

export const CALIBRATION_TOLERANCE = 0.00005;

/** Symbol ids: 0 wild, 1 scatter, 2..5 high (H1 top), 6..9 low. */
export const SYMBOL_NAMES = ['WILD', 'SCATTER', 'H1', 'H2', 'H3', 'H4', 'L1', 'L2', 'L3', 'L4'] as const;

/** 50 distinct standard paylines (row per reel); a title uses the first `lines`. */
export const STANDARD_PAYLINES: readonly (readonly number[])[] = buildPaylines();

function buildPaylines(): number[][] {
  const classic = [
    [1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0],
    [2, 2, 2, 2, 2],
    [0, 1, 2, 1, 0],
    [2, 1, 0, 1, 2],
    [0, 0, 1, 2, 2],
    [2, 2, 1, 0, 0],
    [1, 0, 0, 0, 1],
    [1, 2, 2, 2, 1],
    [0, 1, 1, 1, 0],
    [2, 1, 1, 1, 2],
    [1, 0, 1, 0, 1],
    [1, 2, 1, 2, 1],
    [0, 1, 0, 1, 0],
    [2, 1, 2, 1, 2],
  ];
  const seen = new Set(classic.map((l) => l.join('')));
  const out = [...classic];
  // fill with the remaining "connected" patterns (adjacent rows differ by at most 1)
  for (let pat = 0; pat < 3 ** REELS && out.length < 50; pat++) {
    const rows: number[] = [];
    let x = pat;
    for (let r = 0; r < REELS; r++) {
      rows.push(x % 3);
      x = Math.floor(x / 3);
    }
    const connected = rows.every((v, i) => i === 0 || Math.abs(v - rows[i - 1]!) <= 1);
    const key = rows.join('');
    if (connected && !seen.has(key)) {
      seen.add(key);
      out.push(rows);
    }
  }
  return out;
}

interface TitleParams {
  /** non-scatter symbol counts per reel, indexed by symbol id (index 1 ignored) */
  readonly counts: readonly (readonly number[])[];
  readonly scattersPerReel: number;
  readonly freeSpins: { award: number; multiplier: number; maxSpins: number } | null;
  readonly seed: number;
}

// template paytable in hundredths of the line bet, counts 3/4/5
const TEMPLATE_PAYTABLE: readonly (readonly number[])[] = [
  [0, 0, 0, 0, 0, 0], // wild (pays as H1 on a full line)
  [0, 0, 0, 0, 0, 0], // scatter
  [0, 0, 0, 2000, 10000, 50000],
  [0, 0, 0, 1500, 6000, 25000],
  [0, 0, 0, 1000, 4000, 15000],
  [0, 0, 0, 800, 3000, 10000],
  [0, 0, 0, 500, 1500, 6000],
  [0, 0, 0, 400, 1200, 5000],
  [0, 0, 0, 300, 1000, 4000],
  [0, 0, 0, 200, 800, 3000],
];
// hundredths of the total bet, counts 3/4/5+
const TEMPLATE_SCATTER = [0, 0, 0, 200, 1000, 5000];

const LINE_COUNTS = [
  [0, 0, 3, 4, 5, 6, 9, 10, 11, 12],
  [0, 0, 3, 4, 5, 6, 9, 10, 11, 12],
  [0, 0, 3, 4, 5, 6, 9, 10, 11, 12],
  [0, 0, 3, 4, 5, 6, 9, 10, 11, 12],
  [0, 0, 3, 4, 5, 6, 9, 10, 11, 12],
];

function withWilds(wilds: readonly number[], base = LINE_COUNTS): number[][] {
  return base.map((row, r) => row.map((v, s) => (s === WILD ? wilds[r]! : v)));
}

/** The free-spin rules the titles use: FS_<spins awarded>_AT_<multiplier>X. */
const FS_8_AT_12X = { award: 8, multiplier: 12, maxSpins: 40 };
const FS_10_AT_10X = { award: 10, multiplier: 10, maxSpins: 50 };
const FS_12_AT_8X = { award: 12, multiplier: 8, maxSpins: 60 };
const FS_15_AT_7X = { award: 15, multiplier: 7, maxSpins: 75 };

/** The titles' rows; PARAMS below adds the wilds to the line counts. */
const ROWS: Readonly<Record<string, Omit<TitleParams, 'counts'> & { wilds: readonly number[] }>> = {
  vs20emberfox: { wilds: [2, 3, 3, 3, 2], scattersPerReel: 1, freeSpins: FS_10_AT_10X, seed: 101 },
  vs25tidalpearl: { wilds: [1, 2, 3, 2, 1], scattersPerReel: 1, freeSpins: FS_12_AT_8X, seed: 102 },
  vs10glacierrun: { wilds: [2, 2, 2, 2, 2], scattersPerReel: 1, freeSpins: FS_10_AT_10X, seed: 103 },
  vs40jadelantern: { wilds: [1, 2, 2, 2, 1], scattersPerReel: 1, freeSpins: FS_8_AT_12X, seed: 104 },
  vs243copperkiln: { wilds: [0, 2, 2, 2, 2], scattersPerReel: 2, freeSpins: null, seed: 105 },
  vs20starorchard: { wilds: [2, 2, 3, 2, 2], scattersPerReel: 1, freeSpins: FS_10_AT_10X, seed: 106 },
  vs20frostwolf: { wilds: [2, 3, 3, 3, 2], scattersPerReel: 1, freeSpins: FS_15_AT_7X, seed: 201 },
  vs25northlight: { wilds: [1, 2, 2, 2, 1], scattersPerReel: 1, freeSpins: FS_10_AT_10X, seed: 202 },
  vs30fjordhoard: { wilds: [2, 2, 2, 2, 2], scattersPerReel: 2, freeSpins: null, seed: 203 },
  vs50rimevault: { wilds: [1, 1, 2, 1, 1], scattersPerReel: 1, freeSpins: FS_12_AT_8X, seed: 204 },
};

/** Each title's parameters, a row each (`wilds`: the wilds per reel, added to LINE_COUNTS). */
const PARAMS: Readonly<Record<string, TitleParams>> = Object.fromEntries(
  Object.entries(ROWS).map(([symbol, { wilds, ...rest }]) => [symbol, { counts: withWilds(wilds), ...rest }]),
);

/** mulberry32, used only to shuffle strips deterministically at build time */
function shuffle<T>(items: T[], seed: number): T[] {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** Non-scatter cells of each reel, shuffled (scatters are inserted by `withScatters`). */
function fillerCells(p: TitleParams): number[][] {
  return p.counts.map((row, r) => {
    const cells: number[] = [];
    row.forEach((n, s) => {
      if (s === SCATTER) return;
      for (let i = 0; i < n; i++) cells.push(s);
    });
    return shuffle(cells, p.seed * 31 + r);
  });
}

/** Inserts `n` scatters per reel evenly, at least 3 cells apart (at most one per window). */
function withScatters(filler: readonly (readonly number[])[], n: number): number[][] {
  return filler.map((cells) => {
    const len = cells.length + n;
    if (n * 3 > len) throw new Error('too many scatters for the strip');
    const strip = new Array<number>(len).fill(-1);
    for (let i = 0; i < n; i++) strip[Math.floor((i * len) / n)] = SCATTER;
    let j = 0;
    for (let i = 0; i < len; i++) if (strip[i] === -1) strip[i] = cells[j++]!;
    return strip;
  });
}

/** Linear sensitivity of the base RTP to one hundredth on each paytable / scatter entry. */
function sensitivities(cfg: SlotConfig): { line: number[][]; scatter: number[] } {
  const lw = lineWeights(cfg, cfg.strips);
  const { weights, trigger } = scatterWeights(cfg.strips);
  let fsFactor = 0;
  if (cfg.freeSpins) {
    // featureValue is linear: value per hundredth = multiplier * E[spins] * weight / 100
    const probe = {
      ...cfg,
      paytable: cfg.paytable.map((r) => r.map(() => 0)),
      scatterPay: [0, 0, 0, 0, 0, 100],
    };
    // E[spins] * multiplier recovered from a probe paying 1x on 5+ scatters
    const w5 = weights[5]!;
    fsFactor = w5 > 0 ? featureValue(probe) / w5 : 0;
  }
  const scale = (w: number): number => (w * (1 + trigger * fsFactor)) / 100;
  return { line: lw.map((row) => row.map(scale)), scatter: weights.map(scale) };
}

function calibrate(cfg: SlotConfig): SlotConfig {
  const target = cfg.targetRtp;
  const start = breakdown(cfg).total;
  const k = target / start;
  const paytable = cfg.paytable.map((row) => row.map((v) => Math.round(v * k)));
  const scatterPay = cfg.scatterPay.map((v) => Math.round(v * k));
  const sens = sensitivities(cfg);
  const entries: { get: () => number; set: (v: number) => void; w: number }[] = [];
  paytable.forEach((row, s) => {
    row.forEach((v, c) => {
      if (v > 0) {
        entries.push({
          get: () => paytable[s]![c]!,
          set: (x) => {
            paytable[s]![c] = x;
          },
          w: sens.line[s]![c]!,
        });
      }
    });
  });
  scatterPay.forEach((v, c) => {
    if (v > 0) {
      entries.push({
        get: () => scatterPay[c]!,
        set: (x) => {
          scatterPay[c] = x;
        },
        w: sens.scatter[c]!,
      });
    }
  });
  let current = breakdown({ ...cfg, paytable, scatterPay }).total;
  for (let iter = 0; iter < 2000 && Math.abs(current - target) > CALIBRATION_TOLERANCE / 10; iter++) {
    const err = target - current;
    let best: (typeof entries)[number] | undefined;
    let bestStep = 0;
    let bestResidual = Math.abs(err);
    for (const e of entries) {
      const step = err > 0 ? 1 : -1;
      if (e.get() + step <= 0) continue;
      const residual = Math.abs(err - step * e.w);
      if (residual < bestResidual) {
        best = e;
        bestStep = step;
        bestResidual = residual;
      }
    }
    if (!best) break;
    best.set(best.get() + bestStep);
    current = breakdown({ ...cfg, paytable, scatterPay }).total;
  }
  return { ...cfg, paytable, scatterPay };
}

/** Special-bet levels: for each bl choose the densest scatter reel set whose scatter/feature multiplier stays >= 1. */
function specialLevels(
  cfg: SlotConfig,
  filler: number[][],
  baseScatters: number,
  bls: readonly number[],
): SpecialLevel[] {
  const maxScatters = Math.floor(Math.min(...filler.map((f) => f.length)) / 2);
  return bls.map((bl) => {
    let chosen: SpecialLevel | undefined;
    for (let n = baseScatters; n <= maxScatters; n++) {
      const strips = withScatters(filler, n);
      const b = breakdown(cfg, strips, 1);
      const driven = b.scatter + b.features;
      if (driven <= 0) continue;
      const m = (cfg.targetRtp * bl - b.lines) / driven;
      const level = { bl, strips, scatterFeatureMultBp: Math.round(m * M_SCALE) };
      if (m >= 1 || chosen === undefined) chosen = level;
      if (m < 1) break;
    }
    if (!chosen || chosen.scatterFeatureMultBp <= 0) throw new Error(`cannot build special level ${bl}`);
    return chosen;
  });
}

function build(entry: CatalogEntry): SlotConfig {
  const p = PARAMS[entry.symbol];
  if (!p) throw new Error(`no slot params for ${entry.symbol}`);
  const lines = entry.lines ?? 20;
  const ways = lines === 243;
  if (!ways && lines > STANDARD_PAYLINES.length) throw new Error(`${entry.symbol}: too many lines`);
  const filler = fillerCells(p);
  const target = Number(STORED_RTP[entry.symbol as keyof typeof STORED_RTP]) / 100;
  const freeSpins = entry.features.free_spins ? p.freeSpins : null;
  if (entry.features.free_spins && !freeSpins) throw new Error(`${entry.symbol}: free spin rules missing`);
  const draft: SlotConfig = {
    symbol: entry.symbol,
    lines,
    ways,
    paylines: ways ? [] : STANDARD_PAYLINES.slice(0, lines),
    strips: withScatters(filler, p.scattersPerReel),
    paytable: TEMPLATE_PAYTABLE,
    scatterPay: TEMPLATE_SCATTER,
    freeSpins,
    buyPriceX: null,
    special: null,
    targetRtp: target,
  };
  const tuned = calibrate(draft);
  const buyPriceX =
    entry.features.buy_feature && freeSpins ? Math.max(1, Math.round(featureValue(tuned) / target)) : null;
  const special =
    entry.features.special_bet && entry.special_bet_profile
      ? specialLevels(tuned, filler, p.scattersPerReel, entry.special_bet_profile.bls)
      : null;
  return deepFreeze({ ...tuned, buyPriceX, special });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const SLOT_ENTRIES: readonly CatalogEntry[] = CATALOG.filter(
  (e) => isSlotTitle(e.provider_id) && e.family === 'video-slot',
);
const built = new Map<string, SlotConfig>();

/** Symbols of the titles this engine models (prov_a / prov_b video slots). */
export const SLOT_SYMBOLS: readonly string[] = Object.freeze(SLOT_ENTRIES.map((e) => e.symbol));

/** The calibrated config of one title, built on first use (~15 ms) and cached. */
export function slotConfig(symbol: string): SlotConfig {
  const hit = built.get(symbol);
  if (hit) return hit;
  const entry = SLOT_ENTRIES.find((e) => e.symbol === symbol);
  if (!entry) throw new Error(`no slot config for ${symbol}`);
  const cfg = build(entry);
  built.set(symbol, cfg);
  return cfg;
}

/** All configs, in catalog order. */
export function slotConfigs(): readonly SlotConfig[] {
  return SLOT_SYMBOLS.map(slotConfig);
}
