-- Up Migration
-- The stages of a multi-step round (prov_c native titles, prov_d crash): every player action and
-- every engine step, in order, with its inputs, its outcome and the running multiplier. Appended
-- only: the native history and the audit read them as they were written.
CREATE TABLE round_stages (
  round_id   text NOT NULL REFERENCES rounds (round_id),
  seq        integer NOT NULL CHECK (seq >= 0),
  -- What happened: bet, reveal, guess, roll, cashout, crash, abandon, cancel ...
  action     text NOT NULL CHECK (char_length(action) BETWEEN 1 AND 32),
  inputs     jsonb NOT NULL DEFAULT '{}'::jsonb,
  outcome    jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The running multiplier after this stage (exact decimal), null where it has none.
  multiplier numeric(24, 8),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (round_id, seq)
);

CREATE FUNCTION round_stages_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'round_stages is append-only (% refused)', TG_OP;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER round_stages_append_only
  BEFORE UPDATE OR DELETE ON round_stages
  FOR EACH ROW EXECUTE FUNCTION round_stages_append_only();

-- Down Migration
DROP TRIGGER round_stages_append_only ON round_stages;
DROP FUNCTION round_stages_append_only();
DROP TABLE round_stages;
