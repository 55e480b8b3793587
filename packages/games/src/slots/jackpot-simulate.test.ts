import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { slotConfig } from './configs.js';
import {
  type JackpotDef,
  jackpotPoolStep,
  jackpotSeedFor,
  MICROS,
  parseJackpotSpec,
  REFERENCE_JACKPOT_SPEC,
  simulateJackpot,
  simulateTitleWithJackpot,
} from './jackpot-simulate.js';
import { SeededRng } from './rng.js';
import { simulate } from './simulate.js';

/**
 * The statistical band: share + held share = r/1e6 + S × hits / W exactly (W = total stake), so
 * its only randomness is the number of hits, Binomial(N, p) with p = stake / H. Its standard
 * deviation is sigma = S × sqrt(N p (1 − p)) / W, and the tests accept |measured − expected| ≤ 4
 * sigma (two-sided, a chance of 6.3e-5 of failing by bad luck for a correct simulator; the runs are
 * seeded, so a pass is not luck, it is the same pass every time).
 */
const Z = 4;
const M = BigInt(MICROS);

const close = (a: number, b: number, what = '') =>
  assert.ok(Math.abs(a - b) < 1e-12, `${what}: ${a} vs ${b}`);
const mini = (extra = ''): JackpotDef => parseJackpotSpec(`mini:5000:1000:200000${extra}`);

/** jackpot_pool_step transcribed from migration 20 in bigint arithmetic: the reference. */
function sqlStep(
  amount: bigint,
  reserve: bigint,
  capMinor: bigint | null,
  seedMinor: bigint,
  contribution: bigint,
  hit: boolean,
): [bigint, bigint, bigint] {
  const total = amount + contribution;
  const capped = capMinor === null ? total : total < capMinor * M ? total : capMinor * M;
  const spill = total - capped;
  const win = hit ? capped / M : 0n;
  if (win > 0n) {
    const refill = seedMinor * M + (capped - win * M) + reserve + spill;
    const amountNew = capMinor === null || refill < capMinor * M ? refill : capMinor * M;
    return [amountNew, refill - amountNew, win];
  }
  return [capped, reserve + spill, 0n];
}

describe('jackpot simulation', () => {
  test('the pool step is jackpot_pool_step: the SQL test vectors and 200,000 random steps', () => {
    const step = (...a: [number, number, number | null, number, number, boolean]) => {
      const r = jackpotPoolStep(...a);
      return [r.newAmount, r.newReserve, r.winMinor];
    };
    // The vectors of services/game-server/src/slots/jackpot-spin.test.ts, run there in PostgreSQL.
    assert.deepEqual(step(5_000_000, 0, null, 5, 1_234, false), [5_001_234, 0, 0]);
    assert.deepEqual(step(5_900_000, 0, 6, 5, 200_000, false), [6_000_000, 100_000, 0]);
    assert.deepEqual(step(7_000_000, 250_000, null, 5, 500_000, true), [5_750_000, 0, 7]);
    assert.deepEqual(step(6_000_000, 3_000_000, 6, 5, 100_000, true), [6_000_000, 2_100_000, 6]);
    assert.deepEqual(step(0, 0, null, 0, 999_999, true), [999_999, 0, 0]);
    const rng = new SeededRng(42);
    const below = (n: number) => Math.floor((rng.nextUint32() / 2 ** 32) * n);
    for (let i = 0; i < 200_000; i++) {
      const capped = rng.int(2) === 0;
      const cap = capped ? 1 + below(9_000_000_000) : null;
      const seed = cap === null ? below(1_000_000_000) : below(cap);
      const amount = cap === null ? below(2 ** 45) : below(cap * MICROS + 1);
      const reserve = below(2 ** 45);
      const contribution = below(rng.int(2) === 0 ? 10_000_000 : 2 ** 40);
      const hit = rng.int(2) === 0;
      const got = jackpotPoolStep(amount, reserve, cap, seed, contribution, hit);
      const want = sqlStep(
        BigInt(amount),
        BigInt(reserve),
        cap === null ? null : BigInt(cap),
        BigInt(seed),
        BigInt(contribution),
        hit,
      );
      assert.deepEqual([BigInt(got.newAmount), BigInt(got.newReserve), BigInt(got.winMinor)], want);
    }
  });

  test('conservation to the micro over 2,000,000 spins: seeds + contributions = pools + reserves + wins', () => {
    const def = parseJackpotSpec(
      [
        'mini:5000:1000:200000', // seeded, uncapped
        'capped:20000:1000:200000:1500', // the cap turns contributions away to the reserve
        'noseed:100:0:1000', // hits on a pool under one minor unit win nothing
        'sure:1:3:50', // the stake reaches hit_every: every spin hits
        'huge:777:5000000:3000000000000', // hit_every above 2^32: the wide draw
      ].join(','),
    );
    const r = simulateJackpot(def, 100, 2_000_000, 7);
    for (const l of r.levels) {
      assert.equal(
        l.seededMicros + l.contributionsMicros,
        l.finalAmountMicros + l.finalReserveMicros + l.winsMinor * M,
        `${l.level}: the pool invariant`,
      );
      assert.equal(l.contributionsMicros, 100n * BigInt(l.ratePpm) * 2_000_000n);
      assert.equal(l.seededMicros, BigInt(l.seedMinor) * M * BigInt(1 + l.hits));
      // share + held = r + S × hits / W, exactly (to the float's rounding)
      const exact = l.ratePpm / 1e6 + (l.seedMinor * l.hits) / (100 * 2_000_000);
      assert.ok(
        Math.abs(l.share + l.heldShare - exact) < 1e-12,
        `${l.level}: ${l.share + l.heldShare} vs ${exact}`,
      );
    }
    const [, capped, noseed, sure] = r.levels;
    assert.ok(capped!.finalReserveMicros > 0n && capped!.maxWinMinor === 1500);
    assert.ok(noseed!.emptyHits > 0, 'drawn hits on a pool under one minor unit are no hits');
    assert.equal(sure!.hits, 2_000_000);
    // Each sure hit pays the seed; the contributions (100 micros a spin) wait in the remainder until
    // they make a whole minor unit (every 10,000th spin pays 4).
    assert.equal(sure!.winsMinor, 2_000_000n * 3n + 200n);
    assert.equal(sure!.finalAmountMicros, 3n * M);
  });

  test('the measured share lies within 4 sigma of r + S/H, whatever the stake', () => {
    // N = 2,000,000 spins of 100 (p = 1/2000: 1,000 hits expected): sigma = 1000 × sqrt(999.5) / 2e8
    // = 0.0158 percentage points, against an expected share of 1.000%.
    for (const [stake, spins] of [
      [100, 2_000_000],
      [250, 800_000],
      [7, 4_000_000],
    ] as const) {
      const r = simulateJackpot(mini(), stake, spins, 20250101);
      const l = r.levels[0]!;
      const p = stake / 200_000;
      close(l.expectedShare, 0.01, 'expected');
      assert.ok(Math.abs(l.sigma - (1000 * Math.sqrt(spins * p * (1 - p))) / (stake * spins)) < 1e-15);
      assert.ok(
        Math.abs(l.hits - spins * p) <= Z * Math.sqrt(spins * p * (1 - p)),
        `stake ${stake}: ${l.hits} hits`,
      );
      const measured = l.share + l.heldShare;
      assert.ok(
        Math.abs(measured - 0.01) <= Z * l.sigma,
        `stake ${stake}: ${measured} vs 0.01 ± ${Z * l.sigma}`,
      );
      // What is held at the end (about one gap's contributions, r × H) is small against sigma here.
      assert.ok(l.heldShare >= 0 && l.heldShare < l.sigma, `stake ${stake}: held ${l.heldShare}`);
      assert.ok(Math.abs(l.share - 0.01) <= Z * l.sigma + l.heldShare);
    }
  });

  test('a stake above hit_every: the chance is 1 and the expected seed share S/s', () => {
    const r = simulateJackpot(parseJackpotSpec('lvl:2000:10:40'), 100, 10_000, 1);
    const l = r.levels[0]!;
    assert.equal(l.hits, 10_000);
    close(l.expectedShare, 0.002 + 10 / 100, 'expected');
    assert.equal(l.sigma, 0);
    close(l.share, 0.002 + 0.1 - l.heldShare, 'share');
  });

  test('a cap makes the expected share a bound: no hit pays more than the cap, the rest is held', () => {
    // Uncapped a hit pays S + r × (stake since the last hit), about 1000 + 0.005 × 200,000 = 2,000
    // on average; the cap of 1,500 pays at most 1,500, and the rest accumulates in the reserve.
    const capped = simulateJackpot(mini(':1500'), 100, 2_000_000, 11).levels[0]!;
    assert.ok(capped.maxWinMinor <= 1500);
    assert.ok(capped.winsMinor <= 1500n * BigInt(capped.hits));
    assert.ok(
      capped.share <= capped.expectedShare - Z * capped.sigma,
      `${capped.share} is held down by the cap`,
    );
    assert.ok(Math.abs(capped.share - (1500 * capped.hits) / 2e8) < 0.0002, 'nearly every hit pays the cap');
    assert.ok(capped.finalReserveMicros > 0n);
    assert.ok(Math.abs(capped.share + capped.heldShare - capped.expectedShare) <= Z * capped.sigma);
    // A cap the pool rarely reaches changes next to nothing.
    const loose = simulateJackpot(mini(':100000'), 100, 2_000_000, 11).levels[0]!;
    const free = simulateJackpot(mini(), 100, 2_000_000, 11).levels[0]!;
    assert.ok(loose.share <= loose.expectedShare + Z * loose.sigma);
    assert.equal(loose.hits, free.hits);
    assert.equal(loose.winsMinor, free.winsMinor);
  });

  test('is reproducible for a seed', () => {
    const def = parseJackpotSpec(REFERENCE_JACKPOT_SPEC);
    const strip = (r: ReturnType<typeof simulateJackpot>) => ({ ...r, seconds: 0 });
    assert.deepEqual(
      strip(simulateJackpot(def, 100, 300_000, 5)),
      strip(simulateJackpot(def, 100, 300_000, 5)),
    );
    assert.notDeepEqual(
      strip(simulateJackpot(def, 100, 300_000, 5)).levels,
      strip(simulateJackpot(def, 100, 300_000, 6)).levels,
    );
  });

  test('a title: the base game is the plain simulator, total = base + jackpot share', () => {
    const cfg = slotConfig('vs20emberfox');
    const def = parseJackpotSpec('reference');
    const t = simulateTitleWithJackpot(cfg, def, { spins: 200_000, seed: 20250101, betMinor: 100 });
    assert.equal(t.base.won, simulate(cfg, 200_000, 20250101, 'base').won);
    assert.equal(t.jackpot.seed, jackpotSeedFor(20250101));
    assert.equal(t.stakeMinor, 100);
    assert.equal(t.total, t.base.rtp + t.jackpot.share);
    assert.ok(Math.abs(t.baseExpected - cfg.targetRtp) < 1e-4, 'the exact RTP is the calibrated target');
    close(t.totalExpected, t.baseExpected + 0.0135, 'total expected');
    assert.ok(t.totalCi99[0] <= t.totalExpected + 0.01 && t.totalExpected - 0.01 <= t.totalCi99[1]);
    // special mode: the stake is bet × bet level, the jackpot share per unit of stake the same
    const s = simulateTitleWithJackpot(cfg, def, { spins: 50_000, seed: 1, betMinor: 100, mode: 'special' });
    assert.equal(s.stakeMinor, 100 * s.base.betLevel);
    assert.ok(Math.abs(s.jackpot.expectedShare - 0.0135) < 1e-12);
  });

  test('the spec: levels, caps, reference, and refusals', () => {
    assert.deepEqual(parseJackpotSpec('a:1:0:5,b_2:100000:7:9:8'), {
      name: 'custom',
      levels: [
        { level: 'a', ratePpm: 1, seedMinor: 0, hitEveryMinor: 5, capMinor: null },
        { level: 'b_2', ratePpm: 100_000, seedMinor: 7, hitEveryMinor: 9, capMinor: 8 },
      ],
    });
    assert.equal(parseJackpotSpec('reference').levels.length, 2);
    for (const bad of [
      'a:0:1:5',
      'a:100001:1:5',
      'a:1:1:0',
      'a:1:5:9:5',
      'a:1:1',
      'A:1:1:1',
      'a:1:1:1,a:1:1:1',
      'a:1:-1:5',
    ]) {
      assert.throws(() => parseJackpotSpec(bad), RangeError, bad);
    }
    assert.throws(() => parseJackpotSpec('a:1:9007199255:5'), RangeError, 'a seed past 2^53 micros');
  });
});
