-- Up Migration
-- Player protection, as a real operator wallet would apply it: a player whose debits the wallet
-- refuses with a protection code (limit_reached, self_excluded, session_time_limit,
-- player_blocked, or any other code a test wants to see), for every currency of the player. Set
-- through the staff API (PUT /admin/protection). `remaining` counts the debits still to refuse
-- (NULL: every debit until the setting is cleared); the row goes when it reaches zero. Credits,
-- cancels and rollbacks are never refused by it: a protected player is still paid.
CREATE TABLE wallet.player_protection (
  operator_id        text NOT NULL,
  player_id          text NOT NULL CHECK (length(player_id) BETWEEN 1 AND 64),
  refuse_debits_with text NOT NULL CHECK (refuse_debits_with ~ '^[a-z][a-z0-9_]{0,63}$'),
  remaining          integer CHECK (remaining IS NULL OR remaining > 0),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (operator_id, player_id)
);

-- Down Migration
DROP TABLE wallet.player_protection;
