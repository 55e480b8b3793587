import type { StaffSessionItem, StaffSessionPage, StaffSessionSearchQuery } from '@opi/contract';
import type { Pool } from '@opi/db';
import { decodeCursor, encodeCursor } from '../audit/cursor.js';

interface Row extends Omit<StaffSessionItem, 'created_at' | 'last_activity_at'> {
  created_at: Date;
  last_activity_at: Date;
  micros: bigint;
}

/**
 * The operator's sessions, newest first, by player (external id), game, currency and status, in
 * keyset pages with the audit API's opaque cursors.
 */
export async function searchSessions(
  pool: Pool,
  operatorId: string,
  q: StaffSessionSearchQuery,
): Promise<StaffSessionPage> {
  const cursor = decodeCursor(q.cursor);
  const { rows } = await pool.query<Row>(
    `SELECT s.session_id, p.external_player_id AS player_id, s.symbol AS game_symbol, s.provider_id,
            trim(s.currency) AS currency, s.status, s.device, s.created_at, s.last_activity_at,
            (extract(epoch FROM s.created_at) * 1000000)::bigint AS micros
     FROM sessions s JOIN players p ON p.player_id = s.player_id
     WHERE s.operator_id = $1
       AND ($2::text IS NULL OR s.player_id IN
             (SELECT player_id FROM players WHERE operator_id = $1 AND external_player_id = $2))
       AND ($3::text IS NULL OR s.symbol = $3)
       AND ($4::text IS NULL OR s.currency = $4)
       AND ($5::text IS NULL OR s.status = $5)
       AND ($6::bigint IS NULL OR (s.created_at, s.session_id) <
             (timestamptz 'epoch' + $6::bigint * interval '1 microsecond', $7::text))
     ORDER BY s.created_at DESC, s.session_id DESC
     LIMIT $8`,
    [
      operatorId,
      q.player_id ?? null,
      q.game_symbol ?? null,
      q.currency ?? null,
      q.status ?? null,
      cursor ? cursor.micros.toString() : null,
      cursor?.id ?? null,
      q.limit + 1,
    ],
  );
  const more = rows.length > q.limit;
  const items = rows.slice(0, q.limit);
  const last = items[items.length - 1];
  return {
    items: items.map(
      ({ micros: _m, created_at, last_activity_at, ...r }): StaffSessionItem => ({
        ...r,
        created_at: created_at.toISOString(),
        last_activity_at: last_activity_at.toISOString(),
      }),
    ),
    limit: q.limit,
    next_cursor: more && last ? encodeCursor({ micros: last.micros, id: last.session_id }) : null,
  };
}
