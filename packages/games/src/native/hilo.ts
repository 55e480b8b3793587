/**
 * Ash Hi-Lo (`cnhilo`): a card is dealt at the bet; the player guesses whether the next card is
 * strictly higher, strictly lower, or the same rank (ace low: A=1 ... K=13). Each guess is a
 * stage; a wrong guess ends the round with nothing; after any right guess the player may cash out.
 *
 * Every card comes from a freshly shuffled 52-card deck (the shoe is reshuffled before each card),
 * so the next rank is uniform over 13 whatever came before. With the current rank r, a guess wins
 * with p = c / 13, c = 13 - r (higher), r - 1 (lower) or 1 (same); a guess with c = 0 is not
 * offered. The multiplier after right guesses with counts c1..cn is exactly
 *   R x prod(13 / ci),   R = 97/100 (the stored RTP),
 * i.e. R / P(all n guesses right): each guess multiplies by 1/p, the edge is taken once. As with
 * Mines this is a martingale, so any strategy that cashes out returns exactly R in expectation.
 */
import type { Rng } from '../slots/rng.js';
import { lte, mul, type Ratio, ratio } from './rational.js';
import { MAX_MULTIPLIER, NativeMoveError, returnFactor } from './rules.js';

export const HILO_RANKS = 13;
export const HILO_DECK = 52;
export const HILO_RETURN = returnFactor('cnhilo');
export const HILO_GUESSES = ['higher', 'lower', 'same'] as const;
export type HiloGuess = (typeof HILO_GUESSES)[number];

/** A card 0..51: rank (card % 13) + 1 (1 = ace ... 13 = king), suit floor(card / 13). */
export const cardRank = (card: number): number => (card % HILO_RANKS) + 1;
export const cardSuit = (card: number): number => Math.floor(card / HILO_RANKS);
const RANK_NAMES = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
const SUIT_NAMES = ['S', 'H', 'D', 'C'];
/** 'QH', '10S', 'AC' ... */
export const cardName = (card: number): string =>
  `${RANK_NAMES[cardRank(card) - 1]}${SUIT_NAMES[cardSuit(card)]}`;

export function drawCard(rng: Rng): number {
  return rng.int(HILO_DECK);
}

/** How many of the 13 ranks make `guess` right after a card of rank `rank`. */
export function hiloWinningRanks(rank: number, guess: HiloGuess): number {
  switch (guess) {
    case 'higher':
      return HILO_RANKS - rank;
    case 'lower':
      return rank - 1;
    case 'same':
      return 1;
  }
}

export function hiloWins(rank: number, guess: HiloGuess, nextRank: number): boolean {
  return guess === 'higher' ? nextRank > rank : guess === 'lower' ? nextRank < rank : nextRank === rank;
}

/** The multiplier before any guess (not a cash-out offer: a round pays only after a right guess). */
export const hiloStartMultiplier = (): Ratio => HILO_RETURN;

/** The multiplier a right `guess` leads to, from `multiplier`, or null when the guess is not offered. */
export function hiloNextMultiplier(multiplier: Ratio, rank: number, guess: HiloGuess): Ratio | null {
  const c = hiloWinningRanks(rank, guess);
  if (c <= 0) return null;
  const next = mul(multiplier, ratio(HILO_RANKS, c));
  return lte(next, MAX_MULTIPLIER) ? next : null;
}

export interface HiloOption {
  readonly guess: HiloGuess;
  /** chance of being right, c/13 */
  readonly probability: Ratio;
  /** the multiplier if right */
  readonly multiplier: Ratio;
}

/** The guesses offered on a card of rank `rank` at `multiplier`. */
export function hiloOptions(multiplier: Ratio, rank: number): HiloOption[] {
  const out: HiloOption[] = [];
  for (const guess of HILO_GUESSES) {
    const next = hiloNextMultiplier(multiplier, rank, guess);
    if (next)
      out.push({ guess, probability: ratio(hiloWinningRanks(rank, guess), HILO_RANKS), multiplier: next });
  }
  return out;
}

/** The likelier of higher and lower (higher on a tie, the 7). */
export function hiloLikelierGuess(rank: number): HiloGuess {
  return hiloWinningRanks(rank, 'higher') >= hiloWinningRanks(rank, 'lower') ? 'higher' : 'lower';
}

export interface HiloGuessResult {
  readonly guess: HiloGuess;
  readonly card: number;
  readonly correct: boolean;
  /** the multiplier now: 0 after a wrong guess */
  readonly multiplier: Ratio;
  /** the round cannot go on: a wrong guess, or no guess is offered any more (automatic cash-out) */
  readonly final: boolean;
}

/** One guess from the current card at `multiplier`; `nextCard` is drawn by the caller (CSPRNG). */
export function hiloGuess(
  currentCard: number,
  multiplier: Ratio,
  guess: HiloGuess,
  nextCard: number,
): HiloGuessResult {
  if (!HILO_GUESSES.includes(guess)) throw new NativeMoveError('the guess must be higher, lower or same');
  const rank = cardRank(currentCard);
  const next = hiloNextMultiplier(multiplier, rank, guess);
  if (!next) throw new NativeMoveError(`"${guess}" is not offered on this card`);
  if (!hiloWins(rank, guess, cardRank(nextCard))) {
    return { guess, card: nextCard, correct: false, multiplier: ratio(0), final: true };
  }
  return {
    guess,
    card: nextCard,
    correct: true,
    multiplier: next,
    final: hiloOptions(next, cardRank(nextCard)).length === 0,
  };
}
