import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CryptoRng, SeededRng } from './rng.js';

describe('CryptoRng', () => {
  test('int(n) stays in [0, n) and reaches every value', () => {
    const rng = new CryptoRng(64);
    for (const n of [1, 2, 6, 7, 1000, 2 ** 32]) {
      for (let i = 0; i < 2000; i++) {
        const v = rng.int(n);
        assert.ok(Number.isInteger(v) && v >= 0 && v < n, `${v} for ${n}`);
      }
    }
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(rng.int(6));
    assert.equal(seen.size, 6);
  });

  test('rejects bad bounds', () => {
    const rng = new CryptoRng();
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 32 + 1]) {
      assert.throws(() => rng.int(bad), RangeError, String(bad));
    }
    assert.throws(() => new CryptoRng(3), RangeError);
  });
});

describe('SeededRng', () => {
  test('is deterministic per seed and differs across seeds', () => {
    const a = new SeededRng(42);
    const b = new SeededRng(42);
    const c = new SeededRng(43);
    const sa = Array.from({ length: 50 }, () => a.int(1000));
    assert.deepEqual(
      sa,
      Array.from({ length: 50 }, () => b.int(1000)),
    );
    assert.notDeepEqual(
      sa,
      Array.from({ length: 50 }, () => c.int(1000)),
    );
  });

  test('is roughly uniform (chi-square, 10 buckets) and rejects bad bounds', () => {
    const rng = new SeededRng(7);
    const buckets = new Array<number>(10).fill(0);
    const n = 100_000;
    for (let i = 0; i < n; i++) buckets[rng.int(10)]!++;
    const chi = buckets.reduce((s, o) => s + (o - n / 10) ** 2 / (n / 10), 0);
    assert.ok(chi < 27.9, `chi-square ${chi}`); // p = 0.001 at 9 dof
    assert.throws(() => rng.int(0), RangeError);
    assert.throws(() => new SeededRng(1.5), RangeError);
  });
});
