import type { Pool } from './pool.js';

export interface DemoOperatorOptions {
  operatorId?: string;
  walletBaseUrl: string;
  /** Already encrypted wallet secret (the caller owns the service secret). */
  walletSecretEnc: string;
}

/**
 * Seeds (or refreshes) the demo operator of the default stack. Idempotent; says whether it was new.
 * It accepts two crypto currencies besides its fiat ones (issue 39): BTC and UDT (USDT), whose
 * stakes come from the demo rates of `seedDemoRates`.
 */
export async function seedDemoOperator(
  pool: Pool,
  options: DemoOperatorOptions,
): Promise<{ operatorId: string; created: boolean }> {
  const operatorId = options.operatorId ?? 'op_demo';
  const { rows } = await pool.query<{ created: boolean }>(
    `INSERT INTO operators (operator_id, name, status, default_currency, allowed_currencies,
                            bet_min_minor, bet_max_minor, wallet_base_url, wallet_secret_enc)
     VALUES ($1, 'Demo Casino', 'active', 'EUR', ARRAY['EUR','USD','GBP','JPY','BTC','UDT'], 10, 50000, $2, $3)
     ON CONFLICT (operator_id) DO UPDATE
       SET wallet_base_url = EXCLUDED.wallet_base_url, updated_at = now()
     RETURNING (xmax = 0) AS created`,
    [operatorId, options.walletBaseUrl, options.walletSecretEnc],
  );
  return { operatorId, created: rows[0]?.created ?? false };
}

/**
 * The demo stack's exchange rates (issue 39: a crypto launch needs an EUR rate of its currency for
 * its stake ladder; docs/currencies.md): BTC/EUR 98,765.12 and EUR/UDT 1.0823, dated `today`
 * (YYYY-MM-DD, UTC), source `stack-demo`. A demo figure, not a market rate; an environment's admins
 * load real ones (POST /api/admin/v1/exchange-rates). Idempotent: a rate already loaded for the day
 * and source stays as it is.
 */
export const DEMO_RATES: ReadonlyArray<{ base: string; quote: string; rate: string }> = [
  { base: 'BTC', quote: 'EUR', rate: '98765.12' },
  { base: 'EUR', quote: 'UDT', rate: '1.0823' },
];

export async function seedDemoRates(pool: Pool, today: string): Promise<void> {
  await pool.query(
    `INSERT INTO exchange_rates (base_currency, quote_currency, rate_date, source, rate, loaded_by)
     SELECT r.base, r.quote, $1::date, 'stack-demo', r.rate::numeric, 'stack'
       FROM jsonb_to_recordset($2::jsonb) AS r(base text, quote text, rate text)
     ON CONFLICT DO NOTHING`,
    [today, JSON.stringify(DEMO_RATES)],
  );
}
