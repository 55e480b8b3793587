-- Up Migration
-- Issue 38 point 3 (invoices at frozen rates) and issue 39 point 3 (stake ladders by rate):
-- exchange rates the provider's admins load (`POST /api/admin/v1/exchange-rates`,
-- docs/reports-and-invoices.md "Exchange rates"). Additive only: a new table, nothing the previous
-- release reads or writes changes.
--
-- One row is one published rate: on `rate_date`, one unit (the major unit, as ECB and every
-- published table quote it) of `base_currency` was worth `rate` units of `quote_currency`,
-- according to `source` (`ECB`, `coingecko`, `manual`, ...). EUR/USD 1.0823 from ECB on 2026-01-30
-- is (EUR, USD, 2026-01-30, ECB, 1.0823).
--
-- The rate is an exact decimal (numeric, never a float): at most 20 integer digits and 18 fraction
-- digits, greater than zero; the API refuses anything else with 422 before it gets here, and
-- these checks hold it for anything else that writes. Kept as given: no typmod, so 1.0823 stays
-- 1.0823 (the API strips trailing zeros before it writes, so one value has one text).
--
-- A loaded rate never changes: invoices copy the rate, its date and its source into their lines
-- (and issue 39's ladders name the rate they were derived at), so a rate is a fact once it is
-- used. A correction is a rate under another source name (or another date). Loading the same row
-- again with the same value is a no-op; with another value it is refused (409).
--
-- The primary key serves every read: one pair's rates by date (a range), and "the rate of a pair
-- on or before a date" (a backward scan of the pair's range, one row).
CREATE TABLE exchange_rates (
  base_currency  char(3) NOT NULL CHECK (base_currency ~ '^[A-Z]{3}$'),
  quote_currency char(3) NOT NULL CHECK (quote_currency ~ '^[A-Z]{3}$'),
  rate_date      date NOT NULL,
  source         text COLLATE "C" NOT NULL CHECK (source ~ '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$'),
  rate           numeric NOT NULL CHECK (rate > 0 AND rate < 1e20 AND scale(rate) <= 18),
  loaded_at      timestamptz NOT NULL DEFAULT now(),
  -- The admin key that loaded it (its id, never the key).
  loaded_by      text,
  CHECK (base_currency <> quote_currency),
  PRIMARY KEY (base_currency, quote_currency, rate_date, source)
);
-- The admin listing by date across pairs (newest first). Sources compare byte by byte (COLLATE
-- "C"), so an order on them is the same on every server.
CREATE INDEX exchange_rates_date ON exchange_rates (rate_date, base_currency, quote_currency, source);

-- Down Migration
DROP TABLE exchange_rates;
