-- Up Migration
-- Issue 38 points 1 and 2 (docs/reports-and-invoices.md): the daily figures and GGR/GGY reports.
-- Additive only: nothing the previous release reads or writes changes.
--
-- The figures are computed from the rounds and the journal on every read (one snapshot), so they
-- are exact and always current by construction: nothing is kept beside the journal that could
-- fall behind it. What they need here is only the operator's reporting time zone: its days start
-- at local midnight there (UTC unless configured, `PUT /api/admin/v1/operators/{id}/reporting-time-zone`).
ALTER TABLE operators
  ADD COLUMN reporting_time_zone text NOT NULL DEFAULT 'UTC'
    CHECK (reporting_time_zone ~ '^[A-Za-z][A-Za-z0-9_+/-]{0,63}$');

-- A zone PostgreSQL does not know would make every report of the operator fail: refused when
-- written, whoever writes it (the API checks it first and answers 422).
CREATE FUNCTION operators_reporting_time_zone_known() RETURNS trigger AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = NEW.reporting_time_zone) THEN
    RAISE EXCEPTION 'unknown time zone %', NEW.reporting_time_zone USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER operators_reporting_time_zone_known
  BEFORE INSERT OR UPDATE OF reporting_time_zone ON operators
  FOR EACH ROW WHEN (NEW.reporting_time_zone <> 'UTC')
  EXECUTE FUNCTION operators_reporting_time_zone_known();

-- Down Migration
DROP TRIGGER operators_reporting_time_zone_known ON operators;
DROP FUNCTION operators_reporting_time_zone_known();
ALTER TABLE operators DROP COLUMN reporting_time_zone;
