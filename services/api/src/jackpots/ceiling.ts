import type { JackpotDefinitionRequest } from '@opi/contract';
import type { ValidationDetail } from '@opi/service-kit/http/errors';

/**
 * The return ceiling of a jackpot definition (issue 34, docs/jackpots-and-promotions.md "The return
 * ceiling"). A level returns, per unit staked, its rate plus its seed ÷ hit_every (a hit refills the
 * seed every hit_every staked on average; at a stake above hit_every every spin hits and the seed's
 * share is seed ÷ stake, less). So a definition returns at most, per currency,
 *
 *     share = Σ rate_ppm + Σ seed_minor × 10⁶ ÷ hit_every_minor   (parts per million of the stake)
 *
 * and one whose share passes JACKPOT_MAX_SHARE_PPM is refused. Exact: the seeds' fractions are
 * compared over their common denominator (bigint), never rounded.
 */
export interface CurrencyShare {
  currency: string;
  /** Σ rate_ppm. */
  ratesPpm: bigint;
  /** Σ seed × 10⁶ ÷ hit_every, as num / den. */
  seedsNum: bigint;
  seedsDen: bigint;
}

export function jackpotShares(levels: JackpotDefinitionRequest['levels']): CurrencyShare[] {
  const out = new Map<string, CurrencyShare>();
  for (const level of levels) {
    for (const [currency, c] of Object.entries(level.currencies)) {
      const cur = out.get(currency) ?? { currency, ratesPpm: 0n, seedsNum: 0n, seedsDen: 1n };
      const seed = BigInt(c.seed_minor) * 1_000_000n;
      const every = BigInt(c.hit_every_minor);
      // a/b + s/h = (a·h + s·b) / (b·h)
      cur.seedsNum = cur.seedsNum * every + seed * cur.seedsDen;
      cur.seedsDen *= every;
      cur.ratesPpm += BigInt(level.contribution_rate_ppm);
      out.set(currency, cur);
    }
  }
  return [...out.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

/** Whether the share is above `ceilingPpm`, exactly. */
export const aboveCeiling = (s: CurrencyShare, ceilingPpm: bigint): boolean =>
  s.ratesPpm * s.seedsDen + s.seedsNum > ceilingPpm * s.seedsDen;

/** The share in whole ppm, rounded up (for messages: "at least"). */
export const sharePpmCeil = (s: CurrencyShare): bigint =>
  s.ratesPpm + (s.seedsNum + s.seedsDen - 1n) / s.seedsDen;

const percent = (ppm: bigint) => {
  const hundredths = (ppm + 50n) / 100n; // ppm / 10⁴ = %, two decimals
  return `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')} %`;
};

/** 422 details for every currency above the ceiling (none: the definition may be stored). */
export function ceilingViolations(
  levels: JackpotDefinitionRequest['levels'],
  ceilingPpm: number | null,
): ValidationDetail[] {
  if (ceilingPpm === null) return [];
  const ceiling = BigInt(ceilingPpm);
  return jackpotShares(levels)
    .filter((s) => aboveCeiling(s, ceiling))
    .map((s) => {
      const seeds = sharePpmCeil(s) - s.ratesPpm;
      return {
        loc: ['body', 'levels'],
        msg:
          `${s.currency}: the levels return ${sharePpmCeil(s)} ppm of every stake (${percent(sharePpmCeil(s))}: ` +
          `rates ${s.ratesPpm} ppm + seeds ÷ hit_every ${seeds} ppm), above the ceiling of ${ceiling} ppm ` +
          `(${percent(ceiling)}, JACKPOT_MAX_SHARE_PPM)`,
        type: 'value_error',
      };
    });
}
