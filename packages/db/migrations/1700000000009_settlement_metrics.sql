-- Up Migration
-- Settlement gauges for the workers' /metrics (rounds in flight, stuck, the oldest in flight;
-- wallet transactions pending): each scrape counts a small set through these partial indexes
-- instead of scanning every round or journal row.
CREATE INDEX rounds_in_flight ON rounds (created_at) WHERE status IN ('open', 'settling') OR stuck;
CREATE INDEX wallet_transactions_pending ON wallet_transactions (created_at) WHERE status = 'pending';

-- Down Migration
DROP INDEX wallet_transactions_pending;
DROP INDEX rounds_in_flight;
