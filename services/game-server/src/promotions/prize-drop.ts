import type { Pool } from '@opi/db';
import { uniformBelow } from '@opi/play/jackpots/spin-jackpot';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import type { ConfigCache } from '@opi/service-kit/cache/change-feed';

/**
 * The prize drop a paid spin may win (issue 25, docs/jackpots-and-promotions.md): an active drop
 * of the title that the operator is opted in to, with a pool in the session's currency and its
 * window not over; the one starting first (then the lowest id) when several run at once.
 */
export interface SpinPrizeDrop {
  dropId: string;
  startsAt: number;
  endsAt: number;
  minStakeMinor: bigint;
  awardEverySpins: bigint;
}

/** The drop's rule again, for the spin's statement (at the pool's row lock). */
export const PRIZE_DROP_OPEN_SQL = (drop: string, operator: string, symbol: string) => `
  EXISTS (SELECT 1 FROM prize_drops pd
            JOIN prize_drop_titles pt ON pt.drop_id = pd.drop_id AND pt.symbol = ${symbol}
            JOIN prize_drop_operators po ON po.drop_id = pd.drop_id AND po.operator_id = ${operator} AND po.opted_in
           WHERE pd.drop_id = ${drop} AND pd.status = 'active' AND now() >= pd.starts_at AND now() < pd.ends_at)`;

export async function spinPrizeDrop(
  deps: { pool: Pool; prizeDrops: ConfigCache<SpinPrizeDrop | null> },
  session: RuntimeSession,
): Promise<SpinPrizeDrop | null> {
  return deps.prizeDrops.get(`${session.operator_id}|${session.symbol}|${session.currency}`, async () => {
    const { rows } = await deps.pool.query<{
      drop_id: string;
      starts_at: Date;
      ends_at: Date;
      min_stake_minor: string;
      award_every_spins: number;
    }>(
      `SELECT d.drop_id, d.starts_at, d.ends_at, p.min_stake_minor::text, p.award_every_spins
         FROM prize_drops d
         JOIN prize_drop_titles t ON t.drop_id = d.drop_id AND t.symbol = $2
         JOIN prize_drop_operators o ON o.drop_id = d.drop_id AND o.operator_id = $1 AND o.opted_in
         JOIN prize_drop_pools p ON p.drop_id = d.drop_id AND p.currency = $3
        WHERE d.status = 'active' AND d.ends_at > now()
        ORDER BY d.starts_at, d.drop_id
        LIMIT 1`,
      [session.operator_id, session.symbol, session.currency],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      dropId: r.drop_id,
      startsAt: r.starts_at.getTime(),
      endsAt: r.ends_at.getTime(),
      minStakeMinor: BigInt(r.min_stake_minor),
      awardEverySpins: BigInt(r.award_every_spins),
    };
  });
}

/**
 * Whether this spin draws a prize: it qualifies (the stake, the window by this process's clock;
 * the statement checks the window again by the database's) and wins 1 in award_every_spins. The
 * draw is the CSPRNG's; the pool decides at its row lock whether a prize is left.
 */
export function drawsPrize(drop: SpinPrizeDrop, stakeMinor: bigint, now = Date.now()): boolean {
  if (now < drop.startsAt || now >= drop.endsAt || stakeMinor < drop.minStakeMinor) return false;
  return uniformBelow(drop.awardEverySpins) === 0n;
}
