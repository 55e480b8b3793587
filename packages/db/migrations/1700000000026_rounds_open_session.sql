-- Up Migration
-- Issue 27: a spin writes fewer index entries. rounds_session indexed every round by its session
-- (an entry on insert, and another on each non-HOT update of the round); every query that reads a
-- session's rounds now names the operator too and reads rounds_operator_session, except the
-- spin's own check for an open round of its session, which reads this partial index: an entry
-- only while a round is open (none is written when the round settles), and one lookup however
-- many rounds the session has played (rounds_session scanned them all to find the open one).
CREATE INDEX rounds_open_session ON rounds (session_id) WHERE status = 'open';
DROP INDEX rounds_session;

-- Down Migration
CREATE INDEX rounds_session ON rounds (session_id);
DROP INDEX rounds_open_session;
