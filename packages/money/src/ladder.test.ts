import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  convertAtRatio,
  convertLadder,
  decimalRatio,
  driftedPast,
  invertRatio,
  isNice,
  snapNice,
  snapToLadder,
} from './index.js';

describe('stake ladders by rate (issue 39 point 3)', () => {
  test('snapping to 1-2-5 steps', () => {
    const cases: Array<[bigint, bigint]> = [
      [0n, 1n],
      [1n, 1n],
      [3n, 2n],
      [4n, 5n],
      [7n, 5n],
      [8n, 10n],
      [101n, 100n],
      [141n, 100n],
      [142n, 200n],
      [316n, 200n],
      [317n, 500n],
      [707n, 500n],
      [708n, 1000n],
      [1012n, 1000n],
      [98_765n, 100_000n],
    ];
    for (const [raw, nice] of cases) assert.equal(snapNice(raw), nice, String(raw));
  });

  test('EUR 0.10 … 100 at BTC/EUR 98,765.12 (inverse) to satoshis', () => {
    const eurPerBtc = decimalRatio('98765.12');
    const btcPerEur = invertRatio(eurPerBtc);
    // EUR 1.00 = 1/98765.12 BTC = 1012.5 sat → 1000 sat.
    assert.equal(convertAtRatio(100n, btcPerEur, 2, 8), 1013n);
    assert.deepEqual(
      convertLadder([10n, 20n, 50n, 100n, 200n, 500n, 1000n, 2000n, 5000n, 10000n], btcPerEur, 2, 8),
      [100n, 200n, 500n, 1000n, 2000n, 5000n, 10000n, 20000n, 50000n, 100000n],
    );
    // EUR → UDT (USDT) at 1.0823: EUR 1 = 1.0823 USDT = 1,082,300 micro → 1,000,000.
    assert.deepEqual(convertLadder([100n, 200n], decimalRatio('1.0823'), 2, 6), [1_000_000n, 2_000_000n]);
    // Steps that snap to one value are one stake.
    assert.deepEqual(convertLadder([10n, 11n, 12n, 20n], decimalRatio('1'), 2, 2), [10n, 20n]);
  });

  test('drift past a band, exactly', () => {
    const then = decimalRatio('100');
    assert.equal(driftedPast(decimalRatio('110'), then, 100_000n), false);
    assert.equal(driftedPast(decimalRatio('110.0001'), then, 100_000n), true);
    assert.equal(driftedPast(decimalRatio('90'), then, 100_000n), false);
    assert.equal(driftedPast(decimalRatio('89.9999'), then, 100_000n), true);
    assert.equal(driftedPast(invertRatio(decimalRatio('0.01')), then, 0n), false);
  });

  const anyMinor = fc.bigInt({ min: 1n, max: 2n ** 62n });
  const anyRate = fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** 24n }), fc.integer({ min: 0, max: 18 }))
    .map(([num, scale]) => ({ num, den: 10n ** BigInt(scale) }));

  test('property: a snapped value is nice, idempotent, and within √2.5 of the raw value', () => {
    fc.assert(
      fc.property(anyMinor, (v) => {
        const s = snapNice(v);
        assert.ok(isNice(s), `${v} → ${s}`);
        assert.equal(snapNice(s), s);
        assert.ok(2n * s * s <= 5n * v * v && 2n * v * v <= 5n * s * s, `${v} → ${s}`);
      }),
      { numRuns: 3000 },
    );
  });

  test('property: a conversion is the exact value rounded half away from zero', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }),
        anyRate,
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 0, max: 9 }),
        (minor, rate, from, to) => {
          const got = convertAtRatio(minor, rate, from, to);
          // exact = minor × num × 10^to / (den × 10^from) = N / D
          const N = minor * rate.num * 10n ** BigInt(to);
          const D = rate.den * 10n ** BigInt(from);
          const err = got * D - N; // (got − exact) × D
          const abs = err < 0n ? -err : err;
          assert.ok(2n * abs <= D, `${minor} at ${rate.num}/${rate.den}: ${got}`);
          if (2n * abs === D) assert.ok(got < 0n ? err < 0n : err > 0n, 'a half rounds away from zero');
        },
      ),
      { numRuns: 3000 },
    );
  });

  test('property: a converted ladder is ascending, nice and without repeats', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.bigInt({ min: 1n, max: 10n ** 9n }), { minLength: 1, maxLength: 20 }),
        anyRate,
        fc.integer({ min: 0, max: 9 }),
        (steps, rate, to) => {
          const reference = [...steps].sort((a, b) => (a < b ? -1 : 1));
          const ladder = convertLadder(reference, rate, 2, to);
          assert.ok(ladder.length >= 1 && ladder.length <= reference.length);
          for (let i = 0; i < ladder.length; i++) {
            assert.ok(isNice(ladder[i]!));
            if (i > 0) assert.ok(ladder[i]! > ladder[i - 1]!);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  test('a stake snapped to a ladder: a step stays, others go to the nearest step by ratio', () => {
    const ladder = [100n, 200n, 500n, 1000n, 100_000n];
    const cases: Array<[bigint, bigint]> = [
      [1n, 100n],
      [100n, 100n],
      [141n, 100n],
      [142n, 200n],
      [1000n, 1000n],
      [10_000n, 1000n],
      [10_001n, 100_000n],
      [5_000_000n, 100_000n],
    ];
    for (const [raw, snapped] of cases) assert.equal(snapToLadder(raw, ladder), snapped, String(raw));
    assert.throws(() => snapToLadder(1n, []), RangeError);
  });

  test('property: a stake snapped to a ladder is a step, the stake itself when it is one, and none is nearer by ratio', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.bigInt({ min: 1n, max: 10n ** 15n }), { minLength: 1, maxLength: 30 }),
        fc.bigInt({ min: 1n, max: 10n ** 16n }),
        (steps, v) => {
          const ladder = [...steps].sort((a, b) => (a < b ? -1 : 1));
          const s = snapToLadder(v, ladder);
          assert.ok(ladder.includes(s));
          if (ladder.includes(v)) assert.equal(s, v);
          // By ratio: no step t with max(t, v)/min(t, v) < max(s, v)/min(s, v), compared in integers.
          const far = (t: bigint) => (t > v ? [t, v] : [v, t]) as [bigint, bigint];
          const [sn, sd] = far(s);
          for (const t of ladder) {
            const [tn, td] = far(t);
            assert.ok(tn * sd >= sn * td, `${t} is nearer to ${v} than ${s}`);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
