-- Up Migration
-- A slot session (prov_a, prov_b) has at most one unfinished spin: the spin's one statement
-- inserts its round with ON CONFLICT against this index, so two spins racing on one session get
-- one round between them (the second is answered 409, still being settled). It covers the rounds
-- the spin route records (their intent is journal-ahead); rounds written another way (tests, bulk
-- loads, the settlement benchmark's client-started rounds) are not constrained by it. The spin
-- still refuses while any round of the session is open, whoever recorded it.
CREATE UNIQUE INDEX rounds_one_open_spin ON rounds (session_id)
  WHERE status = 'open' AND (intent ->> 'journalAhead') = 'true';

-- Down Migration
DROP INDEX rounds_one_open_spin;
