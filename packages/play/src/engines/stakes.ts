import type { SlotConfig } from '@opi/games';

/** The bet levels of a coin launch: the total bet is coin x lines x level (level 1 to 10). */
export const COIN_LEVELS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

/** At most this many stakes are offered (the ladder is cut at the top). */
export const MAX_STAKES = 30;

export interface StakeOptions {
  /** Base-game stakes (`bet_minor` of a `base` spin), ascending, each within the operator's limits. */
  stakes_minor: string[];
  /**
   * The title's special bet levels (SpecialBetProfile `bls`): a `special` spin at `bet_level`
   * costs bet_minor x bet_level, so each level lists only the stakes whose cost is within the
   * operator's limits. Levels without such a stake are left out; titles without special bets: [].
   */
  bet_levels: { bet_level: number; stakes_minor: string[] }[];
}

/** 1, 2, 5, 10, 20, 50, ... minor units: the ladder when the launch set no coin. */
function ladder(max: bigint): bigint[] {
  const out: bigint[] = [];
  for (let decade = 1n; decade <= max; decade *= 10n) {
    for (const step of [1n, 2n, 5n]) if (decade * step <= max) out.push(decade * step);
  }
  return out;
}

/**
 * The stakes a slot page offers, computed on the server from the operator's bet limits
 * (`bet_min_minor` to `bet_max_minor`), the title's engine config (lines, special bet levels) and
 * the launch coin: with a coin the stakes are coin x lines x level, else the session's stake ladder
 * by rate (crypto currencies, issue 39), else the 1-2-5 ladder.
 */
export function stakeOptions(input: {
  betMinMinor: bigint;
  betMaxMinor: bigint;
  coinMinor: bigint | null;
  config: Pick<SlotConfig, 'lines' | 'special'>;
  /**
   * The session's frozen stake ladder (issue 39: a crypto currency; sessions/stake-ladders.ts),
   * minor units ascending; it replaces the 1-2-5 ladder. The operator's limits still apply.
   */
  ladderMinor?: readonly bigint[] | null;
}): StakeOptions {
  const { betMinMinor: min, betMaxMinor: max, coinMinor, config } = input;
  const candidates =
    coinMinor !== null && coinMinor > 0n
      ? COIN_LEVELS.map((level) => coinMinor * BigInt(config.lines) * BigInt(level))
      : input.ladderMinor
        ? [...input.ladderMinor]
        : ladder(max);
  const inLimits = (cost: bigint) => cost >= min && cost <= max;
  const base = candidates.filter(inLimits).slice(0, MAX_STAKES);
  const bet_levels = (config.special ?? [])
    .map((level) => ({
      bet_level: level.bl,
      stakes_minor: candidates
        .filter((bet) => inLimits(bet) && inLimits(bet * BigInt(level.bl)))
        .slice(0, MAX_STAKES)
        .map(String),
    }))
    .filter((level) => level.stakes_minor.length > 0);
  return { stakes_minor: base.map(String), bet_levels };
}
