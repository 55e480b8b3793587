-- Up Migration
-- Jurisdiction rules (issue 18): an operator's default jurisdiction and reality-check interval,
-- the rules in force recorded on each session at launch, and the reality checks players answered.
ALTER TABLE operators
  ADD COLUMN default_jurisdiction text,
  ADD COLUMN reality_check_interval_seconds integer
    CHECK (reality_check_interval_seconds IS NULL OR reality_check_interval_seconds BETWEEN 1 AND 86400);

-- The rules the launch put in force (a relaunch writes them again). min_spin_interval_ms: the
-- least time between the starts of two slot spins (GB: 2500), checked by the spin's one statement
-- against the session's latest round. reality_check_due_at: the next reality check; the spin
-- refuses while it is past and the player has not acknowledged it (acknowledging moves it one
-- interval on from the acknowledgement).
ALTER TABLE sessions
  ADD COLUMN jurisdiction                   text,
  ADD COLUMN min_spin_interval_ms           integer,
  ADD COLUMN autoplay_allowed               boolean NOT NULL DEFAULT true,
  ADD COLUMN turbo_allowed                  boolean NOT NULL DEFAULT true,
  ADD COLUMN reality_check_interval_seconds integer,
  ADD COLUMN reality_check_due_at           timestamptz;

CREATE TABLE reality_checks (
  check_id        bigserial PRIMARY KEY,
  operator_id     text NOT NULL REFERENCES operators (operator_id),
  session_id      text NOT NULL REFERENCES sessions (session_id),
  due_at          timestamptz NOT NULL,
  acknowledged_at timestamptz NOT NULL DEFAULT now(),
  action          text NOT NULL CHECK (action IN ('continue', 'leave')),
  elapsed_ms      bigint NOT NULL,
  net_minor       bigint NOT NULL
);
CREATE INDEX reality_checks_operator ON reality_checks (operator_id, acknowledged_at);

-- Debits refused for player protection, by operator and time (the staff Protection page).
CREATE INDEX wallet_transactions_refused ON wallet_transactions (operator_id, created_at)
  WHERE error_code IS NOT NULL;

-- Down Migration
DROP INDEX wallet_transactions_refused;
DROP TABLE reality_checks;
ALTER TABLE sessions
  DROP COLUMN reality_check_due_at,
  DROP COLUMN reality_check_interval_seconds,
  DROP COLUMN turbo_allowed,
  DROP COLUMN autoplay_allowed,
  DROP COLUMN min_spin_interval_ms,
  DROP COLUMN jurisdiction;
ALTER TABLE operators
  DROP COLUMN reality_check_interval_seconds,
  DROP COLUMN default_jurisdiction;
