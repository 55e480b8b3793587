-- Up Migration
-- prov_c native titles. The launch URL's `grant` (sessions.token_hash, valid until
-- sessions.grant_expires_at: 5 minutes) is exchanged by the game page for a play token valid until
-- the session's expires_at (30 minutes). One play token per session: a new exchange replaces it.
-- A play token only works while the launch it came from is the session's current one
-- (grant_hash = sessions.token_hash): a relaunch (new grant) ends it. Only hashes are stored.
CREATE TABLE native_play_tokens (
  session_id text PRIMARY KEY REFERENCES sessions (session_id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[a-f0-9]{64}$'),
  grant_hash text NOT NULL CHECK (grant_hash ~ '^[a-f0-9]{64}$'),
  issued_at  timestamptz NOT NULL DEFAULT now()
);

-- The unfinished round of a player and title (resume after a relaunch; one round at a time).
CREATE INDEX rounds_open_player_symbol ON rounds (player_id, symbol) WHERE status = 'open';

-- Down Migration
DROP INDEX rounds_open_player_symbol;
DROP TABLE native_play_tokens;
