/**
 * Spark Dice (`cndice`): roll-under, one stage. The roll is uniform over 0.00 .. 99.99 (an integer
 * 0..9999 in hundredths); the player picks a target t from 1.00 to 98.00 and wins when roll < t,
 * with p = t / 100. The multiplier is exactly R / p = 9800 / t (t in hundredths), R = 98/100 (the
 * stored RTP), so every target returns exactly R in expectation. Target 50.00 pays 1.96x.
 */
import type { Rng } from '../slots/rng.js';
import { div, type Ratio, ratio } from './rational.js';
import { NativeMoveError, returnFactor } from './rules.js';

/** Rolls are integers in [0, DICE_OUTCOMES): hundredths of 0.00 .. 99.99. */
export const DICE_OUTCOMES = 10_000;
export const DICE_MIN_TARGET = 100;
export const DICE_MAX_TARGET = 9_800;
export const DICE_RETURN = returnFactor('cndice');

export function checkDiceTarget(target: number): void {
  if (!Number.isInteger(target) || target < DICE_MIN_TARGET || target > DICE_MAX_TARGET) {
    throw new NativeMoveError(
      `the target must be an integer number of hundredths from ${DICE_MIN_TARGET} to ${DICE_MAX_TARGET}`,
    );
  }
}

/** The chance of a win below `target` (hundredths). */
export function diceProbability(target: number): Ratio {
  checkDiceTarget(target);
  return ratio(target, DICE_OUTCOMES);
}

export function diceMultiplier(target: number): Ratio {
  return div(DICE_RETURN, diceProbability(target));
}

export interface DiceResult {
  readonly target: number;
  /** 0..9999 (hundredths) */
  readonly roll: number;
  readonly win: boolean;
  /** the multiplier paid: R/p on a win, 0 otherwise */
  readonly multiplier: Ratio;
}

export function diceOutcome(target: number, roll: number): DiceResult {
  const multiplier = diceMultiplier(target);
  const win = roll < target;
  return { target, roll, win, multiplier: win ? multiplier : ratio(0) };
}

export function rollDice(rng: Rng, target: number): DiceResult {
  checkDiceTarget(target);
  return diceOutcome(target, rng.int(DICE_OUTCOMES));
}
