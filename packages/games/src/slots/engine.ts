/**
 * Pure 5-reel x 3-row video slot engine.
 *
 * Symbols: 0 = WILD (substitutes for every paying symbol, never for the
 * scatter), 1 = SCATTER (pays anywhere, multiplier of the total bet, triggers
 * free spins), 2.. = paying symbols (2 is the top symbol; five wilds on a line
 * pay as five of it).
 *
 * Line titles: a line pays the first non-wild symbol counted left to right
 * from reel 1 (wilds extend the run); a scatter ends the run. Ways titles
 * (`ways: true`, e.g. 243): a symbol pays when it shows on reel 1 and on every
 * consecutive reel (wild counts as any symbol on reels 2-5); the win is the
 * multiplier times the number of ways.
 *
 * Money and rounding: every win is accumulated in exact integer "units" of
 * totalBet / UNIT_DEN (UNIT_DEN = lines * 100 * 10_000: paytables are in
 * hundredths of a multiplier, special-bet multipliers in 1/10_000). The
 * spin's total win is floored to minor units ONCE:
 *   totalWinMinor = floor(betMinor * totalUnits / UNIT_DEN).
 * The per-line `winMinor` values are floored individually for display only;
 * their sum never exceeds the total.
 *
 * Features (a title without the feature rejects the mode with SlotRequestError):
 * - free spins: 3+ scatters award `award` spins on the base reels with an integer
 *   win multiplier; 3+ scatters during free spins retrigger, capped at `maxSpins`.
 * - buy (`buy_feature`): costs bet x `buyPriceX` and plays the free spins directly;
 *   the price is the feature value divided by the target RTP, rounded to a whole bet.
 * - special (`special_bet`): bet level `bl` costs bet x bl; the base spin uses the
 *   level's reel set (more scatters per reel) and scatter pays and free-spin wins
 *   are multiplied by the level's `scatterFeatureMultBp / 10_000`, chosen so every
 *   level returns the target RTP of its cost. Line wins stay on the base bet.
 *   `betLevel` must be given explicitly (no silent default cost multiplier).
 */
import type { Rng } from './rng.js';

export const WILD = 0;
export const SCATTER = 1;
export const TOP_SYMBOL = 2;
export const REELS = 5;
export const ROWS = 3;
/** denominator of special-bet scatter multipliers (basis points of a multiplier) */
export const M_SCALE = 10_000;

export type SpinMode = 'base' | 'buy' | 'special';

export interface FreeSpinRules {
  /** spins awarded by 3+ scatters (also the retrigger award) */
  readonly award: number;
  /** integer win multiplier during free spins */
  readonly multiplier: number;
  /** cap on the total number of free spins one feature can award */
  readonly maxSpins: number;
}

export interface SpecialLevel {
  /** bet level: the round costs bet x bl */
  readonly bl: number;
  /** reel set of this level (more scatters than the base set for bl > 1) */
  readonly strips: readonly (readonly number[])[];
  /** multiplier (in 1/M_SCALE) applied to scatter pays and free-spin wins at this level */
  readonly scatterFeatureMultBp: number;
}

export interface SlotConfig {
  readonly symbol: string;
  readonly lines: number;
  readonly ways: boolean;
  /** rows (0..2) per reel of each payline; empty for ways titles */
  readonly paylines: readonly (readonly number[])[];
  /** base reel strips, one per reel */
  readonly strips: readonly (readonly number[])[];
  /** paytable[symbol][count] in hundredths of the line bet (ways: of bet/lines per way) */
  readonly paytable: readonly (readonly number[])[];
  /** scatterPay[count] in hundredths of the total bet */
  readonly scatterPay: readonly number[];
  readonly freeSpins: FreeSpinRules | null;
  /** buy-feature price as an integer multiple of the bet; null = not offered */
  readonly buyPriceX: number | null;
  /** special bet levels; null = not offered */
  readonly special: readonly SpecialLevel[] | null;
  /** stored RTP the config is tuned to, as a fraction (0.965) */
  readonly targetRtp: number;
}

export interface SpinRequest {
  readonly betMinor: bigint;
  readonly mode: SpinMode;
  readonly betLevel?: number;
}

export interface LineWin {
  /** payline index (ways titles: -1) */
  readonly line: number;
  readonly symbol: number;
  readonly count: number;
  /** ways titles: number of ways; line titles: 1 */
  readonly ways: number;
  readonly winMinor: bigint;
}

export interface FreeSpinResult {
  readonly grid: number[][];
  readonly winMinor: bigint;
}

export interface SpinResult {
  /** grid[reel][row] */
  readonly grid: number[][];
  readonly lineWins: LineWin[];
  readonly scatterWinMinor: bigint;
  readonly freeSpins: FreeSpinResult[];
  readonly totalWinMinor: bigint;
  readonly costMinor: bigint;
}

export class SlotRequestError extends Error {
  override readonly name = 'SlotRequestError';
}

/** Flattened, allocation-free form of a config used by the hot loop. */
export interface CompiledSlot {
  readonly config: SlotConfig;
  readonly unitDen: number;
  readonly nSyms: number;
  /** [sym * 6 + count] */
  readonly pay: Int32Array;
  readonly scatterPay: Int32Array;
  /** flat [line * 5 + reel] = reel * 3 + row */
  readonly lineCells: Int32Array;
  readonly base: CompiledReels;
  readonly special: Map<number, { reels: CompiledReels; multBp: number }>;
  /** scratch */
  readonly grid: Int32Array;
}

export interface CompiledReels {
  readonly strips: readonly Int32Array[];
}

const compiledCache = new WeakMap<SlotConfig, CompiledSlot>();

function compileReels(strips: readonly (readonly number[])[]): CompiledReels {
  if (strips.length !== REELS) throw new Error('a reel set needs 5 strips');
  return { strips: strips.map((s) => Int32Array.from(s)) };
}

export function compile(config: SlotConfig): CompiledSlot {
  const hit = compiledCache.get(config);
  if (hit) return hit;
  const nSyms = config.paytable.length;
  const pay = new Int32Array(nSyms * 6);
  config.paytable.forEach((row, s) => {
    row.forEach((v, k) => {
      pay[s * 6 + k] = v;
    });
  });
  const lineCells = new Int32Array(config.paylines.length * REELS);
  config.paylines.forEach((rows, l) => {
    rows.forEach((row, r) => {
      lineCells[l * REELS + r] = r * ROWS + row;
    });
  });
  const special = new Map<number, { reels: CompiledReels; multBp: number }>();
  for (const lvl of config.special ?? []) {
    special.set(lvl.bl, { reels: compileReels(lvl.strips), multBp: lvl.scatterFeatureMultBp });
  }
  const compiled: CompiledSlot = {
    config,
    unitDen: config.lines * 100 * M_SCALE,
    nSyms,
    pay,
    scatterPay: Int32Array.from({ length: 6 }, (_, k) => config.scatterPay[k] ?? 0),
    lineCells,
    base: compileReels(config.strips),
    special,
    grid: new Int32Array(REELS * ROWS),
  };
  compiledCache.set(config, compiled);
  return compiled;
}

/** Optional sink for the detailed result; the simulator passes null. */
interface Recorder {
  onGrid(grid: Int32Array): void;
  onLine(line: number, symbol: number, count: number, ways: number, units: number): void;
}

function fillGrid(reels: CompiledReels, rng: Rng, grid: Int32Array): void {
  for (let r = 0; r < REELS; r++) {
    const strip = reels.strips[r]!;
    const len = strip.length;
    const stop = rng.int(len);
    grid[r * ROWS] = strip[stop]!;
    grid[r * ROWS + 1] = strip[(stop + 1) % len]!;
    grid[r * ROWS + 2] = strip[(stop + 2) % len]!;
  }
}

/** Sum of line (or ways) pays of `grid` in hundredths of a line multiplier (times ways). */
export function evaluateLines(c: CompiledSlot, grid: Int32Array, rec: Recorder | null): number {
  const pay = c.pay;
  let total = 0;
  if (c.config.ways) {
    for (let s = TOP_SYMBOL; s < c.nSyms; s++) {
      let ways = 0;
      for (let row = 0; row < ROWS; row++) if (grid[row] === s) ways++;
      if (ways === 0) continue;
      let count = 1;
      for (let r = 1; r < REELS; r++) {
        let n = 0;
        for (let row = 0; row < ROWS; row++) {
          const g = grid[r * ROWS + row];
          if (g === s || g === WILD) n++;
        }
        if (n === 0) break;
        ways *= n;
        count++;
      }
      const p = pay[s * 6 + count]!;
      if (p > 0) {
        total += p * ways;
        rec?.onLine(-1, s, count, ways, p * ways);
      }
    }
    return total;
  }
  const cells = c.lineCells;
  const nLines = c.config.paylines.length;
  for (let l = 0; l < nLines; l++) {
    const base = l * REELS;
    let sym = -1;
    let count = 0;
    for (let r = 0; r < REELS; r++) {
      const g = grid[cells[base + r]!]!;
      if (g === WILD) {
        count++;
      } else if (g === SCATTER) {
        break;
      } else if (sym === -1) {
        sym = g;
        count++;
      } else if (g === sym) {
        count++;
      } else {
        break;
      }
    }
    if (sym === -1) {
      if (count !== REELS) continue;
      sym = TOP_SYMBOL;
    }
    const p = pay[sym * 6 + count]!;
    if (p > 0) {
      total += p;
      rec?.onLine(l, sym, count, 1, p);
    }
  }
  return total;
}

export function countScatters(grid: Int32Array): number {
  let n = 0;
  for (let i = 0; i < REELS * ROWS; i++) if (grid[i] === SCATTER) n++;
  return n;
}

/**
 * Plays one full round (base/special spin plus any free spins, or a bought
 * feature) and returns the win in units of totalBet / unitDen. No allocation
 * when `rec` is null.
 */
export function playRound(
  c: CompiledSlot,
  mode: SpinMode,
  bl: number,
  rng: Rng,
  rec: Recorder | null,
): number {
  const cfg = c.config;
  const grid = c.grid;
  let reels = c.base;
  let multBp = M_SCALE;
  let fsAwarded = 0;
  let total = 0;
  const fs = cfg.freeSpins;
  if (mode === 'buy') {
    fsAwarded = fs!.award;
  } else {
    if (mode === 'special') {
      const lvl = c.special.get(bl)!;
      reels = lvl.reels;
      multBp = lvl.multBp;
    }
    fillGrid(reels, rng, grid);
    rec?.onGrid(grid);
    total += evaluateLines(c, grid, rec) * M_SCALE;
    const sc = countScatters(grid);
    total += c.scatterPay[sc > 5 ? 5 : sc]! * cfg.lines * multBp;
    if (fs !== null && sc >= 3) fsAwarded = fs.award;
  }
  if (fsAwarded > 0 && fs !== null) {
    let remaining = fsAwarded;
    const fsFactor = fs.multiplier * multBp;
    while (remaining > 0) {
      remaining--;
      fillGrid(c.base, rng, grid);
      rec?.onGrid(grid);
      let w = evaluateLines(c, grid, rec) * fsFactor;
      const sc = countScatters(grid);
      w += c.scatterPay[sc > 5 ? 5 : sc]! * cfg.lines * fsFactor;
      total += w;
      if (sc >= 3 && fsAwarded < fs.maxSpins) {
        const add = Math.min(fs.award, fs.maxSpins - fsAwarded);
        fsAwarded += add;
        remaining += add;
      }
    }
  }
  return total;
}

/** Validates the request against the title's features; returns the cost factor (multiple of the bet). */
export function costFactor(
  config: SlotConfig,
  mode: SpinMode,
  betLevel: number | undefined,
): { factor: number; bl: number } {
  if (mode === 'base') {
    if (betLevel !== undefined && betLevel !== 1)
      throw new SlotRequestError('betLevel requires special mode');
    return { factor: 1, bl: 1 };
  }
  if (mode === 'buy') {
    if (config.buyPriceX === null || config.freeSpins === null) {
      throw new SlotRequestError(`${config.symbol} does not offer buy_feature`);
    }
    return { factor: config.buyPriceX, bl: 1 };
  }
  if (mode === 'special') {
    if (config.special === null) throw new SlotRequestError(`${config.symbol} does not offer special_bet`);
    if (betLevel === undefined) throw new SlotRequestError('special mode requires an explicit betLevel');
    const bl = betLevel;
    if (!config.special.some((l) => l.bl === bl)) {
      throw new SlotRequestError(`${config.symbol}: bet level ${String(bl)} is not offered`);
    }
    return { factor: bl, bl };
  }
  throw new SlotRequestError(`unknown mode ${String(mode)}`);
}

function gridToArray(grid: Int32Array): number[][] {
  const out: number[][] = [];
  for (let r = 0; r < REELS; r++) out.push([grid[r * ROWS]!, grid[r * ROWS + 1]!, grid[r * ROWS + 2]!]);
  return out;
}

/** One round with full detail. Pure apart from drawing from `rng`. */
export function spin(config: SlotConfig, req: SpinRequest, rng: Rng): SpinResult {
  if (typeof req.betMinor !== 'bigint' || req.betMinor <= 0n) {
    throw new SlotRequestError('betMinor must be a positive bigint');
  }
  const { factor, bl } = costFactor(config, req.mode, req.betLevel);
  const c = compile(config);
  const bet = req.betMinor;
  const den = BigInt(c.unitDen);
  const toMinor = (units: number): bigint => (bet * BigInt(units)) / den;

  const grids: Int32Array[] = [];
  const perGridUnits: number[] = [];
  const perGridScatter: number[] = [];
  const lineWins: LineWin[] = [];
  const fsFactor = config.freeSpins?.multiplier ?? 1;
  const multBp = req.mode === 'special' ? c.special.get(bl)!.multBp : M_SCALE;
  const rec: Recorder = {
    onGrid(grid) {
      grids.push(grid.slice());
      perGridUnits.push(0);
      perGridScatter.push(0);
    },
    onLine(line, symbol, count, ways, units) {
      const idx = grids.length - 1;
      const f = idx === 0 && req.mode !== 'buy' ? M_SCALE : fsFactor * multBp;
      perGridUnits[idx] = (perGridUnits[idx] ?? 0) + units * f;
      if (idx === 0 && req.mode !== 'buy') {
        lineWins.push({ line, symbol, count, ways, winMinor: toMinor(units * M_SCALE) });
      }
    },
  };
  const totalUnits = playRound(c, req.mode, bl, rng, rec);
  if (!Number.isSafeInteger(totalUnits) || totalUnits < 0) throw new Error('win accumulator overflow');

  // scatter pays per grid, recomputed from the recorded grids (same rule as playRound)
  grids.forEach((g, i) => {
    const sc = countScatters(g);
    const isFree = i > 0 || req.mode === 'buy';
    const f = isFree ? fsFactor * multBp : multBp;
    perGridScatter[i] = c.scatterPay[sc > 5 ? 5 : sc]! * config.lines * f;
  });
  const baseIdx = req.mode === 'buy' ? -1 : 0;
  const freeSpins: FreeSpinResult[] = [];
  grids.forEach((g, i) => {
    if (i === baseIdx) return;
    freeSpins.push({ grid: gridToArray(g), winMinor: toMinor(perGridUnits[i]! + perGridScatter[i]!) });
  });
  const baseGrid = baseIdx === 0 ? grids[0]! : null;
  return {
    grid: baseGrid ? gridToArray(baseGrid) : [],
    lineWins,
    scatterWinMinor: baseIdx === 0 ? toMinor(perGridScatter[0]!) : 0n,
    freeSpins,
    totalWinMinor: toMinor(totalUnits),
    costMinor: bet * BigInt(factor),
  };
}
