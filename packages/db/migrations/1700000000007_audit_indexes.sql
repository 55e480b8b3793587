-- Up Migration
-- The operator audit reads: searches page newest first by (created_at, id) within one operator,
-- optionally narrowed to a player or a session; reconciliation windows rounds by creation time
-- and joins their journal rows by round id. Status filters (pending, open, rejected) are rare
-- values: they get their own leading column rather than a scan of everything newer.
CREATE INDEX wallet_transactions_operator_player ON wallet_transactions (operator_id, player_id, created_at, transaction_id);
CREATE INDEX wallet_transactions_operator_session ON wallet_transactions (operator_id, session_id, created_at, transaction_id);
CREATE INDEX wallet_transactions_operator_status ON wallet_transactions (operator_id, status, created_at, transaction_id);
CREATE INDEX rounds_operator_player ON rounds (operator_id, player_id, created_at, round_id);
CREATE INDEX rounds_operator_session ON rounds (operator_id, session_id, created_at, round_id);
CREATE INDEX rounds_operator_status ON rounds (operator_id, status, created_at, round_id);
CREATE INDEX rounds_operator_stuck ON rounds (operator_id, created_at, round_id) WHERE stuck;

-- Down Migration
DROP INDEX rounds_operator_stuck;
DROP INDEX rounds_operator_status;
DROP INDEX rounds_operator_session;
DROP INDEX rounds_operator_player;
DROP INDEX wallet_transactions_operator_status;
DROP INDEX wallet_transactions_operator_session;
DROP INDEX wallet_transactions_operator_player;
