import { ReplayRoundId, type ReplayUrl, ReplayUrlRequest } from '@opi/contract';
import type { Pool } from '@opi/db';
import { invalidField, notFound } from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import { shareReplayUrl } from '@opi/signing';
import type { ReplayLinks } from './repository.js';

/*
 * `POST /api/operator/v1/rounds/{round_id}/replay-url` (issue 26): a link to the round's replay
 * page that a support agent gives a player. Time-limited (SHARE_LINK_TTL_SECONDS, ten minutes)
 * and reusable within that time rather than single use: the page holds no state, so a link that
 * opens once in a chat preview and once in the player's browser still works, and nothing is
 * written per link. Another operator's round and an unknown one are the same 404: the answer never
 * tells whether a round exists elsewhere (as every read by id, issue 34 point 4).
 */

/** The path's round id, or 422 naming `path.round_id`. */
export function replayRoundId(raw: unknown): string {
  if (typeof raw === 'string' && ReplayRoundId.safeParse(raw).success) return raw;
  throw invalidField(['path', 'round_id'], 'must be 1 to 128 letters, digits or _ : . -');
}

/** The body: absent or `{}` (anything else is 422). */
export function replayUrlBody(body: unknown): void {
  if (body === undefined) return;
  parseOr422(ReplayUrlRequest, body, 'body');
}

export async function issueReplayUrl(
  pool: Pool,
  links: ReplayLinks,
  operatorId: string,
  roundId: string,
  nowMs: number = Date.now(),
): Promise<ReplayUrl> {
  const { rows } = await pool.query('SELECT 1 FROM rounds WHERE round_id = $1 AND operator_id = $2', [
    roundId,
    operatorId,
  ]);
  if (rows.length === 0) throw notFound('round');
  const share = shareReplayUrl(links.baseUrl, links.key, roundId, nowMs);
  return { round_id: roundId, url: share.url, expires_at: share.expiresAt.toISOString() };
}
