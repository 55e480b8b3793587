/**
 * Jackpot simulation for the RTP simulator (issue 25, docs/jackpots-and-promotions.md, "Odds" and
 * "The jackpot in the RTP simulator"). Pure: no I/O, seeded RNG, so a run is reproducible.
 *
 * It plays N spins of one stake against a jackpot definition exactly as the live spin does:
 * - every spin contributes `stake × rate_ppm` micros to every level (`playLevels`);
 * - every level draws its own hit with probability min(1, stake / hit_every): a uniform integer in
 *   [0, hit_every) below the stake, no draw when the stake reaches hit_every (`drawsHit`);
 * - the pool moves like `jackpot_pool_step` (migration 20), in integer micros: the contribution
 *   goes in up to the cap (the rest to the reserve); a hit wins floor(pool / 1e6) minor units and
 *   the pool is refilled with seed + remainder + reserve (up to the cap again); a hit that would win
 *   nothing is no hit;
 * - the running totals are kept like the pool row's (`seeded_micros` gains a seed per hit), so the
 *   pool invariant can be checked to the micro:
 *   seeded + contributions = amount + reserve + wins.
 *
 * Per level it reports contributions, wins, hits and the return share wins / total stake against
 * the expected share r/1e6 + S/H (S × min(1, s/H) / s when the stake s exceeds H). Two caveats,
 * both printed apart rather than hidden in the measured share:
 * - the end-of-run balance (pool + reserve − the opening seed) is what the players contributed
 *   and the seeds put in that no hit has paid yet: "held". Exactly,
 *     share + held share = r/1e6 + S × hits / W,
 *   so the only randomness of share + held is the number of hits (binomial), whose standard
 *   deviation gives `sigma` = S × sqrt(N p (1 − p)) / W;
 * - with a cap the expected share is a bound: a hit never pays more than the cap, and what the cap
 *   turned away waits in the reserve (held), so share ≤ r/1e6 + S/H in expectation.
 *
 * Amounts are JavaScript numbers checked to stay safe integers (a RangeError otherwise: seeds and
 * caps up to 9,007,199,254 minor units); run totals are bigints.
 */
import { costFactor, type SlotConfig, type SpinMode } from './engine.js';
import { theoreticalRtp } from './math.js';
import { SeededRng } from './rng.js';
import { type SimulationResult, simulate, Z99 } from './simulate.js';

export const MICROS = 1_000_000;
const MAX = Number.MAX_SAFE_INTEGER;
const TWO_32 = 0x1_0000_0000;

export interface JackpotLevelDef {
  readonly level: string;
  /** contribution rate in parts per million of the stake (1..100,000 like `jackpot_levels`) */
  readonly ratePpm: number;
  /** seed in minor units: the opening pool and the refill at each hit */
  readonly seedMinor: number;
  /** the stake expected between two hits (minor units) */
  readonly hitEveryMinor: number;
  /** optional cap on the pool (minor units, above the seed) */
  readonly capMinor?: number | null;
}

export interface JackpotDef {
  readonly name: string;
  readonly levels: readonly JackpotLevelDef[];
}

/**
 * The reference jackpot of the game-integrity tables (the RTP CLI's `--jackpot reference`):
 * `mini` 0.5% of the stake, seed 10.00, a hit every 2,000.00 staked (expected share 1.000%);
 * `mega` 0.15%, seed 10,000.00, a hit every 5,000,000.00 staked (expected share 0.350%).
 */
export const REFERENCE_JACKPOT_SPEC = 'mini:5000:1000:200000,mega:1500:1000000:500000000';

/**
 * `level:rate_ppm:seed_minor:hit_every_minor[:cap_minor]`, comma-separated, or `reference`.
 * Validated like the admin API's definitions (rate 1..100,000 ppm, seed ≥ 0, hit_every > 0, a cap
 * above the seed), plus the simulator's safe-integer limit.
 */
export function parseJackpotSpec(spec: string): JackpotDef {
  const name = spec.trim() === 'reference' ? 'reference' : 'custom';
  const text = name === 'reference' ? REFERENCE_JACKPOT_SPEC : spec;
  const seen = new Set<string>();
  const levels = text.split(',').map((part): JackpotLevelDef => {
    const fields = part.trim().split(':');
    if (fields.length !== 4 && fields.length !== 5) {
      throw new RangeError(`bad jackpot level "${part}" (level:rate_ppm:seed:hit_every[:cap])`);
    }
    const [level, rate, seed, every, cap] = fields as [string, string, string, string, string | undefined];
    const int = (what: string, v: string): number => {
      if (!/^\d+$/.test(v)) throw new RangeError(`bad ${what} "${v}" in jackpot level "${part}"`);
      return Number(v);
    };
    if (!/^[a-z][a-z0-9_]{0,31}$/.test(level)) throw new RangeError(`bad level name "${level}"`);
    if (seen.has(level)) throw new RangeError(`level "${level}" twice`);
    seen.add(level);
    return {
      level,
      ratePpm: int('rate_ppm', rate),
      seedMinor: int('seed', seed),
      hitEveryMinor: int('hit_every', every),
      capMinor: cap === undefined ? null : int('cap', cap),
    };
  });
  const def = { name, levels };
  validateJackpot(def);
  return def;
}

export function validateJackpot(def: JackpotDef): void {
  if (def.levels.length === 0 || def.levels.length > 10) throw new RangeError('1 to 10 levels');
  for (const l of def.levels) {
    const safeMinor = (what: string, v: number, min: number) => {
      if (!Number.isSafeInteger(v) || v < min || v * MICROS > MAX) {
        throw new RangeError(
          `${l.level}: ${what} must be an integer in [${min}, ${Math.floor(MAX / MICROS)}]`,
        );
      }
    };
    if (!Number.isSafeInteger(l.ratePpm) || l.ratePpm < 1 || l.ratePpm > 100_000) {
      throw new RangeError(`${l.level}: rate_ppm must be an integer in [1, 100000]`);
    }
    safeMinor('seed', l.seedMinor, 0);
    if (!Number.isSafeInteger(l.hitEveryMinor) || l.hitEveryMinor < 1) {
      throw new RangeError(`${l.level}: hit_every must be a positive integer`);
    }
    if (l.capMinor !== undefined && l.capMinor !== null) {
      safeMinor('cap', l.capMinor, 1);
      if (l.capMinor <= l.seedMinor) throw new RangeError(`${l.level}: the cap must be above the seed`);
    }
  }
}

export function formatJackpotSpec(def: JackpotDef): string {
  return def.levels
    .map((l) =>
      [l.level, l.ratePpm, l.seedMinor, l.hitEveryMinor, ...(l.capMinor == null ? [] : [l.capMinor])].join(
        ':',
      ),
    )
    .join(',');
}

function safe(v: number): number {
  if (v > MAX) throw new RangeError('a pool passed 2^53 micros: use a cap or fewer spins');
  return v;
}

/**
 * One level's pool, moved exactly like `jackpot_pool_step` (migration 20), with the pool row's
 * running totals. `step` returns the minor units won (0: no hit).
 */
export class JackpotPool {
  amountMicros: number;
  reserveMicros = 0;
  /** hits that won something */
  hits = 0;
  /** drawn hits that would have won nothing (an empty pool without a seed): no hit */
  emptyHits = 0;
  maxWinMinor = 0;
  /** wins in minor units: a number summed per hit, folded into a bigint before it could pass 2^53 */
  #winsAcc = 0;
  #winsBig = 0n;
  readonly #seedMicros: number;
  readonly #capMicros: number | null;

  constructor(
    readonly seedMinor: number,
    readonly capMinor: number | null,
  ) {
    this.#seedMicros = seedMinor * MICROS;
    this.#capMicros = capMinor === null ? null : capMinor * MICROS;
    this.amountMicros = this.#seedMicros;
  }

  /** The SQL function's three outputs for one spin, applied to this pool. */
  step(contributionMicros: number, hit: boolean): number {
    const total = safe(this.amountMicros + contributionMicros);
    const cap = this.#capMicros;
    const capped = cap === null || total <= cap ? total : cap;
    const spill = total - capped;
    const remainder = capped % MICROS;
    const winMinor = hit ? (capped - remainder) / MICROS : 0;
    if (winMinor > 0) {
      const refill = safe(this.#seedMicros + remainder + this.reserveMicros + spill);
      this.amountMicros = cap === null || refill <= cap ? refill : cap;
      this.reserveMicros = refill - this.amountMicros;
      this.hits++;
      if (this.#winsAcc > MAX - winMinor) {
        this.#winsBig += BigInt(this.#winsAcc);
        this.#winsAcc = 0;
      }
      this.#winsAcc += winMinor;
      if (winMinor > this.maxWinMinor) this.maxWinMinor = winMinor;
    } else {
      if (hit) this.emptyHits++;
      this.amountMicros = capped;
      this.reserveMicros = safe(this.reserveMicros + spill);
    }
    return winMinor;
  }

  get winsMinor(): bigint {
    return this.#winsBig + BigInt(this.#winsAcc);
  }

  /** seeded_micros of the pool row: the opening seed and one more per hit. */
  get seededMicros(): bigint {
    return BigInt(this.#seedMicros) * BigInt(1 + this.hits);
  }
}

/** `jackpot_pool_step(amount, reserve, cap_minor, seed_minor, contribution, hit)` as a function. */
export function jackpotPoolStep(
  amountMicros: number,
  reserveMicros: number,
  capMinor: number | null,
  seedMinor: number,
  contributionMicros: number,
  hit: boolean,
): { newAmount: number; newReserve: number; winMinor: number } {
  const p = new JackpotPool(seedMinor, capMinor);
  p.amountMicros = amountMicros;
  p.reserveMicros = reserveMicros;
  const winMinor = p.step(contributionMicros, hit);
  return { newAmount: p.amountMicros, newReserve: p.reserveMicros, winMinor };
}

/** A uniform integer in [0, n), n ≤ 2^53, by rejection on whole bits (no modulo bias). */
export function seededBelow(rng: SeededRng, n: number): number {
  if (n <= TWO_32) return rng.int(n);
  // the high word's values: 0 ..= floor((n − 1) / 2^32), drawn from as many low bits as that needs
  const hiMask = 2 ** (32 - Math.clz32(Math.floor((n - 1) / TWO_32)));
  for (;;) {
    const hi = rng.nextUint32() % hiMask; // a power of two: the low bits, unbiased
    const v = hi * TWO_32 + rng.nextUint32();
    if (v < n) return v;
  }
}

export interface JackpotLevelResult {
  readonly level: string;
  readonly ratePpm: number;
  readonly seedMinor: number;
  readonly hitEveryMinor: number;
  readonly capMinor: number | null;
  /** min(1, stake / hit_every) */
  readonly hitProbability: number;
  readonly contributionsMicros: bigint;
  /** the opening seed and one per hit (the pool row's `seeded_micros`) */
  readonly seededMicros: bigint;
  readonly winsMinor: bigint;
  readonly hits: number;
  /** spins × hitProbability */
  readonly expectedHits: number;
  readonly emptyHits: number;
  readonly maxWinMinor: number;
  readonly finalAmountMicros: bigint;
  readonly finalReserveMicros: bigint;
  /** wins / total stake: the measured return share */
  readonly share: number;
  /** (final pool + reserve − opening seed) / total stake: not paid yet, counted apart */
  readonly heldShare: number;
  /** r/1e6 + S × min(1, s/H) / s (= r/1e6 + S/H when s ≤ H); with a cap, an upper bound on `share` */
  readonly expectedShare: number;
  /** standard deviation of share + heldShare (binomial hits): S × sqrt(N p (1 − p)) / W */
  readonly sigma: number;
}

export interface JackpotRunResult {
  readonly jackpot: string;
  readonly stakeMinor: number;
  readonly spins: number;
  readonly seed: number;
  readonly totalStakeMinor: bigint;
  readonly levels: readonly JackpotLevelResult[];
  /** sums over the levels (sigma: root of the sum of squares, the levels draw independently) */
  readonly share: number;
  readonly heldShare: number;
  readonly expectedShare: number;
  readonly sigma: number;
  readonly seconds: number;
}

const ratio = (num: bigint, den: bigint): number => {
  // exact enough for any size: scale to 1e-15 in bigint, then one float division
  const scaled = (num * 10n ** 15n) / den;
  return Number(scaled) / 1e15;
};

/** Plays `spins` spins of `stakeMinor` against the jackpot; the draws come from SeededRng(seed). */
export function simulateJackpot(
  def: JackpotDef,
  stakeMinor: number,
  spins: number,
  seed: number,
): JackpotRunResult {
  validateJackpot(def);
  if (!Number.isSafeInteger(spins) || spins < 1) throw new RangeError('spins must be a positive integer');
  if (!Number.isSafeInteger(stakeMinor) || stakeMinor < 1)
    throw new RangeError('the stake must be a positive integer');
  const rng = new SeededRng(seed);
  const n = def.levels.length;
  const pools = def.levels.map((l) => new JackpotPool(l.seedMinor, l.capMinor ?? null));
  const contribution = def.levels.map((l) => {
    const c = stakeMinor * l.ratePpm;
    if (!Number.isSafeInteger(c)) throw new RangeError('stake × rate_ppm passes 2^53');
    return c;
  });
  const every = def.levels.map((l) => l.hitEveryMinor);
  const started = performance.now();
  for (let i = 0; i < spins; i++) {
    for (let k = 0; k < n; k++) {
      const h = every[k]!;
      // drawsHit: certain when the stake reaches hit_every, else uniform [0, H) below the stake
      const hit = stakeMinor >= h || seededBelow(rng, h) < stakeMinor;
      pools[k]!.step(contribution[k]!, hit);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const W = BigInt(stakeMinor) * BigInt(spins);
  const levels = def.levels.map((l, k): JackpotLevelResult => {
    const pool = pools[k]!;
    const p = Math.min(1, stakeMinor / l.hitEveryMinor);
    const seedMicros = BigInt(l.seedMinor) * BigInt(MICROS);
    const finalAmount = BigInt(pool.amountMicros);
    const finalReserve = BigInt(pool.reserveMicros);
    const winsMicros = pool.winsMinor * BigInt(MICROS);
    const Wm = W * BigInt(MICROS);
    return {
      level: l.level,
      ratePpm: l.ratePpm,
      seedMinor: l.seedMinor,
      hitEveryMinor: l.hitEveryMinor,
      capMinor: l.capMinor ?? null,
      hitProbability: p,
      contributionsMicros: BigInt(contribution[k]!) * BigInt(spins),
      seededMicros: pool.seededMicros,
      winsMinor: pool.winsMinor,
      hits: pool.hits,
      expectedHits: spins * p,
      emptyHits: pool.emptyHits,
      maxWinMinor: pool.maxWinMinor,
      finalAmountMicros: finalAmount,
      finalReserveMicros: finalReserve,
      share: ratio(winsMicros, Wm),
      heldShare: ratio(finalAmount + finalReserve - seedMicros, Wm),
      expectedShare: l.ratePpm / MICROS + (l.seedMinor * p) / stakeMinor,
      sigma: (l.seedMinor * Math.sqrt(spins * p * (1 - p))) / (stakeMinor * spins),
    };
  });
  const sum = (f: (l: JackpotLevelResult) => number) => levels.reduce((a, l) => a + f(l), 0);
  return {
    jackpot: def.name,
    stakeMinor,
    spins,
    seed,
    totalStakeMinor: W,
    levels,
    share: sum((l) => l.share),
    heldShare: sum((l) => l.heldShare),
    expectedShare: sum((l) => l.expectedShare),
    sigma: Math.sqrt(sum((l) => l.sigma * l.sigma)),
    seconds,
  };
}

/** The jackpot draws of a title run use their own stream, so the base game's figures are the plain simulator's. */
export function jackpotSeedFor(seed: number): number {
  return seed < Number.MAX_SAFE_INTEGER ? seed + 1 : 0;
}

export interface TitleJackpotOptions {
  readonly spins: number;
  readonly seed: number;
  /** the base bet in minor units; the stake (what the debit takes and the jackpot sees) is bet × cost factor */
  readonly betMinor: number;
  readonly mode?: SpinMode;
  readonly betLevel?: number;
  /**
   * Jackpot runs by stake, for one definition, spin count and seed: the jackpot does not depend on
   * the title, so titles at the same stake share one run (filled as it goes).
   */
  readonly jackpotRuns?: Map<number, JackpotRunResult>;
}

export interface TitleJackpotResult {
  readonly base: SimulationResult;
  /** the base game's exact RTP for the mode (math.ts) */
  readonly baseExpected: number;
  readonly stakeMinor: number;
  readonly jackpot: JackpotRunResult;
  /** base RTP + the jackpot's measured share (wins paid) */
  readonly total: number;
  /** total + the jackpot's held share (what the jackpot owes the players at the end of the run) */
  readonly totalWithHeld: number;
  readonly totalExpected: number;
  /** sqrt(base stdError² + jackpot sigma²): the standard error of totalWithHeld */
  readonly totalStdError: number;
  /** totalWithHeld ± 2.576 totalStdError */
  readonly totalCi99: readonly [number, number];
}

/**
 * A title's base game (the existing simulator, seed `seed`) and the jackpot at its stake (seed
 * `jackpotSeedFor(seed)`): total RTP = base + jackpot share.
 */
export function simulateTitleWithJackpot(
  config: SlotConfig,
  def: JackpotDef,
  options: TitleJackpotOptions,
): TitleJackpotResult {
  const mode = options.mode ?? 'base';
  const base = simulate(config, options.spins, options.seed, mode, options.betLevel);
  const { factor } = costFactor(config, mode, base.betLevel);
  const stakeMinor = options.betMinor * factor;
  const cached = options.jackpotRuns?.get(stakeMinor);
  const jackpot =
    cached && cached.spins === options.spins && cached.seed === jackpotSeedFor(options.seed)
      ? cached
      : simulateJackpot(def, stakeMinor, options.spins, jackpotSeedFor(options.seed));
  options.jackpotRuns?.set(stakeMinor, jackpot);
  const total = base.rtp + jackpot.share;
  const withHeld = total + jackpot.heldShare;
  const se = Math.sqrt(base.stdError ** 2 + jackpot.sigma ** 2);
  const baseExpected = theoreticalRtp(config, mode, base.betLevel);
  return {
    base,
    baseExpected,
    stakeMinor,
    jackpot,
    total,
    totalWithHeld: withHeld,
    totalExpected: baseExpected + jackpot.expectedShare,
    totalStdError: se,
    totalCi99: [withHeld - Z99 * se, withHeld + Z99 * se],
  };
}
