import type { OperatorRow } from './auth/operator-scope.js';

/**
 * What the admin API and the staff API both show of an operator: who it is, its currencies, its
 * bet limits (minor units as strings) and its wallet address, and whether a wallet secret is set
 * (never the secret).
 */
export function presentOperatorBasics(o: OperatorRow) {
  return {
    operator_id: o.operator_id,
    name: o.name,
    status: o.status,
    default_currency: o.default_currency,
    allowed_currencies: o.allowed_currencies,
    bet_limits: { min: o.bet_min_minor.toString(), max: o.bet_max_minor.toString() },
    wallet_base_url: o.wallet_base_url,
    wallet_secret_configured: o.wallet_secret_enc !== null,
  };
}
