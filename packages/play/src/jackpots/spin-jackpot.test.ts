import assert from 'node:assert/strict';
import { test } from 'node:test';
import { drawsHit, playLevels, uniformBelow } from './spin-jackpot.js';

// Pure logic: the draw's odds and the contribution arithmetic (docs/jackpots-and-promotions.md).

/** A deterministic byte source for the rejection sampler. */
const bytesFrom = (values: number[]) => {
  let i = 0;
  return (size: number) => Buffer.from(Array.from({ length: size }, () => values[i++ % values.length]!));
};

test('uniformBelow rejects values past the bound instead of folding them (no modulo bias)', () => {
  // n = 5 needs 3 bits: 7 and 6 are rejected, 4 is taken.
  assert.equal(uniformBelow(5n, bytesFrom([7, 6, 4])), 4n);
  assert.throws(() => uniformBelow(0n), RangeError);
  for (let i = 0; i < 1000; i++) {
    const v = uniformBelow(1_000_000_000_000_000n);
    assert.ok(v >= 0n && v < 1_000_000_000_000_000n);
  }
});

test('a spin hits with probability stake / hit_every (and always at or past it)', () => {
  assert.equal(drawsHit(100n, 100n), true);
  assert.equal(drawsHit(101n, 100n), true);
  let hits = 0;
  const n = 40_000;
  for (let i = 0; i < n; i++) if (drawsHit(25n, 100n)) hits++;
  // Expected 10,000; the standard deviation is about 87, so ±600 is a 7-sigma band.
  assert.ok(Math.abs(hits - n / 4) < 600, `hits ${hits}`);
});

test('contributions are stake × rate in micros, exact, summed over the levels', () => {
  const { levels, contributionMicros } = playLevels(
    {
      jackpotId: 'j',
      levels: [
        { level: 'mini', ratePpm: 3333n, hitEveryMinor: 10n ** 15n },
        { level: 'mega', ratePpm: 7n, hitEveryMinor: 10n ** 15n },
      ],
    },
    123_456_789n,
  );
  assert.deepEqual(
    levels.map((l) => [l.level, l.contribution_micros, l.hit]),
    [
      ['mini', (123_456_789n * 3333n).toString(), false],
      ['mega', (123_456_789n * 7n).toString(), false],
    ],
  );
  assert.equal(contributionMicros, 123_456_789n * 3340n);
});
