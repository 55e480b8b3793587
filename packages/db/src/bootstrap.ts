import type { Pool } from './pool.js';
import type { SecretBox } from './secret-box.js';

export const BOOTSTRAP_ADMIN_KEY_ID = 'adm_bootstrap';

/**
 * Makes `key` the bootstrap provider-admin key (replacing an earlier bootstrap key). Only a
 * keyed hash and the sealed key are stored.
 */
export async function ensureBootstrapAdminKey(pool: Pool, box: SecretBox, key: string): Promise<void> {
  await pool.query(
    `INSERT INTO api_keys (key_id, kind, key_hash, key_enc, label)
     VALUES ($1, 'admin', $2, $3, 'bootstrap provider-admin key')
     ON CONFLICT (key_id) DO UPDATE
       SET key_hash = EXCLUDED.key_hash, key_enc = EXCLUDED.key_enc, revoked_at = NULL
       WHERE api_keys.key_hash <> EXCLUDED.key_hash OR api_keys.revoked_at IS NOT NULL`,
    [BOOTSTRAP_ADMIN_KEY_ID, box.lookupHash(key), box.encrypt(key)],
  );
}
