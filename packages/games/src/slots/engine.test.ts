import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CATALOG } from '../catalog.js';
import { CALIBRATION_TOLERANCE, STANDARD_PAYLINES, slotConfig, slotConfigs } from './configs.js';
import {
  compile,
  M_SCALE,
  playRound,
  SCATTER,
  type SlotConfig,
  SlotRequestError,
  type SpinMode,
  spin,
  WILD,
} from './engine.js';
import { breakdown, featureValue, theoreticalRtp } from './math.js';
import { CryptoRng, type Rng } from './rng.js';

const SC = SCATTER;
const W = WILD;

/** Returns scripted stops in order, then `fallback` forever. */
class ScriptedRng implements Rng {
  #i = 0;
  constructor(
    private readonly values: readonly number[],
    private readonly fallback = 3,
  ) {}
  int(maxExclusive: number): number {
    const v = this.#i < this.values.length ? this.values[this.#i]! : this.fallback;
    this.#i++;
    assert.ok(v < maxExclusive);
    return v;
  }
}

const PAYTABLE = [
  [0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 0, 0],
  [0, 0, 0, 1000, 5000, 20000], // 2 = top
  [0, 0, 0, 500, 2000, 8000],
  [0, 0, 0, 300, 1000, 4000],
  [0, 0, 0, 200, 700, 3000],
];
const FILLER = [5, 4, 3, 2, 5, 4]; // shown at stop 3; no line of 3 on any payline

/** A 5-line test title whose reels show `grid` (grid[reel][row]) at stop 0. */
function titleShowing(grid: number[][], over: Partial<SlotConfig> = {}): SlotConfig {
  return {
    symbol: 'test',
    lines: 5,
    ways: false,
    paylines: STANDARD_PAYLINES.slice(0, 5),
    strips: grid.map((col, r) => [...col, FILLER[r]!, FILLER[r + 1]!, 5 - (r % 2), 3, 4, 5]),
    paytable: PAYTABLE,
    scatterPay: [0, 0, 0, 200, 1000, 5000],
    freeSpins: { award: 3, multiplier: 2, maxSpins: 9 },
    buyPriceX: 50,
    special: null,
    targetRtp: 0.96,
    ...over,
  };
}

const base = (betMinor: bigint) => ({ betMinor, mode: 'base' as SpinMode });

describe('line evaluation on hand-built grids', () => {
  test('wild substitutes: W 3 3 W 4 on the middle line pays 3 x4', () => {
    const cfg = titleShowing([
      [4, W, 5],
      [5, 3, 4],
      [4, 3, 5],
      [5, W, 4],
      [3, 4, 5],
    ]);
    const r = spin(cfg, base(1000n), new ScriptedRng([0, 0, 0, 0, 0]));
    const mid = r.lineWins.find((w) => w.line === 0);
    assert.deepEqual(mid && { symbol: mid.symbol, count: mid.count }, { symbol: 3, count: 4 });
    // line bet = 1000/5 = 200; 4 x symbol 3 = 20x line bet
    assert.equal(mid?.winMinor, 4000n);
    assert.deepEqual(r.grid[0], [4, W, 5]);
  });

  test('five wilds pay as five of the top symbol; a scatter ends the run', () => {
    const cfg = titleShowing([
      [W, W, SC],
      [W, W, 5],
      [W, SC, 4],
      [W, 3, 5],
      [W, 4, 3],
    ]);
    const r = spin(cfg, base(500n), new ScriptedRng([0, 0, 0, 0, 0]));
    const top = r.lineWins.find((w) => w.line === 1); // top row: all wilds
    assert.deepEqual(top && [top.symbol, top.count, top.winMinor], [2, 5, 20000n]); // 200x of 100
    assert.equal(
      r.lineWins.find((w) => w.line === 0),
      undefined,
      'W W SC on the middle line does not pay',
    );
  });

  test('scatters pay anywhere on the total bet and trigger free spins', () => {
    const cfg = titleShowing([
      [SC, 5, 4],
      [4, 5, 3],
      [3, 4, SC],
      [5, 3, 4],
      [4, SC, 5],
    ]);
    const r = spin(cfg, base(1000n), new ScriptedRng([0, 0, 0, 0, 0]));
    assert.equal(r.scatterWinMinor, 2000n); // 2x total bet
    assert.equal(r.freeSpins.length, 3);
    // free spins land on the filler window (stop 3): no wins
    for (const fs of r.freeSpins) assert.equal(fs.winMinor, 0n);
    assert.equal(r.totalWinMinor, 2000n);
    assert.equal(r.costMinor, 1000n);
  });

  test('retriggers are capped at maxSpins', () => {
    const cfg = titleShowing([
      [SC, 5, 4],
      [4, SC, 3],
      [3, 4, SC],
      [5, 3, 4],
      [4, 5, 5],
    ]);
    // every spin shows three scatters: base 2x, free spins 2x * multiplier 2 = 4x each
    const r = spin(cfg, base(100n), new ScriptedRng([], 0));
    assert.equal(r.freeSpins.length, 9);
    assert.ok(r.freeSpins.every((f) => f.winMinor === 400n));
    assert.equal(r.totalWinMinor, 200n + 9n * 400n);
  });

  test('total is floored once; per-line amounts are floored for display only', () => {
    const cfg = titleShowing([
      [5, 5, 5],
      [5, 5, 5],
      [5, 5, 5],
      [4, 4, 4],
      [4, 4, 4],
    ]);
    // 5 lines x 3-of-a-kind of symbol 5 = 5 * 2x line bet = 2x total bet... with bet 7: line bet 1.4
    const r = spin(cfg, base(7n), new ScriptedRng([0, 0, 0, 0, 0]));
    assert.equal(r.lineWins.length, 5);
    for (const w of r.lineWins) assert.equal(w.winMinor, 2n); // floor(7/5*2) = floor(2.8)
    assert.equal(r.totalWinMinor, 14n); // floor(7 * 5 * 2 / 5) = 14, not 5 * 2
  });

  test('243 ways: wins multiply by the number of ways', () => {
    const cfg = titleShowing(
      [
        [3, 3, 5],
        [W, 4, 3],
        [3, 4, 4],
        [5, 4, 5],
        [4, 5, 5],
      ],
      { lines: 243, ways: true, paylines: [], freeSpins: null, buyPriceX: null },
    );
    const r = spin(cfg, base(243n), new ScriptedRng([0, 0, 0, 0, 0]));
    const w3 = r.lineWins.find((w) => w.symbol === 3);
    // reel1: 2, reel2: 2 (W + 3), reel3: 1 -> 4 ways x 5x (bet/243 = 1)
    assert.deepEqual(w3 && [w3.count, w3.ways, w3.winMinor], [3, 4, 20n]);
  });
});

describe('theoretical mathematics', () => {
  test('math.ts equals full enumeration of every stop on small titles (lines and ways)', () => {
    for (const ways of [false, true]) {
      const strips = [
        [2, W, 3, SC, 4, 5],
        [3, 2, W, 5, SC, 4],
        [W, 4, 2, 3, 5, SC],
        [5, 3, SC, 2, 4, W],
        [4, SC, 5, W, 3, 2],
      ];
      const cfg: SlotConfig = {
        ...titleShowing([[2, 2, 2]]),
        strips: ways ? strips.map((s, r) => (r === 0 ? s.map((x) => (x === W ? 5 : x)) : s)) : strips,
        lines: ways ? 243 : 5,
        ways,
        paylines: ways ? [] : STANDARD_PAYLINES.slice(0, 5),
        freeSpins: null,
      };
      const c = compile(cfg);
      let sum = 0;
      const n = 6 ** 5;
      for (let i = 0; i < n; i++) {
        const stops = [0, 1, 2, 3, 4].map((r) => Math.floor(i / 6 ** r) % 6);
        sum += playRound(c, 'base', 1, new ScriptedRng(stops), null);
      }
      const exact = sum / n / c.unitDen;
      assert.ok(
        Math.abs(exact - breakdown(cfg).total) < 1e-12,
        `ways=${ways}: ${exact} vs ${breakdown(cfg).total}`,
      );
    }
  });

  test('every prov_a/prov_b slot has a config whose theoretical RTP matches STORED_RTP', () => {
    const slots = CATALOG.filter(
      (e) => ['prov_a', 'prov_b'].includes(e.provider_id) && e.family === 'video-slot',
    );
    assert.equal(slots.length, 10);
    for (const e of slots) {
      const cfg = slotConfig(e.symbol);
      assert.equal(cfg.lines, e.lines);
      assert.ok(
        Math.abs(theoreticalRtp(cfg, 'base') - Number(e.rtp) / 100) <= CALIBRATION_TOLERANCE,
        e.symbol,
      );
      assert.equal(cfg.freeSpins !== null, e.features.free_spins, e.symbol);
      assert.equal(cfg.buyPriceX !== null, e.features.buy_feature, e.symbol);
      assert.equal(cfg.special !== null, e.features.special_bet, e.symbol);
      if (cfg.special)
        assert.deepEqual(
          cfg.special.map((l) => l.bl),
          e.special_bet_profile?.bls,
        );
    }
  });
});

describe('buy feature', () => {
  test('costs the fixed price multiple and starts the free spins directly', () => {
    const cfg = slotConfig('vs20emberfox');
    const r = spin(cfg, { betMinor: 200n, mode: 'buy' }, new CryptoRng());
    assert.equal(r.costMinor, 200n * BigInt(cfg.buyPriceX!));
    assert.ok(r.freeSpins.length >= cfg.freeSpins!.award);
    assert.deepEqual(r.grid, []);
    assert.equal(r.lineWins.length, 0);
  });

  test('price keeps the bought-feature RTP within 1% of the base RTP', () => {
    for (const cfg of slotConfigs()) {
      if (cfg.buyPriceX === null) continue;
      assert.ok(cfg.buyPriceX >= 50, `${cfg.symbol} price ${cfg.buyPriceX}`);
      const rtp = featureValue(cfg) / cfg.buyPriceX;
      assert.ok(Math.abs(rtp - cfg.targetRtp) < 0.01, `${cfg.symbol} bought RTP ${rtp}`);
    }
  });

  test('titles without buy_feature reject it', () => {
    for (const symbol of [
      'vs25tidalpearl',
      'vs243copperkiln',
      'vs20starorchard',
      'vs25northlight',
      'vs30fjordhoard',
    ]) {
      assert.throws(
        () => spin(slotConfig(symbol), { betMinor: 100n, mode: 'buy' }, new CryptoRng()),
        SlotRequestError,
      );
    }
  });
});

describe('special bet', () => {
  test('costs bet x bl, raises scatter frequency and keeps the RTP per level', () => {
    const cfg = slotConfig('vs20emberfox');
    const baseScatters = cfg.strips.map((s) => s.filter((x) => x === SC).length);
    for (const lvl of cfg.special!) {
      const r = spin(cfg, { betMinor: 300n, mode: 'special', betLevel: lvl.bl }, new CryptoRng());
      assert.equal(r.costMinor, 300n * BigInt(lvl.bl));
      const n = lvl.strips.map((s) => s.filter((x) => x === SC).length);
      if (lvl.bl > 1)
        assert.ok(
          n.every((v, i) => v > baseScatters[i]!),
          `bl ${lvl.bl}`,
        );
      assert.ok(lvl.scatterFeatureMultBp >= M_SCALE - 5);
    }
    for (const c of slotConfigs()) {
      for (const lvl of c.special ?? []) {
        const rtp = theoreticalRtp(c, 'special', lvl.bl);
        assert.ok(Math.abs(rtp - c.targetRtp) < 1e-4, `${c.symbol} bl ${lvl.bl}: ${rtp}`);
      }
    }
  });

  test('rejects unknown levels, titles without special_bet, and bet levels in base mode', () => {
    const rng = new CryptoRng();
    assert.throws(
      () => spin(slotConfig('vs20emberfox'), { betMinor: 100n, mode: 'special' }, rng),
      /explicit betLevel/,
    );
    assert.throws(
      () => spin(slotConfig('vs20emberfox'), { betMinor: 100n, mode: 'special', betLevel: 4 }, rng),
      SlotRequestError,
    );
    assert.throws(
      () => spin(slotConfig('vs20emberfox'), { betMinor: 100n, mode: 'base', betLevel: 2 }, rng),
      SlotRequestError,
    );
    for (const symbol of [
      'vs25tidalpearl',
      'vs10glacierrun',
      'vs243copperkiln',
      'vs20frostwolf',
      'vs25northlight',
      'vs50rimevault',
    ]) {
      assert.throws(
        () => spin(slotConfig(symbol), { betMinor: 100n, mode: 'special', betLevel: 1 }, rng),
        SlotRequestError,
      );
    }
  });
});

describe('money', () => {
  test('amounts are bigint, never negative, and line wins never exceed the total', () => {
    const rng = new CryptoRng();
    for (const cfg of slotConfigs()) {
      const modes: SpinMode[] = ['base'];
      if (cfg.buyPriceX !== null) modes.push('buy');
      if (cfg.special !== null) modes.push('special');
      for (const mode of modes) {
        for (let i = 0; i < 300; i++) {
          const betMinor = BigInt(1 + rng.int(5000));
          const levels = cfg.special ?? [];
          const betLevel = mode === 'special' ? levels[rng.int(levels.length)]!.bl : undefined;
          const r = spin(cfg, { betMinor, mode, ...(betLevel === undefined ? {} : { betLevel }) }, rng);
          for (const v of [r.totalWinMinor, r.costMinor, r.scatterWinMinor]) {
            assert.equal(typeof v, 'bigint');
            assert.ok(v >= 0n);
          }
          assert.ok(r.costMinor >= betMinor);
          let parts = r.scatterWinMinor;
          for (const w of r.lineWins) {
            assert.equal(typeof w.winMinor, 'bigint');
            assert.ok(w.winMinor >= 0n);
            parts += w.winMinor;
          }
          for (const f of r.freeSpins) parts += f.winMinor;
          assert.ok(parts <= r.totalWinMinor, `${cfg.symbol}: parts ${parts} > total ${r.totalWinMinor}`);
        }
      }
    }
  });

  test('rejects non-positive and non-bigint bets', () => {
    const cfg = slotConfig('vs20emberfox');
    assert.throws(() => spin(cfg, base(0n), new CryptoRng()), SlotRequestError);
    assert.throws(() => spin(cfg, base(-5n), new CryptoRng()), SlotRequestError);
    assert.throws(
      () => spin(cfg, { betMinor: 100 as unknown as bigint, mode: 'base' }, new CryptoRng()),
      SlotRequestError,
    );
  });
});
