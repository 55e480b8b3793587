import { randomInt } from 'node:crypto';
import type { Rng } from '../slots/rng.js';

/**
 * The only random source of real native rounds: the OS CSPRNG through `crypto.randomInt`
 * (uniform, no modulo bias). Never Math.random, never a workflow's deterministic random; the
 * seeded generator (`SeededRng`) is for the simulator and tests only.
 */
export const nativeCryptoRng: Rng = {
  int(maxExclusive: number): number {
    return randomInt(maxExclusive);
  },
};
