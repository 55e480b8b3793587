/**
 * Ember Mines (`cnmines`): a 5x5 grid hiding `m` mines (1 to 24, the player's choice). Each
 * reveal is a stage; a mine ends the round with nothing; the player may cash out after any safe
 * reveal.
 *
 * After k safe reveals the probability of having survived is
 *   P(m, k) = C(25 - m, k) / C(25, k) = prod_{i<k} (25 - m - i) / (25 - i)
 * and the multiplier is exactly R / P(m, k), R = 97/100 (the stored RTP). The sequence
 * "multiplier if still alive, else 0" is a martingale: the expected value of the next reveal
 * equals the current multiplier. So every strategy that stops (cashes out after a fixed number of
 * reveals, or adaptively) returns exactly R of the stake in expectation, and the cells the player
 * picks do not matter (the layout is uniform and fixed at the bet).
 */
import type { Rng } from '../slots/rng.js';
import { div, lte, mul, type Ratio, ratio } from './rational.js';
import { MAX_MULTIPLIER, NativeMoveError, returnFactor } from './rules.js';

export const MINES_CELLS = 25;
export const MINES_COLUMNS = 5;
export const MIN_MINES = 1;
export const MAX_MINES = 24;
export const MINES_RETURN = returnFactor('cnmines');

/** The secret of a round, drawn at the bet and kept server-side until the round ends. */
export interface MinesLayout {
  readonly mineCount: number;
  /** mine cells, ascending, each in [0, 25) */
  readonly mines: readonly number[];
}

export function checkMineCount(m: number): void {
  if (!Number.isInteger(m) || m < MIN_MINES || m > MAX_MINES) {
    throw new NativeMoveError(`the mine count must be an integer from ${MIN_MINES} to ${MAX_MINES}`);
  }
}

/** A uniform layout: the first m cells of a partial Fisher-Yates shuffle of the 25 cells. */
export function drawMinesLayout(rng: Rng, mineCount: number): MinesLayout {
  checkMineCount(mineCount);
  const cells = Array.from({ length: MINES_CELLS }, (_, i) => i);
  for (let i = 0; i < mineCount; i++) {
    const j = i + rng.int(MINES_CELLS - i);
    const t = cells[i]!;
    cells[i] = cells[j]!;
    cells[j] = t;
  }
  return { mineCount, mines: cells.slice(0, mineCount).sort((a, b) => a - b) };
}

/** P(m, k): the probability that k reveals of distinct cells all miss the m mines. */
export function minesSurvival(mineCount: number, reveals: number): Ratio {
  let n = 1n;
  let d = 1n;
  for (let i = 0; i < reveals; i++) {
    n *= BigInt(MINES_CELLS - mineCount - i);
    d *= BigInt(MINES_CELLS - i);
  }
  return ratio(n, d);
}

/** The multiplier after k safe reveals: R / P(m, k). k = 0 is the stake's value before any reveal. */
export function minesMultiplier(mineCount: number, reveals: number): Ratio {
  checkMineCount(mineCount);
  if (!Number.isInteger(reveals) || reveals < 0 || reveals > MINES_CELLS - mineCount) {
    throw new NativeMoveError('no such number of safe reveals');
  }
  return div(MINES_RETURN, minesSurvival(mineCount, reveals));
}

/** Whether a (k+1)-th reveal is offered: a safe cell remains and its multiplier stays within the cap. */
export function minesCanReveal(mineCount: number, reveals: number): boolean {
  if (reveals >= MINES_CELLS - mineCount) return false;
  return lte(minesMultiplier(mineCount, reveals + 1), MAX_MULTIPLIER);
}

/** The most safe reveals a round can reach with m mines. */
export function minesMaxReveals(mineCount: number): number {
  let k = 0;
  while (minesCanReveal(mineCount, k)) k++;
  return k;
}

export interface MinesRevealResult {
  readonly cell: number;
  readonly mine: boolean;
  /** safe reveals so far (after this one) */
  readonly reveals: number;
  /** the multiplier now: 0 after a mine */
  readonly multiplier: Ratio;
  /** the round cannot go on: a mine, or no further reveal is offered (automatic cash-out) */
  readonly final: boolean;
}

/** One reveal against the round's layout, given the cells already revealed (all safe). */
export function minesReveal(
  layout: MinesLayout,
  revealed: readonly number[],
  cell: number,
): MinesRevealResult {
  if (!Number.isInteger(cell) || cell < 0 || cell >= MINES_CELLS) {
    throw new NativeMoveError(`the cell must be an integer from 0 to ${MINES_CELLS - 1}`);
  }
  if (revealed.includes(cell)) throw new NativeMoveError('that cell is already revealed');
  if (!minesCanReveal(layout.mineCount, revealed.length)) {
    throw new NativeMoveError('no further reveal is offered: cash out');
  }
  if (layout.mines.includes(cell)) {
    return { cell, mine: true, reveals: revealed.length, multiplier: ratio(0), final: true };
  }
  const reveals = revealed.length + 1;
  return {
    cell,
    mine: false,
    reveals,
    multiplier: minesMultiplier(layout.mineCount, reveals),
    final: !minesCanReveal(layout.mineCount, reveals),
  };
}

/** The exact expected return of "reveal k cells, then cash out" (a check for tests). */
export function minesExpectedReturn(mineCount: number, reveals: number): Ratio {
  return mul(minesSurvival(mineCount, reveals), minesMultiplier(mineCount, reveals));
}
