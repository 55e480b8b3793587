-- Up Migration
-- Issue 39 point 2 (docs/currencies.md "Display units"): the unit a session's pages show amounts
-- in (`display_unit` of the launch: `mBTC`, `uBTC`, `sat`, `gwei`, ...), one of the session
-- currency's units in the registry (packages/money); null: the currency's first unit. The launch
-- checks it against the registry (422) before it gets here; the check below bounds what anything
-- else may write. Recorded with the session and written again by every launch: a relaunch in
-- another unit shows that unit from then on (a new launch URL and page). Amounts stay minor units
-- of the session currency everywhere they are stored. Additive: a nullable column the previous
-- release neither reads nor writes.
ALTER TABLE sessions
  ADD COLUMN display_unit text CHECK (display_unit IS NULL OR display_unit ~ '^[A-Za-z]{1,8}$');

-- Down Migration
ALTER TABLE sessions DROP COLUMN display_unit;
