import type { Pool } from '@opi/db';

export interface OperatorRow {
  operator_id: string;
  name: string;
  status: 'active' | 'inactive';
  default_currency: string;
  allowed_currencies: string[];
  bet_min_minor: bigint;
  bet_max_minor: bigint;
  wallet_base_url: string | null;
  wallet_secret_enc: string | null;
  artwork_format: 'vertical' | 'horizontal';
  /** Jurisdiction of launches that name none (issue 18), or null. */
  default_jurisdiction: string | null;
  /** Seconds between reality checks on slot pages, or null: none. */
  reality_check_interval_seconds: number | null;
  /** The wallet diagnostics' protection test player (the wallet always refuses it), or null. */
  diagnostics_protection_player_id: string | null;
}

export async function loadOperator(pool: Pool, operatorId: string): Promise<OperatorRow | null> {
  const { rows } = await pool.query<OperatorRow>(
    `SELECT operator_id, name, status, default_currency, allowed_currencies, bet_min_minor, bet_max_minor,
            wallet_base_url, wallet_secret_enc, artwork_format, default_jurisdiction, reality_check_interval_seconds,
            diagnostics_protection_player_id
     FROM operators WHERE operator_id = $1`,
    [operatorId],
  );
  return rows[0] ?? null;
}
