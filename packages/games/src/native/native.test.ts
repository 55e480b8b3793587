import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STORED_RTP } from '../catalog.js';
import { SeededRng } from '../slots/rng.js';
import { Z999 } from '../slots/simulate.js';
import {
  checkDiceTarget,
  DICE_MAX_TARGET,
  DICE_MIN_TARGET,
  DICE_OUTCOMES,
  diceMultiplier,
  diceOutcome,
  rollDice,
} from './dice.js';
import {
  cardName,
  cardRank,
  HILO_RANKS,
  HILO_RETURN,
  type HiloGuess,
  hiloGuess,
  hiloLikelierGuess,
  hiloNextMultiplier,
  hiloOptions,
  hiloWins,
} from './hilo.js';
import {
  drawMinesLayout,
  MAX_MINES,
  MIN_MINES,
  MINES_CELLS,
  minesCanReveal,
  minesExpectedReturn,
  minesMaxReveals,
  minesMultiplier,
  minesReveal,
} from './mines.js';
import { add, applyTo, eq, lte, mul, type Ratio, ratio, toDecimal, toNumber, ZERO } from './rational.js';
import { nativeCryptoRng } from './rng.js';
import { MAX_MULTIPLIER, NativeMoveError, returnFactor } from './rules.js';
import { NATIVE_STRATEGIES, simulateNative } from './simulate.js';

const R97 = ratio(97, 100);
const R98 = ratio(98, 100);

describe('rationals', () => {
  test('reduce, multiply, floor and print exactly', () => {
    assert.deepEqual(ratio(6, 8), { n: 3n, d: 4n });
    assert.ok(eq(mul(ratio(2, 3), ratio(3, 4)), ratio(1, 2)));
    assert.equal(applyTo(1_00n, ratio(97, 77)), 125n, 'a payout is floored to the minor unit');
    assert.equal(toDecimal(ratio(97, 77), 8), '1.25974025');
    assert.equal(toDecimal(ratio(196, 100), 2), '1.96');
    assert.throws(() => ratio(1, 0));
  });
  test('return factors come from the stored RTP', () => {
    assert.ok(eq(returnFactor('cnmines'), R97));
    assert.ok(eq(returnFactor('cnhilo'), R97));
    assert.ok(eq(returnFactor('cndice'), R98));
    assert.equal(STORED_RTP.cnmines, '97.00');
  });
});

/** All k-subsets of [0, n) (small n only). */
function* subsets(n: number, k: number, from = 0, acc: number[] = []): Generator<number[]> {
  if (acc.length === k) {
    yield acc;
    return;
  }
  for (let i = from; i < n; i++) yield* subsets(n, k, i + 1, [...acc, i]);
}

describe('mines', () => {
  test('every (mines, reveals) pair returns exactly 97/100 in expectation', () => {
    for (let m = MIN_MINES; m <= MAX_MINES; m++) {
      const max = minesMaxReveals(m);
      assert.ok(max >= 1, `${m} mines: at least one reveal`);
      for (let k = 1; k <= max; k++)
        assert.ok(eq(minesExpectedReturn(m, k), R97), `${m} mines, ${k} reveals`);
    }
  });

  test('the multiplier is exact against a full enumeration of layouts', () => {
    for (const [m, picks] of [
      [3, [0, 1]],
      [2, [4, 17, 24]],
      [1, [0, 1, 2, 3, 4]],
    ] as const) {
      let total = ZERO;
      let layouts = 0;
      for (const mines of subsets(MINES_CELLS, m)) {
        layouts++;
        let revealed: number[] = [];
        let paid = ZERO;
        for (const cell of picks) {
          const r = minesReveal({ mineCount: m, mines }, revealed, cell);
          if (r.mine) break;
          revealed = [...revealed, cell];
          if (revealed.length === picks.length) paid = r.multiplier;
        }
        total = add(total, paid);
      }
      assert.ok(eq(mul(total, ratio(1, layouts)), R97), `${m} mines, picks ${picks.join(',')}`);
    }
    // 3 mines, 2 reveals: 0.97 x (25 x 24) / (22 x 21) = 97/77.
    assert.ok(eq(minesMultiplier(3, 2), ratio(97, 77)));
    assert.ok(eq(minesMultiplier(24, 1), ratio(2425, 100)));
  });

  test('reveals: a mine ends the round with nothing; repeats and cells off the grid are refused', () => {
    const layout = { mineCount: 2, mines: [3, 20] };
    const safe = minesReveal(layout, [], 0);
    assert.deepEqual([safe.mine, safe.reveals, safe.final], [false, 1, false]);
    assert.ok(eq(safe.multiplier, minesMultiplier(2, 1)));
    const boom = minesReveal(layout, [0], 20);
    assert.deepEqual([boom.mine, boom.final, boom.multiplier.n], [true, true, 0n]);
    assert.throws(() => minesReveal(layout, [0], 0), NativeMoveError);
    assert.throws(() => minesReveal(layout, [], 25), NativeMoveError);
    assert.throws(() => minesReveal(layout, [], -1), NativeMoveError);
    assert.throws(() => drawMinesLayout(new SeededRng(1), 0), NativeMoveError);
    assert.throws(() => drawMinesLayout(new SeededRng(1), 25), NativeMoveError);
  });

  test('the cap: no reachable multiplier passes 10,000x, and the last allowed reveal is final', () => {
    for (let m = MIN_MINES; m <= MAX_MINES; m++) {
      const max = minesMaxReveals(m);
      assert.ok(lte(minesMultiplier(m, max), MAX_MULTIPLIER));
      assert.equal(minesCanReveal(m, max), false);
    }
    assert.equal(minesMaxReveals(1), 24, 'one mine: every safe cell');
    assert.equal(minesMaxReveals(24), 1);
    // 5 mines: all 20 safe cells would pay 0.97 x C(25,20) = 51,536x; the cap stops earlier.
    assert.ok(minesMaxReveals(5) < 20);
    const mines = [20, 21, 22, 23, 24];
    const revealed = Array.from({ length: minesMaxReveals(5) - 1 }, (_, i) => i);
    const last = minesReveal({ mineCount: 5, mines }, revealed, revealed.length);
    assert.equal(last.final, true, 'the last offered reveal cashes out automatically');
    assert.throws(() => minesReveal({ mineCount: 5, mines }, [...revealed, revealed.length], 19));
  });

  test('layouts are uniform-looking, distinct and sorted', () => {
    const rng = new SeededRng(7);
    const hits = new Array(MINES_CELLS).fill(0);
    for (let i = 0; i < 50_000; i++) {
      const { mines } = drawMinesLayout(rng, 3);
      assert.equal(new Set(mines).size, 3);
      for (const c of mines) hits[c]++;
    }
    // Each cell is a mine with probability 3/25: 6,000 expected, sd ~ 73.
    for (const h of hits) assert.ok(Math.abs(h - 6000) < 450, `cell count ${h}`);
    const live = drawMinesLayout(nativeCryptoRng, 24);
    assert.equal(live.mines.length, 24);
  });
});

describe('hi-lo', () => {
  /** The exact expected return of a (possibly adaptive) strategy that stops after `n` right guesses. */
  function expected(
    pick: (rank: number, step: number) => HiloGuess,
    n: number,
    rank: number,
    step = 0,
    multiplier: Ratio = HILO_RETURN,
  ): Ratio {
    if (step === n) return multiplier;
    const guess = pick(rank, step);
    let sum = ZERO;
    for (let card = 0; card < 52; card++) {
      const r = hiloGuess(rank - 1, multiplier, guess, card);
      if (r.correct) sum = add(sum, expected(pick, n, cardRank(card), step + 1, r.multiplier));
    }
    return mul(sum, ratio(1, 52));
  }
  const fromEveryRank = (pick: (rank: number, step: number) => HiloGuess, n: number): Ratio => {
    let sum = ZERO;
    for (let r = 1; r <= HILO_RANKS; r++) sum = add(sum, expected(pick, n, r));
    return mul(sum, ratio(1, HILO_RANKS));
  };

  test('strategies that cash out return exactly 97/100', () => {
    assert.ok(eq(fromEveryRank(hiloLikelierGuess, 1), R97));
    assert.ok(eq(fromEveryRank(hiloLikelierGuess, 3), R97));
    // An adaptive mix: "same" on a 7, the unlikelier side on the first guess, else the likelier one.
    const mixed = (rank: number, step: number): HiloGuess =>
      rank === 7
        ? 'same'
        : step === 0 && rank > 1 && rank < 13
          ? hiloLikelierGuess(rank) === 'higher'
            ? 'lower'
            : 'higher'
          : hiloLikelierGuess(rank);
    assert.ok(eq(fromEveryRank(mixed, 2), R97));
    for (const s of NATIVE_STRATEGIES) if (s.symbol === 'cnhilo') assert.ok(eq(s.theory(), R97), s.id);
  });

  test('per-guess multipliers: 13/c each, the edge once; impossible guesses are not offered', () => {
    // On a 2 (rank 2): higher wins with 11 ranks -> x13/11.
    const m = hiloNextMultiplier(HILO_RETURN, 2, 'higher')!;
    assert.ok(eq(m, mul(R97, ratio(13, 11))));
    assert.deepEqual(
      hiloOptions(HILO_RETURN, 1).map((o) => o.guess),
      ['higher', 'same'],
      'nothing is lower than an ace',
    );
    assert.deepEqual(
      hiloOptions(HILO_RETURN, 13).map((o) => o.guess),
      ['lower', 'same'],
    );
    assert.throws(() => hiloGuess(0, HILO_RETURN, 'lower', 5), NativeMoveError);
    const wrong = hiloGuess(6 /* 7 of spades */, HILO_RETURN, 'higher', 1 /* 2 */);
    assert.deepEqual([wrong.correct, wrong.final, wrong.multiplier.n], [false, true, 0n]);
    const tie = hiloGuess(6, HILO_RETURN, 'same', 19 /* 7 of hearts */);
    assert.equal(tie.correct, true);
    assert.ok(eq(tie.multiplier, mul(R97, ratio(13))));
    assert.equal(hiloWins(7, 'higher', 7), false, 'higher is strictly higher');
    assert.equal(cardName(12), 'KS');
    assert.equal(cardName(13 + 9), '10H');
  });

  test('the cap: a guess past 10,000x is not offered', () => {
    let m = HILO_RETURN;
    let guesses = 0;
    for (;;) {
      const next = hiloNextMultiplier(m, 7, 'same');
      if (!next) break;
      m = next;
      guesses++;
    }
    assert.equal(guesses, 3, '0.97 x 13^3 = 2,131x; x13 again would pass the cap');
    assert.ok(lte(m, MAX_MULTIPLIER));
  });
});

describe('dice', () => {
  test('every target returns exactly 98/100; 50.00 pays 1.96x', () => {
    for (let t = DICE_MIN_TARGET; t <= DICE_MAX_TARGET; t++) {
      assert.ok(eq(mul(diceMultiplier(t), ratio(t, DICE_OUTCOMES)), R98), `target ${t}`);
    }
    assert.equal(toDecimal(diceMultiplier(5000), 2), '1.96');
    assert.equal(toDecimal(diceMultiplier(100), 2), '98.00');
    assert.deepEqual(
      [diceOutcome(5000, 4999).win, diceOutcome(5000, 5000).win, diceOutcome(5000, 0).win],
      [true, false, true],
    );
    assert.throws(() => checkDiceTarget(99), NativeMoveError);
    assert.throws(() => checkDiceTarget(9801), NativeMoveError);
    assert.throws(() => checkDiceTarget(50.5), NativeMoveError);
    const r = rollDice(nativeCryptoRng, 5000);
    assert.ok(r.roll >= 0 && r.roll < DICE_OUTCOMES);
  });
});

describe('RTP simulation (seeded)', () => {
  const ROUNDS = 200_000;
  for (const s of NATIVE_STRATEGIES) {
    test(`${s.id}: exact theory, and the stored RTP lies inside the 99.9% CI of ${ROUNDS} rounds`, () => {
      const stored = Number(STORED_RTP[s.symbol]) / 100;
      assert.ok(
        eq(s.theory(), ratio(Math.round(stored * 100), 100)),
        'the strategy returns the stored RTP exactly',
      );
      const r = simulateNative(s, ROUNDS, 20250101);
      const lo = r.rtp - Z999 * r.stdError;
      const hi = r.rtp + Z999 * r.stdError;
      assert.ok(stored >= lo && stored <= hi, `${s.id}: stored ${stored} outside [${lo}, ${hi}]`);
    });
  }

  test("the simulator's multiplier table matches the engine's exact multipliers", () => {
    for (const [m, k] of [
      [3, 2],
      [1, 5],
      [24, 1],
    ] as const) {
      const s = NATIVE_STRATEGIES.find((x) => x.id === `mines-${m}m-cashout-${k}`)!;
      const play = s.player();
      const rng = new SeededRng(3);
      const paid = new Set<number>();
      for (let i = 0; i < 2_000; i++) paid.add(play(rng));
      paid.delete(0);
      assert.deepEqual([...paid], [toNumber(minesMultiplier(m, k))]);
    }
  });

  test('is reproducible for a seed', () => {
    const s = NATIVE_STRATEGIES[0]!;
    assert.equal(simulateNative(s, 20_000, 9).won, simulateNative(s, 20_000, 9).won);
    assert.notEqual(simulateNative(s, 20_000, 9).won, simulateNative(s, 20_000, 10).won);
  });
});
