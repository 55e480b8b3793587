-- Up Migration
-- Progressive jackpots (issue 25, docs/jackpots-and-promotions.md): definitions, the slot titles
-- that feed them, their levels, the operators that take part, and one pool per level and currency.
-- Pools are kept in millionths of the currency's minor unit (micros): a contribution is
-- stake_minor × rate_ppm micros, an exact integer, so rounding never creates or loses money.
CREATE TABLE jackpots (
  jackpot_id text PRIMARY KEY CHECK (jackpot_id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  -- `network`: shared by the operators that opt in; `operator`: one operator's own.
  scope text NOT NULL CHECK (scope IN ('network', 'operator')),
  operator_id text REFERENCES operators (operator_id),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((scope = 'operator') = (operator_id IS NOT NULL))
);

CREATE TABLE jackpot_titles (
  jackpot_id text NOT NULL REFERENCES jackpots (jackpot_id),
  symbol text NOT NULL REFERENCES games (symbol),
  PRIMARY KEY (jackpot_id, symbol)
);
CREATE INDEX jackpot_titles_symbol ON jackpot_titles (symbol);

CREATE TABLE jackpot_levels (
  jackpot_id text NOT NULL REFERENCES jackpots (jackpot_id),
  level text NOT NULL CHECK (level ~ '^[a-z][a-z0-9_]{0,31}$'),
  -- Its order on a ticker (mini first).
  position smallint NOT NULL CHECK (position BETWEEN 0 AND 9),
  -- The share of each eligible stake it collects, in parts per million (5000 = 0.5 %).
  rate_ppm integer NOT NULL CHECK (rate_ppm BETWEEN 1 AND 100000),
  PRIMARY KEY (jackpot_id, level),
  UNIQUE (jackpot_id, position)
);

-- Who takes part: a network jackpot's opted-in operators (an operator jackpot's own operator is
-- in by definition and has no row).
CREATE TABLE jackpot_operators (
  jackpot_id text NOT NULL REFERENCES jackpots (jackpot_id),
  operator_id text NOT NULL REFERENCES operators (operator_id),
  opted_in boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (jackpot_id, operator_id)
);
CREATE INDEX jackpot_operators_operator ON jackpot_operators (operator_id) WHERE opted_in;

CREATE TABLE jackpot_pools (
  jackpot_id text NOT NULL,
  level text NOT NULL,
  currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  -- The seed a hit resets the pool to (minor units), the optional cap, and the odds: the stake
  -- expected between two hits (a spin of stake s hits with probability min(1, s / hit_every_minor)).
  seed_minor bigint NOT NULL CHECK (seed_minor >= 0 AND seed_minor <= 1000000000000),
  cap_minor bigint CHECK (cap_minor IS NULL OR (cap_minor > seed_minor AND cap_minor <= 1000000000000)),
  hit_every_minor bigint NOT NULL CHECK (hit_every_minor > 0 AND hit_every_minor <= 1000000000000000),
  -- The pool now, what went past the cap (it seeds the next reset), and the running totals.
  amount_micros bigint NOT NULL CHECK (amount_micros >= 0),
  reserve_micros bigint NOT NULL DEFAULT 0 CHECK (reserve_micros >= 0),
  -- The running totals never overflow (numeric): a pool lives for years of stakes.
  seeded_micros numeric(38, 0) NOT NULL CHECK (seeded_micros >= 0),
  contributions_micros numeric(38, 0) NOT NULL DEFAULT 0 CHECK (contributions_micros >= 0),
  wins_micros numeric(38, 0) NOT NULL DEFAULT 0 CHECK (wins_micros >= 0 AND wins_micros % 1000000 = 0),
  hits integer NOT NULL DEFAULT 0 CHECK (hits >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (jackpot_id, level, currency),
  FOREIGN KEY (jackpot_id, level) REFERENCES jackpot_levels (jackpot_id, level),
  -- Nothing created, nothing lost, to the micro: what went in is in the pool, the reserve or paid.
  CONSTRAINT jackpot_pool_balances
    CHECK (seeded_micros + contributions_micros = amount_micros + reserve_micros + wins_micros),
  CHECK (cap_minor IS NULL OR amount_micros <= cap_minor * 1000000)
);

-- Down Migration
DROP TABLE jackpot_pools;
DROP TABLE jackpot_operators;
DROP TABLE jackpot_levels;
DROP TABLE jackpot_titles;
DROP TABLE jackpots;
