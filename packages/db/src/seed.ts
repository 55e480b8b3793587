import type { Pool } from './pool.js';

export interface DemoOperatorOptions {
  operatorId?: string;
  walletBaseUrl: string;
  /** Already encrypted wallet secret (the caller owns the service secret). */
  walletSecretEnc: string;
}

/** Seeds (or refreshes) the demo operator of the default stack. Idempotent; says whether it was new. */
export async function seedDemoOperator(
  pool: Pool,
  options: DemoOperatorOptions,
): Promise<{ operatorId: string; created: boolean }> {
  const operatorId = options.operatorId ?? 'op_demo';
  const { rows } = await pool.query<{ created: boolean }>(
    `INSERT INTO operators (operator_id, name, status, default_currency, allowed_currencies,
                            bet_min_minor, bet_max_minor, wallet_base_url, wallet_secret_enc)
     VALUES ($1, 'Demo Casino', 'active', 'EUR', ARRAY['EUR','USD','GBP','JPY'], 10, 50000, $2, $3)
     ON CONFLICT (operator_id) DO UPDATE
       SET wallet_base_url = EXCLUDED.wallet_base_url, updated_at = now()
     RETURNING (xmax = 0) AS created`,
    [operatorId, options.walletBaseUrl, options.walletSecretEnc],
  );
  return { operatorId, created: rows[0]?.created ?? false };
}
