import type { SessionFreeRounds } from '@opi/contract';
import { withTransaction } from '@opi/db';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { conflict, invalidField } from '@opi/service-kit/http/named-errors';
import type { RoundIntent } from '@opi/wallet';
import type { GameDeps } from '../deps.js';
import { refusalLimitOf } from './refused-wagers.js';
import { recordSpinRound } from './spin-statement.js';

/*
 * A slot spin's free rounds (docs/free-rounds.md): which spins are free rounds, and how one is
 * recorded (its grant counted with the round, in one transaction).
 */

/**
 * Whether this spin is a free round: asked for (`free_round: true`, then it must be a base spin at
 * the campaign's stake) or refused while free rounds remain that the player has not declined (a
 * paid spin then is 409). Answers the session's free rounds to play, or null for a paid spin.
 */
export function freeRoundOf(
  free: SessionFreeRounds | null,
  req: { free_round?: boolean | undefined; mode: string; bet_level?: number | undefined },
  betMinor: bigint,
): SessionFreeRounds | null {
  if (req.free_round) {
    if (!free) throw conflict('No free rounds are left for this title');
    if (req.mode !== 'base' || req.bet_level !== undefined)
      throw invalidField(['body', 'mode'], 'a free round is a base spin');
    if (betMinor.toString() !== free.bet_minor)
      throw invalidField(
        ['body', 'bet_minor'],
        `a free round of this campaign is played at ${free.bet_minor} minor units`,
      );
    return free;
  }
  if (free && !free.declined) {
    throw conflict(
      `Free rounds remain for this title (${free.rounds_remaining}): play them or decline them first`,
      { error: 'free_rounds_pending', free_rounds: free },
    );
  }
  return null;
}

/**
 * A free round: in one transaction, the player's grant is counted (rounds_used + 1, only while
 * rounds remain and the campaign is not cancelled and inside its window, checked against the
 * database clock now: expiry is a query on expires_at at spend time) and the round is recorded
 * with its credit's journal row (recordSpinRound). No grant row counted: no round (409). A round
 * the session cannot take (one still open, bets blocked) rolls the count back. Two pages spending
 * the last round at once meet at the grant's row lock: one round between them.
 */
export async function recordFreeRound(
  deps: GameDeps,
  session: RuntimeSession,
  campaignId: string,
  buildIntent: (last: boolean) => RoundIntent,
  outcome: unknown,
): Promise<{ last: boolean; rounds_remaining: number }> {
  return withTransaction(deps.pool, async (client) => {
    const { rows } = await client.query<{ rounds_used: number; rounds_total: number }>(
      `WITH c AS (
         SELECT 1 FROM free_round_campaigns
          WHERE operator_id = $1 AND campaign_id = $2 AND cancelled_at IS NULL
            AND now() >= valid_from AND now() < expires_at AND $4 = ANY (symbols) AND currency = $5
          FOR SHARE
       )
       UPDATE free_round_grants SET rounds_used = rounds_used + 1
        WHERE operator_id = $1 AND campaign_id = $2 AND external_player_id = $3
          AND rounds_used < rounds_total AND EXISTS (SELECT 1 FROM c)
       RETURNING rounds_used, rounds_total`,
      [session.operator_id, campaignId, session.external_player_id, session.symbol, session.currency],
    );
    const grant = rows[0];
    if (!grant) throw conflict('No free rounds are left for this title');
    const last = grant.rounds_used === grant.rounds_total;
    if (
      (await recordSpinRound(client, session, buildIntent(last), outcome, refusalLimitOf(deps))) !==
      'recorded'
    )
      throw conflict('Another round of this session is still being settled');
    return { last, rounds_remaining: grant.rounds_total - grant.rounds_used };
  });
}
