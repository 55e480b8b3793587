-- Up Migration
-- Jackpot contributions and hits on the round (issue 25, docs/jackpots-and-promotions.md).
-- A contributing spin stores the jackpot it fed and its contribution (micros, summed over the
-- levels; the levels' shares are in the intent), and the minor units its hits won. All three are
-- written by the spin's one statement and never change afterwards.
ALTER TABLE rounds
  ADD COLUMN jackpot_id text,
  ADD COLUMN jackpot_contribution_micros bigint CHECK (jackpot_contribution_micros >= 0),
  ADD COLUMN jackpot_win_minor bigint NOT NULL DEFAULT 0 CHECK (jackpot_win_minor >= 0);

-- The pool's latest hit (the spin's statement reads back whether it was its own, and a ticker
-- shows it).
ALTER TABLE jackpot_pools
  ADD COLUMN last_win_round_id text,
  ADD COLUMN last_win_minor bigint CHECK (last_win_minor > 0),
  ADD COLUMN last_win_at timestamptz;

-- One spin's effect on one pool (all integers, micros): its contribution goes in, up to the cap
-- (what goes past the cap goes to the reserve); on a hit the win is the pool's whole minor units,
-- and the pool is refilled with the seed, the remainder under one minor unit, and the reserve (up
-- to the cap again). A hit that would win nothing (an empty pool without a seed) is no hit.
CREATE FUNCTION jackpot_pool_step(amount bigint, reserve bigint, cap_minor bigint, seed_minor bigint,
                                  contribution bigint, hit boolean,
                                  OUT new_amount bigint, OUT new_reserve bigint, OUT win_minor bigint) AS $$
DECLARE
  total bigint := amount + contribution;
  capped bigint := CASE WHEN cap_minor IS NULL THEN total ELSE least(total, cap_minor * 1000000) END;
  spill bigint := total - capped;
  refill bigint;
BEGIN
  win_minor := CASE WHEN hit THEN capped / 1000000 ELSE 0 END;
  IF win_minor > 0 THEN
    refill := seed_minor * 1000000 + (capped - win_minor * 1000000) + reserve + spill;
    new_amount := CASE WHEN cap_minor IS NULL THEN refill ELSE least(refill, cap_minor * 1000000) END;
    new_reserve := refill - new_amount;
  ELSE
    new_amount := capped;
    new_reserve := reserve + spill;
  END IF;
END;
$$ LANGUAGE plpgsql IMMUTABLE;

-- One row per level a spin hit: what it won, and whether it was paid (the `jackpot_win` credit
-- succeeded) or forfeited (the round's wager never stood: its debit refused, rolled back or
-- cancelled; the amount goes back to the pool's reserve, which seeds the next reset).
CREATE TABLE jackpot_hits (
  round_id text NOT NULL REFERENCES rounds (round_id),
  jackpot_id text NOT NULL,
  level text NOT NULL,
  currency char(3) NOT NULL,
  operator_id text NOT NULL REFERENCES operators (operator_id),
  external_player_id text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'forfeited')),
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz,
  PRIMARY KEY (round_id, level),
  FOREIGN KEY (jackpot_id, level, currency) REFERENCES jackpot_pools (jackpot_id, level, currency)
);
CREATE INDEX jackpot_hits_operator_created ON jackpot_hits (operator_id, created_at);
CREATE INDEX jackpot_hits_jackpot_created ON jackpot_hits (jackpot_id, created_at);
CREATE INDEX rounds_jackpot ON rounds (operator_id, created_at) WHERE jackpot_id IS NOT NULL;

-- A hit whose round's wager never stood is forfeited in the statement that records the round's
-- end: the win leaves the pool's paid total for its reserve (the invariant still holds to the
-- micro), and nothing is sent.
CREATE FUNCTION jackpot_hits_forfeit() RETURNS trigger AS $$
BEGIN
  WITH f AS (
    UPDATE jackpot_hits SET status = 'forfeited', settled_at = now()
     WHERE round_id = NEW.round_id AND status = 'pending'
    RETURNING jackpot_id, level, currency, amount_minor
  )
  UPDATE jackpot_pools p
     SET wins_micros = p.wins_micros - f.amount_minor::numeric * 1000000,
         reserve_micros = p.reserve_micros + f.amount_minor * 1000000,
         hits = p.hits - 1, updated_at = now()
    FROM f
   WHERE (p.jackpot_id, p.level, p.currency) = (f.jackpot_id, f.level, f.currency);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER rounds_jackpot_forfeit
  AFTER UPDATE OF status ON rounds
  FOR EACH ROW
  WHEN (NEW.jackpot_win_minor > 0 AND NEW.status IN ('rejected', 'cancelled', 'rolled_back')
        AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION jackpot_hits_forfeit();

-- Reconciliation: a completed round's game side is its win and its jackpot wins less its stake
-- (the jackpot_win credits are journal rows of the round, so the wallet side has them too).
CREATE OR REPLACE FUNCTION round_reconciliation_round_inserted() RETURNS trigger AS $$
BEGIN
  INSERT INTO round_reconciliation (round_id, operator_id, created_at, currency, game_delta_minor)
  VALUES (NEW.round_id, NEW.operator_id, NEW.created_at, NEW.currency,
          round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor + NEW.jackpot_win_minor));
  IF EXISTS (SELECT 1 FROM wallet_transactions WHERE round_id = NEW.round_id) THEN
    PERFORM round_reconciliation_refresh_one(NEW.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION round_reconciliation_round_updated() RETURNS trigger AS $$
BEGIN
  UPDATE round_reconciliation
     SET operator_id = NEW.operator_id, created_at = NEW.created_at, currency = NEW.currency,
         game_delta_minor = round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor + NEW.jackpot_win_minor)
   WHERE round_id = NEW.round_id
     AND (operator_id, created_at, currency, game_delta_minor)
         IS DISTINCT FROM (NEW.operator_id, NEW.created_at, NEW.currency,
                           round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor + NEW.jackpot_win_minor));
  IF (NEW.operator_id, NEW.currency) IS DISTINCT FROM (OLD.operator_id, OLD.currency) THEN
    PERFORM round_reconciliation_refresh_one(NEW.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- Every process caches which jackpot a spin feeds (game server); a definition or an opt-in change
-- drops those caches (migration 2's feed).
CREATE TRIGGER jackpots_changed AFTER INSERT OR UPDATE OR DELETE ON jackpots
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER jackpot_titles_changed AFTER INSERT OR UPDATE OR DELETE ON jackpot_titles
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER jackpot_operators_changed AFTER INSERT OR UPDATE OR DELETE ON jackpot_operators
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();

-- Down Migration
DROP TRIGGER jackpot_operators_changed ON jackpot_operators;
DROP TRIGGER jackpot_titles_changed ON jackpot_titles;
DROP TRIGGER jackpots_changed ON jackpots;
CREATE OR REPLACE FUNCTION round_reconciliation_round_updated() RETURNS trigger AS $$
BEGIN
  UPDATE round_reconciliation
     SET operator_id = NEW.operator_id, created_at = NEW.created_at, currency = NEW.currency,
         game_delta_minor = round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor)
   WHERE round_id = NEW.round_id
     AND (operator_id, created_at, currency, game_delta_minor)
         IS DISTINCT FROM (NEW.operator_id, NEW.created_at, NEW.currency,
                           round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor));
  IF (NEW.operator_id, NEW.currency) IS DISTINCT FROM (OLD.operator_id, OLD.currency) THEN
    PERFORM round_reconciliation_refresh_one(NEW.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE OR REPLACE FUNCTION round_reconciliation_round_inserted() RETURNS trigger AS $$
BEGIN
  INSERT INTO round_reconciliation (round_id, operator_id, created_at, currency, game_delta_minor)
  VALUES (NEW.round_id, NEW.operator_id, NEW.created_at, NEW.currency,
          round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor));
  IF EXISTS (SELECT 1 FROM wallet_transactions WHERE round_id = NEW.round_id) THEN
    PERFORM round_reconciliation_refresh_one(NEW.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
DROP TRIGGER rounds_jackpot_forfeit ON rounds;
DROP FUNCTION jackpot_hits_forfeit();
DROP TABLE jackpot_hits;
DROP FUNCTION jackpot_pool_step(bigint, bigint, bigint, bigint, bigint, boolean);
ALTER TABLE jackpot_pools DROP COLUMN last_win_at, DROP COLUMN last_win_minor, DROP COLUMN last_win_round_id;
DROP INDEX rounds_jackpot;
ALTER TABLE rounds DROP COLUMN jackpot_win_minor, DROP COLUMN jackpot_contribution_micros, DROP COLUMN jackpot_id;
