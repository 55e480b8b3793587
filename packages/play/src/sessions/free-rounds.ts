import type { SessionFreeRounds } from '@opi/contract';
import { type Pool, type PoolClient, prepared } from '@opi/db';
import { isSlotTitle } from '@opi/games';
import { snapToLadder } from '@opi/money';
import type { RuntimeSession } from './runtime-session.js';
import { ladderById } from './stake-ladders.js';

/**
 * The free rounds a session can play now: a grant of the session's player (same operator) in a
 * campaign of the session's title and currency, not cancelled, inside valid_from..expires_at
 * (read against the database clock at the time of the query), with rounds left. The campaign
 * expiring first is played first. Null when there is none.
 *
 * A session frozen with a stake ladder (issue 39: a crypto currency) plays the campaign's stake
 * snapped to that ladder's stakes within the operator's limits (`snapToLadder`: the stake itself
 * when it is one, which the campaign's create checked against the ladder in force; else the
 * nearest by ratio, when a later ladder version left it out). `bet_minor` is the stake played, the
 * one the spin must name and the round records (`free_round_bet_minor`); the campaign keeps its own.
 */
export async function sessionFreeRounds(
  db: Pool | PoolClient,
  session: Pick<
    RuntimeSession,
    | 'session_id'
    | 'operator_id'
    | 'external_player_id'
    | 'symbol'
    | 'currency'
    | 'provider_id'
    | 'free_rounds_granted'
  > &
    Partial<Pick<RuntimeSession, 'stake_ladder_id'>>,
): Promise<SessionFreeRounds | null> {
  if (!isSlotTitle(session.provider_id)) return null;
  // Authentication read the session with whether any grant has rounds left: none, no query.
  if (session.free_rounds_granted === false) return null;
  const { rows } = await db.query<{
    campaign_id: string;
    bet_minor: bigint;
    rounds_total: number;
    rounds_used: number;
    won_minor: bigint;
    expires_at: Date;
    declined: boolean;
    bet_min_minor: bigint;
    bet_max_minor: bigint;
  }>(
    prepared(
      `SELECT c.campaign_id, c.bet_minor, g.rounds_total, g.rounds_used, g.won_minor, c.expires_at,
            EXISTS (SELECT 1 FROM sessions s WHERE s.session_id = $5 AND s.free_rounds_declined_at IS NOT NULL) AS declined,
            o.bet_min_minor, o.bet_max_minor
       FROM free_round_grants g
       JOIN free_round_campaigns c ON c.operator_id = g.operator_id AND c.campaign_id = g.campaign_id
       JOIN operators o ON o.operator_id = g.operator_id
      WHERE g.operator_id = $1 AND g.external_player_id = $2 AND $3 = ANY (c.symbols) AND c.currency = $4
        AND c.cancelled_at IS NULL AND now() >= c.valid_from AND now() < c.expires_at
        AND g.rounds_used < g.rounds_total
      ORDER BY c.expires_at, c.campaign_id LIMIT 1`,
      [session.operator_id, session.external_player_id, session.symbol, session.currency, session.session_id],
    ),
  );
  const row = rows[0];
  if (!row) return null;
  const played = await stakeOnLadder(
    db,
    session.stake_ladder_id,
    row.bet_minor,
    row.bet_min_minor,
    row.bet_max_minor,
  );
  return {
    campaign_id: row.campaign_id,
    bet_minor: played.toString(),
    rounds_remaining: row.rounds_total - row.rounds_used,
    rounds_total: row.rounds_total,
    won_minor: row.won_minor.toString(),
    expires_at: row.expires_at.toISOString(),
    declined: row.declined,
  };
}

/**
 * The campaign's stake on the session's frozen ladder: itself without a ladder or when it is a
 * step; else the nearest step within the operator's limits (the whole ladder when none is).
 */
async function stakeOnLadder(
  db: Pool | PoolClient,
  ladderId: string | null | undefined,
  stake: bigint,
  min: bigint,
  max: bigint,
): Promise<bigint> {
  if (!ladderId) return stake;
  const ladder = await ladderById(db, ladderId);
  if (!ladder) return stake;
  const steps = ladder.stakes_minor.map(BigInt);
  if (steps.includes(stake)) return stake;
  const within = steps.filter((v) => v >= min && v <= max);
  return snapToLadder(stake, within.length > 0 ? within : steps);
}
