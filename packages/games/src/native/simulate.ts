/**
 * Monte Carlo RTP of the native titles under documented player strategies. Seeded (reproducible,
 * simulator only); each round draws its outcome with the engine's own functions (the mines layout,
 * the cards, the roll) and pays the engine's exact multiplier, read from a table built from the
 * exact ratios once per strategy (bigint arithmetic per reveal would dominate the run time; a test
 * checks the table against the engine move by move).
 */
import { SeededRng } from '../slots/rng.js';
import { Z99 } from '../slots/simulate.js';
import { DICE_OUTCOMES, diceMultiplier } from './dice.js';
import {
  cardRank,
  drawCard,
  HILO_RANKS,
  HILO_RETURN,
  type HiloGuess,
  hiloLikelierGuess,
  hiloNextMultiplier,
  hiloWinningRanks,
  hiloWins,
} from './hilo.js';
import { drawMinesLayout, minesExpectedReturn, minesMaxReveals, minesMultiplier } from './mines.js';
import { add, mul, type Ratio, ratio, toNumber, ZERO } from './rational.js';

export type NativeSymbol = 'cnmines' | 'cnhilo' | 'cndice';

export interface NativeStrategy {
  readonly id: string;
  readonly symbol: NativeSymbol;
  readonly description: string;
  /** The exact expected return of the strategy (by enumeration, as a ratio). */
  theory(): Ratio;
  /** A round player for the simulator: returns the multiplier paid (0 for a loss). */
  player(): (rng: SeededRng) => number;
}

function minesStrategy(mineCount: number, reveals: number): NativeStrategy {
  if (reveals < 1 || reveals > minesMaxReveals(mineCount)) throw new Error('reveals out of range');
  return {
    id: `mines-${mineCount}m-cashout-${reveals}`,
    symbol: 'cnmines',
    description: `${mineCount} mine${mineCount > 1 ? 's' : ''}, reveal cells 0..${reveals - 1} in order, cash out after ${reveals} safe reveal${reveals > 1 ? 's' : ''}`,
    theory: () => minesExpectedReturn(mineCount, reveals),
    player() {
      const pay = toNumber(minesMultiplier(mineCount, reveals));
      return (rng) => {
        const { mines } = drawMinesLayout(rng, mineCount);
        // The layout is uniform, so which cells are revealed does not matter: cells 0..k-1.
        for (let cell = 0; cell < reveals; cell++) if (mines.includes(cell)) return 0;
        return pay;
      };
    },
  };
}

/** hi-lo: a fixed rule picks the guess from the rank; cash out after `guesses` right guesses. */
function hiloStrategy(
  id: string,
  description: string,
  pick: (rank: number) => HiloGuess,
  guesses: number,
): NativeStrategy {
  // Exact expected return by recursion over the current rank (each next rank uniform over 13).
  const expected = (rank: number, left: number, multiplier: Ratio): Ratio => {
    if (left === 0) return multiplier;
    const guess = pick(rank);
    const next = hiloNextMultiplier(multiplier, rank, guess);
    if (!next) throw new Error(`${id}: ${guess} is not offered on rank ${rank}`);
    let sum = ZERO;
    for (let r = 1; r <= HILO_RANKS; r++)
      if (hiloWins(rank, guess, r)) sum = add(sum, expected(r, left - 1, next));
    return mul(sum, ratio(1, HILO_RANKS));
  };
  return {
    id,
    symbol: 'cnhilo',
    description,
    theory() {
      let sum = ZERO;
      for (let r = 1; r <= HILO_RANKS; r++) sum = add(sum, expected(r, guesses, HILO_RETURN));
      return mul(sum, ratio(1, HILO_RANKS));
    },
    player() {
      // Per rank: the guess, the ranks it wins with, and its step factor 13/c (exact in a double).
      const guessOf = Array.from({ length: HILO_RANKS + 1 }, (_, r) => (r === 0 ? 'higher' : pick(r)));
      const step = guessOf.map((g, r) => (r === 0 ? 0 : HILO_RANKS / hiloWinningRanks(r, g)));
      const base = toNumber(HILO_RETURN);
      return (rng) => {
        let rank = cardRank(drawCard(rng));
        let factor = base;
        for (let i = 0; i < guesses; i++) {
          const next = cardRank(drawCard(rng));
          if (!hiloWins(rank, guessOf[rank]!, next)) return 0;
          factor *= step[rank]!;
          rank = next;
        }
        return factor;
      };
    },
  };
}

function diceStrategy(target: number): NativeStrategy {
  return {
    id: `dice-under-${(target / 100).toFixed(2)}`,
    symbol: 'cndice',
    description: `roll under ${(target / 100).toFixed(2)} every round`,
    theory: () => mul(diceMultiplier(target), ratio(target, DICE_OUTCOMES)),
    player() {
      const pay = toNumber(diceMultiplier(target));
      return (rng) => (rng.int(DICE_OUTCOMES) < target ? pay : 0);
    },
  };
}

/** The documented player strategies (docs/native-titles.md). */
export const NATIVE_STRATEGIES: readonly NativeStrategy[] = [
  minesStrategy(3, 2),
  minesStrategy(1, 5),
  minesStrategy(24, 1),
  hiloStrategy(
    'hilo-likelier-cashout-3',
    'guess the likelier of higher/lower (higher on a 7), cash out after 3 right guesses',
    hiloLikelierGuess,
    3,
  ),
  hiloStrategy('hilo-same-cashout-1', 'guess "same" once, then cash out', () => 'same', 1),
  diceStrategy(5_000),
  diceStrategy(1_000),
];

export interface NativeSimulationResult {
  readonly strategy: string;
  readonly symbol: NativeSymbol;
  readonly seed: number;
  readonly rounds: number;
  /** total paid in stakes */
  readonly won: number;
  readonly rtp: number;
  readonly stdErrorPerRound: number;
  readonly stdError: number;
  /** rtp +- 2.576 x stdError */
  readonly ci99: readonly [number, number];
  readonly seconds: number;
}

export function simulateNative(
  strategy: NativeStrategy,
  rounds: number,
  seed: number,
): NativeSimulationResult {
  if (!Number.isSafeInteger(rounds) || rounds < 2) throw new RangeError('rounds must be an integer >= 2');
  const rng = new SeededRng(seed);
  const play = strategy.player();
  const started = performance.now();
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < rounds; i++) {
    const x = play(rng);
    if (x !== 0) {
      sum += x;
      sumSq += x * x;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const mean = sum / rounds;
  const sd = Math.sqrt(Math.max(0, (sumSq - rounds * mean * mean) / (rounds - 1)));
  const se = sd / Math.sqrt(rounds);
  return {
    strategy: strategy.id,
    symbol: strategy.symbol,
    seed,
    rounds,
    won: sum,
    rtp: mean,
    stdErrorPerRound: sd,
    stdError: se,
    ci99: [mean - Z99 * se, mean + Z99 * se],
    seconds,
  };
}
