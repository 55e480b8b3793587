-- Up Migration
-- Issue 39 point 3 (docs/currencies.md "Stake ladders"): stake ladders derived by rate, frozen per
-- session, recorded on every round. Additive: a new table and nullable columns the previous
-- release neither reads nor writes, and a trigger that only fills a new column.
--
-- A ladder is a title's reference ladder (EUR minor units) converted to a currency at one loaded
-- exchange rate (exchange_rates, migration 32: the row's base, quote, date and source are copied
-- here, and `direction` says whether it was used as given (EUR → currency) or inverted (a
-- currency/EUR row such as BTC/EUR 98765.12)), snapped to 1-2-5 steps of the currency's minor
-- unit. Versions count per title and currency from 1; a new version is written only when the
-- rate in force has drifted past the band from the latest version's rate. A ladder never changes
-- once written: sessions and rounds name it.
CREATE TABLE stake_ladders (
  ladder_id              text PRIMARY KEY CHECK (ladder_id ~ '^sl_[0-9a-f-]{36}$'),
  symbol                 text NOT NULL REFERENCES games (symbol),
  currency               char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  version                integer NOT NULL CHECK (version >= 1),
  reference_currency     char(3) NOT NULL CHECK (reference_currency ~ '^[A-Z]{3}$'),
  reference_stakes_minor bigint[] NOT NULL CHECK (cardinality(reference_stakes_minor) BETWEEN 1 AND 30),
  stakes_minor           bigint[] NOT NULL CHECK (cardinality(stakes_minor) BETWEEN 1 AND 30),
  -- The exchange rate used, as loaded (units of rate_quote per unit of rate_base, exact).
  rate_base              char(3) NOT NULL,
  rate_quote             char(3) NOT NULL,
  rate_date              date NOT NULL,
  rate_source            text NOT NULL,
  rate                   numeric NOT NULL CHECK (rate > 0),
  direction              text NOT NULL CHECK (direction IN ('direct', 'inverse')),
  created_at             timestamptz NOT NULL DEFAULT now(),
  UNIQUE (symbol, currency, version)
);

-- The ladder a session was launched with (null: a fiat currency, a coin launch, or a session from
-- before issue 39). A relaunch that resumes the session keeps it: a session's ladder is frozen.
ALTER TABLE sessions ADD COLUMN stake_ladder_id text REFERENCES stake_ladders (ladder_id);

-- The ladder a round was played at (its version and rate are the ladder's): copied from the
-- session by the trigger below when the round is written, for every family and every writer. No
-- foreign key (the session's holds it), so a round's insert takes no lock on stake_ladders.
ALTER TABLE rounds ADD COLUMN stake_ladder_id text;

CREATE FUNCTION rounds_stake_ladder() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.stake_ladder_id IS NULL THEN
    SELECT s.stake_ladder_id INTO NEW.stake_ladder_id FROM sessions s WHERE s.session_id = NEW.session_id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER rounds_stake_ladder BEFORE INSERT ON rounds
  FOR EACH ROW EXECUTE FUNCTION rounds_stake_ladder();

-- Down Migration
DROP TRIGGER rounds_stake_ladder ON rounds;
DROP FUNCTION rounds_stake_ladder();
ALTER TABLE rounds DROP COLUMN stake_ladder_id;
ALTER TABLE sessions DROP COLUMN stake_ladder_id;
DROP TABLE stake_ladders;
