import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STORED_RTP } from '../catalog.js';
import { slotConfig, slotConfigs } from './configs.js';
import { simulate, Z999 } from './simulate.js';

const SPINS = 200_000;
const SEED = 20250101;

describe('RTP simulation (seeded)', () => {
  for (const cfg of slotConfigs()) {
    test(`${cfg.symbol}: stored RTP lies inside the 99.9% CI of ${SPINS} spins`, () => {
      const stored = Number(STORED_RTP[cfg.symbol as keyof typeof STORED_RTP]) / 100;
      const r = simulate(cfg, SPINS, SEED, 'base');
      const lo = r.rtp - Z999 * r.stdError;
      const hi = r.rtp + Z999 * r.stdError;
      assert.ok(stored >= lo && stored <= hi, `${cfg.symbol}: stored ${stored} outside [${lo}, ${hi}]`);
      assert.ok(hi - lo < 0.1, 'CI is narrow enough to be meaningful');
      assert.equal(r.wagered, SPINS);
      assert.ok(r.ci99[0] < r.rtp && r.rtp < r.ci99[1]);
    });
  }

  test('special and buy modes stay near the stored RTP', () => {
    const cfg = slotConfig('vs20emberfox');
    for (const [mode, bl] of [
      ['special', 20],
      ['buy', undefined],
    ] as const) {
      const r = simulate(cfg, 100_000, SEED, mode, bl);
      const lo = r.rtp - Z999 * r.stdError;
      const hi = r.rtp + Z999 * r.stdError;
      assert.ok(cfg.targetRtp >= lo - 0.01 && cfg.targetRtp <= hi + 0.01, `${mode}: [${lo}, ${hi}]`);
    }
  });

  test('is reproducible for a seed', () => {
    const cfg = slotConfig('vs25tidalpearl');
    assert.equal(simulate(cfg, 20_000, 9, 'base').won, simulate(cfg, 20_000, 9, 'base').won);
    assert.notEqual(simulate(cfg, 20_000, 9, 'base').won, simulate(cfg, 20_000, 10, 'base').won);
  });
});
