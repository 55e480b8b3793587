/**
 * Monte Carlo RTP simulator. Uses the seeded PRNG (reproducible) and the
 * engine's allocation-free `playRound` — the same code path as `spin()`.
 */
import { compile, costFactor, playRound, type SlotConfig, type SpinMode } from './engine.js';
import { SeededRng } from './rng.js';

export interface SimulationResult {
  readonly symbol: string;
  readonly mode: SpinMode;
  readonly betLevel: number;
  readonly seed: number;
  readonly spins: number;
  /** total cost in units of the base bet */
  readonly wagered: number;
  /** total win in units of the base bet */
  readonly won: number;
  readonly rtp: number;
  /** sample standard deviation of the per-spin return ratio (win / cost) */
  readonly stdErrorPerSpin: number;
  /** standard error of the RTP estimate: stdErrorPerSpin / sqrt(spins) */
  readonly stdError: number;
  /** rtp ± 2.576 * stdError */
  readonly ci99: readonly [number, number];
  readonly seconds: number;
}

export const Z99 = 2.576;
export const Z999 = 3.291;

/** Special mode defaults to the highest bet level. */
export function simulate(
  config: SlotConfig,
  spins: number,
  seed: number,
  mode: SpinMode = 'base',
  betLevel?: number,
): SimulationResult {
  if (!Number.isSafeInteger(spins) || spins < 2) throw new RangeError('spins must be an integer >= 2');
  const level =
    mode === 'special' && betLevel === undefined ? config.special?.[config.special.length - 1]?.bl : betLevel;
  const { factor, bl } = costFactor(config, mode, level);
  const c = compile(config);
  const rng = new SeededRng(seed);
  const den = c.unitDen * factor;
  const started = performance.now();
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < spins; i++) {
    const units = playRound(c, mode, bl, rng, null);
    if (units !== 0) {
      const r = units / den;
      sum += r;
      sumSq += r * r;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const mean = sum / spins;
  const variance = Math.max(0, (sumSq - spins * mean * mean) / (spins - 1));
  const sd = Math.sqrt(variance);
  const se = sd / Math.sqrt(spins);
  return {
    symbol: config.symbol,
    mode,
    betLevel: bl,
    seed,
    spins,
    wagered: spins * factor,
    won: sum * factor,
    rtp: mean,
    stdErrorPerSpin: sd,
    stdError: se,
    ci99: [mean - Z99 * se, mean + Z99 * se],
    seconds,
  };
}
