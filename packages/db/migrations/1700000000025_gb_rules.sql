-- Up Migration
-- The UK's rules for every casino game (issue 26). Recorded on the session by the launch (a
-- relaunch writes them again), like migration 15's rules:
-- min_cycle_interval_ms: the least time between the end of one native or crash game cycle and the
--   start of the next (GB: 5000), checked in the transaction that records the next round against
--   last_cycle_ended_at, under the lock that already serialises a player's rounds of a title;
-- last_cycle_ended_at: when the session's latest game cycle ended (a native round's final stage:
--   cash-out, bust, wrong guess, the dice roll; a crash round's cash-out or crash), written in the
--   transaction that ends it;
-- age_band: the age band the launch gave (`18-24`, `25+`; never a date of birth), or null;
-- max_stake_minor: the most a slot spin may stake in the session currency (GB: per currency and
--   age band), checked by the spin; null: no cap.
ALTER TABLE sessions
  ADD COLUMN min_cycle_interval_ms integer,
  ADD COLUMN last_cycle_ended_at   timestamptz,
  ADD COLUMN age_band              text CHECK (age_band IS NULL OR age_band IN ('18-24', '25+')),
  ADD COLUMN max_stake_minor       bigint CHECK (max_stake_minor IS NULL OR max_stake_minor > 0);

-- Down Migration
ALTER TABLE sessions
  DROP COLUMN max_stake_minor,
  DROP COLUMN age_band,
  DROP COLUMN last_cycle_ended_at,
  DROP COLUMN min_cycle_interval_ms;
