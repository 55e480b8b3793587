-- Up Migration
-- Prize drops (issue 25, docs/jackpots-and-promotions.md): N prizes per currency between a start
-- and an end, awarded at random to qualifying paid spins of the drop's titles by the operators
-- that opt in. The award is decided in the spin's one statement, at the pool's row lock
-- (prizes_left > 0), so there are never more awards than prizes, and written as a promo_payouts
-- row (promo_type prize_drop) that the round's workflow pays once the round completes.
CREATE TABLE prize_drops (
  drop_id text PRIMARY KEY CHECK (drop_id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'cancelled')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  CHECK (ends_at > starts_at),
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);

CREATE TABLE prize_drop_titles (
  drop_id text NOT NULL REFERENCES prize_drops (drop_id),
  symbol text NOT NULL REFERENCES games (symbol),
  PRIMARY KEY (drop_id, symbol)
);
CREATE INDEX prize_drop_titles_symbol ON prize_drop_titles (symbol);

CREATE TABLE prize_drop_operators (
  drop_id text NOT NULL REFERENCES prize_drops (drop_id),
  operator_id text NOT NULL REFERENCES operators (operator_id),
  opted_in boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (drop_id, operator_id)
);

-- One pool per currency: the prize, how many, how many are left, the least stake that qualifies,
-- and the odds (a qualifying spin wins with probability 1 / award_every_spins while prizes last).
CREATE TABLE prize_drop_pools (
  drop_id text NOT NULL REFERENCES prize_drops (drop_id),
  currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  prize_minor bigint NOT NULL CHECK (prize_minor > 0 AND prize_minor <= 1000000000000),
  prizes_total integer NOT NULL CHECK (prizes_total BETWEEN 1 AND 1000000),
  prizes_left integer NOT NULL CHECK (prizes_left >= 0),
  min_stake_minor bigint NOT NULL DEFAULT 0 CHECK (min_stake_minor >= 0 AND min_stake_minor <= 1000000000000),
  award_every_spins integer NOT NULL CHECK (award_every_spins BETWEEN 1 AND 1000000000),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (drop_id, currency),
  CHECK (prizes_left <= prizes_total)
);

-- The round's award (its payout), set by the spin's statement.
ALTER TABLE rounds ADD COLUMN prize_drop_payout_id text;

-- An award whose round's wager never stood (debit refused, rolled back, cancelled) is void: its
-- payout row goes (nothing was sent: the round's workflow pays only a completed round) and the
-- prize goes back to the pool, in the statement recording the round's end.
CREATE FUNCTION prize_drop_award_void() RETURNS trigger AS $$
BEGIN
  WITH gone AS (
    DELETE FROM promo_payouts
     WHERE payout_id = NEW.prize_drop_payout_id AND status = 'pending'
       AND NOT EXISTS (SELECT 1 FROM wallet_transactions t WHERE t.round_id = NEW.prize_drop_payout_id)
    RETURNING promo_id, currency
  )
  UPDATE prize_drop_pools p SET prizes_left = p.prizes_left + 1, updated_at = now()
    FROM gone WHERE p.drop_id = gone.promo_id AND p.currency = gone.currency;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER rounds_prize_drop_void
  AFTER UPDATE OF status ON rounds
  FOR EACH ROW
  WHEN (NEW.prize_drop_payout_id IS NOT NULL AND NEW.status IN ('rejected', 'cancelled', 'rolled_back')
        AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION prize_drop_award_void();

-- Definition changes reach every process's caches (migration 2); prizes_left does not (the
-- spin's statement reads it at the row lock).
CREATE TRIGGER prize_drops_changed AFTER INSERT OR UPDATE OR DELETE ON prize_drops
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER prize_drop_titles_changed AFTER INSERT OR UPDATE OR DELETE ON prize_drop_titles
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER prize_drop_operators_changed AFTER INSERT OR UPDATE OR DELETE ON prize_drop_operators
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();

-- Down Migration
DROP TRIGGER prize_drop_operators_changed ON prize_drop_operators;
DROP TRIGGER prize_drop_titles_changed ON prize_drop_titles;
DROP TRIGGER prize_drops_changed ON prize_drops;
DROP TRIGGER rounds_prize_drop_void ON rounds;
DROP FUNCTION prize_drop_award_void();
ALTER TABLE rounds DROP COLUMN prize_drop_payout_id;
DROP TABLE prize_drop_pools;
DROP TABLE prize_drop_operators;
DROP TABLE prize_drop_titles;
DROP TABLE prize_drops;
