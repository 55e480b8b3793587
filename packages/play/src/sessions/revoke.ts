import { type Pool, withTransaction } from '@opi/db';

/**
 * Revokes a session: it can no longer be used (status `revoked`, any unused launch grant
 * dropped) and every crash authorization of it ends now. An unfinished round is not touched: its
 * settlement goes on (a revocation never cancels a payment), and a fresh launch resumes it.
 */
export async function revokeSession(
  pool: Pool,
  sessionId: string,
  reason: string,
): Promise<{ session_id: string; status: string; revoked_authorizations: number } | null> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query<{ session_id: string; status: string }>(
      `UPDATE sessions SET status = CASE WHEN status = 'active' THEN 'revoked' ELSE status END, token_hash = NULL
       WHERE session_id = $1 RETURNING session_id, status`,
      [sessionId],
    );
    if (!rows[0]) return null;
    const revoked = await c.query(
      `UPDATE crash_authorizations SET revoked_at = now(), revoked_reason = $2
       WHERE session_id = $1 AND revoked_at IS NULL`,
      [sessionId, reason],
    );
    return { ...rows[0], revoked_authorizations: revoked.rowCount ?? 0 };
  });
}
