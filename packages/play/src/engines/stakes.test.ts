import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { slotConfig } from '@opi/games';
import { MAX_STAKES, stakeOptions } from './stakes.js';

const plain = { lines: 20, special: null };
const levels = (...bls: number[]) => bls.map((bl) => ({ bl, strips: [], scatterFeatureMultBp: 10_000 }));

describe('stake options', () => {
  test('without a coin: the 1-2-5 ladder within the operator limits', () => {
    const s = stakeOptions({ betMinMinor: 10n, betMaxMinor: 100_000n, coinMinor: null, config: plain });
    assert.deepEqual(s.stakes_minor, [
      '10',
      '20',
      '50',
      '100',
      '200',
      '500',
      '1000',
      '2000',
      '5000',
      '10000',
      '20000',
      '50000',
      '100000',
    ]);
    assert.deepEqual(s.bet_levels, []);
    const odd = stakeOptions({ betMinMinor: 15n, betMaxMinor: 60n, coinMinor: null, config: plain });
    assert.deepEqual(odd.stakes_minor, ['20', '50']);
  });

  test('with a launch coin: coin x lines x level 1 to 10, cut at the limits', () => {
    const s = stakeOptions({ betMinMinor: 10n, betMaxMinor: 1_000n, coinMinor: 5n, config: plain });
    assert.deepEqual(s.stakes_minor, ['100', '200', '300', '400', '500', '600', '700', '800', '900', '1000']);
    const low = stakeOptions({ betMinMinor: 250n, betMaxMinor: 700n, coinMinor: 5n, config: plain });
    assert.deepEqual(low.stakes_minor, ['300', '400', '500', '600', '700']);
    const none = stakeOptions({ betMinMinor: 10n, betMaxMinor: 50n, coinMinor: 5n, config: plain });
    assert.deepEqual(none.stakes_minor, [], 'a coin whose smallest stake is over the maximum offers nothing');
  });

  test('special bet levels list only the stakes whose cost (bet x level) stays within the limits', () => {
    const s = stakeOptions({
      betMinMinor: 10n,
      betMaxMinor: 1_000n,
      coinMinor: null,
      config: { lines: 20, special: levels(1, 5, 200) },
    });
    assert.deepEqual(s.bet_levels, [
      { bet_level: 1, stakes_minor: ['10', '20', '50', '100', '200', '500', '1000'] },
      { bet_level: 5, stakes_minor: ['10', '20', '50', '100', '200'] },
    ]);
  });

  test('a huge range is capped; the real titles get stakes and their special levels', () => {
    const s = stakeOptions({ betMinMinor: 1n, betMaxMinor: 10n ** 17n, coinMinor: null, config: plain });
    assert.equal(s.stakes_minor.length, MAX_STAKES);
    const ember = slotConfig('vs20emberfox');
    const real = stakeOptions({ betMinMinor: 10n, betMaxMinor: 100_000n, coinMinor: null, config: ember });
    assert.deepEqual(
      real.bet_levels.map((l) => l.bet_level),
      ember.special!.map((l) => l.bl),
    );
    for (const l of real.bet_levels) {
      for (const bet of l.stakes_minor) assert.ok(BigInt(bet) * BigInt(l.bet_level) <= 100_000n);
    }
  });
});
