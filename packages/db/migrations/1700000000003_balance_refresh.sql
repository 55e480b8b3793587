-- Up Migration
-- Balance refresh signalling (POST /api/provider/v1/player-balance-refresh): one row per open
-- game-page event stream (GET /api/runtime/events), held by one API process (`api_instance`).
-- The holding process refreshes last_seen_at of its rows every 15 s (one statement per tick) and
-- deletes a row when its stream closes; rows of a process that died stop counting once last_seen_at
-- is older than 45 s, and are purged after 5 minutes by any live process.
-- Presence is ephemeral, so the table is UNLOGGED (no WAL): after a database crash it comes back
-- empty and every live process re-inserts its rows on its next tick.
CREATE UNLOGGED TABLE subscriber_presence (
  subscriber_id text PRIMARY KEY,
  session_id    text NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
  api_instance  text NOT NULL,
  connected_at  timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriber_presence_session ON subscriber_presence (session_id, last_seen_at);
CREATE INDEX subscriber_presence_instance ON subscriber_presence (api_instance);
CREATE INDEX subscriber_presence_last_seen ON subscriber_presence (last_seen_at);

-- Down Migration
DROP TABLE subscriber_presence;
