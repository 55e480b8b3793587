import type { Pool } from './pool.js';
import type { SecretBox } from './secret-box.js';

export const BOOTSTRAP_ADMIN_KEY_ID = 'adm_bootstrap';

/** What the configured bootstrap key is in the database. */
export type BootstrapAdminKeyState = 'active' | 'revoked' | 'absent';

/**
 * Makes `key` the bootstrap provider-admin key. A different key replaces the earlier bootstrap key
 * (that is how it is rotated: a new PROVIDER_ADMIN_KEY). The same key, once revoked through the
 * admin API, stays revoked: a deploy never revives it (the caller logs loudly that
 * PROVIDER_ADMIN_KEY names a revoked key). Only a keyed hash and the sealed key are stored.
 */
export async function ensureBootstrapAdminKey(
  pool: Pool,
  box: SecretBox,
  key: string,
): Promise<BootstrapAdminKeyState> {
  const hash = box.lookupHash(key);
  await pool.query(
    `INSERT INTO api_keys (key_id, kind, key_hash, key_enc, label)
     VALUES ($1, 'admin', $2, $3, 'bootstrap provider-admin key')
     ON CONFLICT (key_id) DO UPDATE
       SET key_hash = EXCLUDED.key_hash, key_enc = EXCLUDED.key_enc, revoked_at = NULL
       WHERE api_keys.key_hash <> EXCLUDED.key_hash`,
    [BOOTSTRAP_ADMIN_KEY_ID, hash, box.encrypt(key)],
  );
  return bootstrapAdminKeyState(pool, box, key);
}

/** Whether `key` is the bootstrap key and still active, revoked, or not the bootstrap key at all. */
export async function bootstrapAdminKeyState(
  pool: Pool,
  box: SecretBox,
  key: string,
): Promise<BootstrapAdminKeyState> {
  const { rows } = await pool.query<{ revoked: boolean }>(
    `SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE key_id = $1 AND key_hash = $2`,
    [BOOTSTRAP_ADMIN_KEY_ID, box.lookupHash(key)],
  );
  if (rows.length === 0) return 'absent';
  return rows[0]!.revoked ? 'revoked' : 'active';
}

/** The log line for a PROVIDER_ADMIN_KEY that names a revoked key. */
export const REVOKED_BOOTSTRAP_KEY_MESSAGE =
  'PROVIDER_ADMIN_KEY names a revoked provider-admin key: it stays revoked and cannot sign in; ' +
  'set a new PROVIDER_ADMIN_KEY to rotate it';
