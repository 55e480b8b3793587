-- Up Migration
-- The operator audit of promotional payouts (issue 25, docs/audit-and-reconciliation.md): the
-- search `GET /api/operator/v1/promo-payouts` pages an operator's payouts newest first, and the
-- reconciliation sums the payouts created in a window. Both are a range of this index; the
-- credits they are checked against are found by payout id (wallet_transactions_round).
CREATE INDEX promo_payouts_operator_created ON promo_payouts (operator_id, created_at, payout_id);

-- Down Migration
DROP INDEX promo_payouts_operator_created;
