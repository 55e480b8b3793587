-- Up Migration
-- A slot session (prov_a, prov_b) has at most one unfinished round: the spin's one statement
-- inserts its round with ON CONFLICT against this index, so two spins racing on one session get
-- one round between them (the second is answered 409, still being settled). The index also serves
-- the spin's lookup of the session's open round.
CREATE UNIQUE INDEX rounds_one_open_slot_round ON rounds (session_id)
  WHERE status = 'open' AND provider_id IN ('prov_a', 'prov_b');

-- Down Migration
DROP INDEX rounds_one_open_slot_round;
