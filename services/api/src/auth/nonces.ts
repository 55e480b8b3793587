import type { Pool } from '@opi/db';

/**
 * Single-use request nonces shared by every API process: a unique (key_id, nonce) row, one
 * statement. Pass a pool created with `synchronousCommit: false`: a PostgreSQL crash could then
 * forget the last fraction of a second of nonces, an accepted trade for a much cheaper hot path
 * (a replay would also need a captured request still inside the timestamp window).
 */
export async function claimNonce(pool: Pool, keyId: string, nonce: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    'INSERT INTO request_nonces (key_id, nonce) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [keyId, nonce],
  );
  return rowCount === 1;
}

/** Forgets nonces older than twice the skew window (they could no longer pass the timestamp check). */
export async function purgeNonces(pool: Pool, maxSkewSeconds: number): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM request_nonces WHERE seen_at < now() - make_interval(secs => $1)`,
    [maxSkewSeconds * 2],
  );
  return rowCount ?? 0;
}
