import { randomBytes } from 'node:crypto';
import type { Pool } from '@opi/db';

/**
 * The jackpot a paid spin feeds (issue 25, docs/jackpots-and-promotions.md): the operator's own
 * jackpot for the title if it has one, else the network jackpot with the lowest id that the
 * operator is opted in to; only active jackpots with a pool in the session's currency. A spin feeds
 * one jackpot (the debit names one `jackpot_id`), every level of it.
 */
export interface SpinJackpot {
  jackpotId: string;
  levels: { level: string; ratePpm: bigint; hitEveryMinor: bigint }[];
}

/** The eligibility rule as SQL, for the spin's statement to check again at the row locks. */
export const JACKPOT_ELIGIBLE_SQL = (jackpot: string, operator: string, symbol: string) => `
  EXISTS (SELECT 1 FROM jackpots ej JOIN jackpot_titles et ON et.jackpot_id = ej.jackpot_id AND et.symbol = ${symbol}
           WHERE ej.jackpot_id = ${jackpot} AND ej.status = 'active'
             AND ((ej.scope = 'operator' AND ej.operator_id = ${operator})
                  OR (ej.scope = 'network' AND EXISTS (
                        SELECT 1 FROM jackpot_operators eo
                         WHERE eo.jackpot_id = ej.jackpot_id AND eo.operator_id = ${operator} AND eo.opted_in))))`;

export async function loadSpinJackpot(
  pool: Pool,
  operatorId: string,
  symbol: string,
  currency: string,
): Promise<SpinJackpot | null> {
  const { rows } = await pool.query<{
    jackpot_id: string;
    level: string;
    rate_ppm: number;
    hit_every_minor: string;
  }>(
    `SELECT j.jackpot_id, l.level, l.rate_ppm, p.hit_every_minor
       FROM jackpots j
       JOIN jackpot_titles t ON t.jackpot_id = j.jackpot_id AND t.symbol = $2
       JOIN jackpot_levels l ON l.jackpot_id = j.jackpot_id
       JOIN jackpot_pools p ON p.jackpot_id = l.jackpot_id AND p.level = l.level AND p.currency = $3
      WHERE j.status = 'active' AND ${JACKPOT_ELIGIBLE_SQL('j.jackpot_id', '$1', '$2')}
      ORDER BY (j.scope = 'operator') DESC, j.jackpot_id, l.position`,
    [operatorId, symbol, currency],
  );
  const first = rows[0];
  if (!first) return null;
  return {
    jackpotId: first.jackpot_id,
    levels: rows
      .filter((r) => r.jackpot_id === first.jackpot_id)
      .map((r) => ({
        level: r.level,
        ratePpm: BigInt(r.rate_ppm),
        hitEveryMinor: BigInt(r.hit_every_minor),
      })),
  };
}

/** A uniform integer in [0, n), from the CSPRNG, by rejection (no modulo bias). */
export function uniformBelow(n: bigint, random: (size: number) => Buffer = randomBytes): bigint {
  if (n <= 0n) throw new RangeError('n must be positive');
  const bits = n.toString(2).length;
  const bytes = Math.ceil(bits / 8);
  const mask = (1n << BigInt(bits)) - 1n;
  for (;;) {
    const v = BigInt(`0x${random(bytes).toString('hex')}`) & mask;
    if (v < n) return v;
  }
}

/**
 * A level's draw for a spin of `stakeMinor`: a hit with probability min(1, stake / hitEvery).
 * So each unit staked has the same chance, whatever the stake (the design's odds).
 */
export function drawsHit(
  stakeMinor: bigint,
  hitEveryMinor: bigint,
  random?: (size: number) => Buffer,
): boolean {
  if (stakeMinor >= hitEveryMinor) return true;
  return uniformBelow(hitEveryMinor, random) < stakeMinor;
}

/** What the spin's statement is given per level: its contribution (micros) and its draw. */
export interface LevelPlay {
  level: string;
  contribution_micros: string;
  hit: boolean;
}

export function playLevels(
  jackpot: SpinJackpot,
  stakeMinor: bigint,
  random?: (size: number) => Buffer,
): { levels: LevelPlay[]; contributionMicros: bigint } {
  let total = 0n;
  const levels = jackpot.levels.map((l) => {
    const c = stakeMinor * l.ratePpm;
    total += c;
    return {
      level: l.level,
      contribution_micros: c.toString(),
      hit: drawsHit(stakeMinor, l.hitEveryMinor, random),
    };
  });
  return { levels, contributionMicros: total };
}
