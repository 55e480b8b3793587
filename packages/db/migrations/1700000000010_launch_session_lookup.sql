-- Up Migration
-- The launch's lookup of the player's live session of a game and currency (the newest first).
-- Without it the planner's generic plan for that prepared statement walked
-- sessions_operator_created backwards over every session of the operator, filtering, so a new
-- player's launch cost grew with the operator's session count (the launch benchmark fell from
-- 309 to 209 req/s over 8,500 sessions, PostgreSQL CPU per launch 3.3 -> 6.8 ms).
CREATE INDEX sessions_live_lookup ON sessions (player_id, symbol, currency, created_at DESC)
  WHERE status = 'active';

-- Down Migration
DROP INDEX sessions_live_lookup;
