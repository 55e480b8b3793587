-- Up Migration
-- Player protection from the operator's wallet: a debit refused with a code that blocks bets
-- (self_excluded, session_time_limit, player_blocked, or any code the service does not know;
-- @opi/contract blocksBets) stops the session taking bets until the operator launches the game
-- again. The settlement activity sets these in the same statement that records the refused debit
-- and the rejected round; the launch that resumes the session clears them. Per session.
ALTER TABLE sessions
  ADD COLUMN bets_blocked_code     text,
  ADD COLUMN bets_blocked_at       timestamptz,
  ADD COLUMN bets_blocked_round_id text,
  ADD CONSTRAINT sessions_bets_blocked_complete
    CHECK ((bets_blocked_code IS NULL) = (bets_blocked_at IS NULL));

-- Down Migration
ALTER TABLE sessions
  DROP CONSTRAINT sessions_bets_blocked_complete,
  DROP COLUMN bets_blocked_round_id,
  DROP COLUMN bets_blocked_at,
  DROP COLUMN bets_blocked_code;
