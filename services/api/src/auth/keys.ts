import { randomBytes } from 'node:crypto';
import type { Pool, SecretBox } from '@opi/db';
import { type ChangeFeed, ConfigCache } from '@opi/service-kit/cache/change-feed';

export type KeyKind = 'operator' | 'master' | 'admin';

export interface ApiKeyRecord {
  keyId: string;
  kind: KeyKind;
  operatorId: string | null;
  /** The raw key: it is the HMAC key of signed requests. */
  secret: string;
}

const PREFIX: Record<KeyKind, string> = { operator: 'opk_', master: 'pmk_', admin: 'padm_' };

/** 256 random bits, base64url, with a prefix that says what kind of key it is. */
export function generateApiKey(kind: KeyKind): string {
  return `${PREFIX[kind]}${randomBytes(32).toString('base64url')}`;
}

/** Creates a key and returns it once; only its lookup hash and sealed form are stored. */
export async function createApiKey(
  pool: Pool,
  box: SecretBox,
  kind: KeyKind,
  operatorId: string | null,
  label: string | null = null,
): Promise<{ key_id: string; api_key: string }> {
  const apiKey = generateApiKey(kind);
  const keyId = `key_${randomBytes(8).toString('hex')}`;
  await pool.query(
    `INSERT INTO api_keys (key_id, kind, operator_id, key_hash, key_enc, label) VALUES ($1, $2, $3, $4, $5, $6)`,
    [keyId, kind, operatorId, box.lookupHash(apiKey), box.encrypt(apiKey), label],
  );
  return { key_id: keyId, api_key: apiKey };
}

/**
 * Finds an active key by its raw value. Keys are cached in memory while the change feed is
 * healthy; a revocation anywhere notifies every process, which drops its cache at once.
 */
export class KeyStore {
  private cache: ConfigCache<ApiKeyRecord | null>;
  constructor(
    private readonly pool: Pool,
    private readonly box: SecretBox,
    feed: ChangeFeed,
  ) {
    this.cache = new ConfigCache(feed);
  }

  async find(rawKey: string): Promise<ApiKeyRecord | null> {
    const hash = this.box.lookupHash(rawKey);
    return this.cache.get(hash, async () => {
      const { rows } = await this.pool.query<{ key_id: string; kind: KeyKind; operator_id: string | null }>(
        `SELECT key_id, kind, operator_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`,
        [hash],
      );
      const row = rows[0];
      return row ? { keyId: row.key_id, kind: row.kind, operatorId: row.operator_id, secret: rawKey } : null;
    });
  }

  async revoke(keyId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE api_keys SET revoked_at = now() WHERE key_id = $1 AND revoked_at IS NULL`,
      [keyId],
    );
    return (rowCount ?? 0) > 0;
  }
}
