-- Up Migration
-- Issue 23 point 6: POST /api/runtime/crash/demo is open, so its sessions are limited per client
-- address (the creations of the last minutes) and in total (the live ones); the address a demo
-- session was created from is kept with it (deleted with the row once expired).
ALTER TABLE crash_demo_sessions ADD COLUMN client_address text;
CREATE INDEX crash_demo_sessions_client ON crash_demo_sessions (client_address, created_at);

-- Down Migration
DROP INDEX crash_demo_sessions_client;
ALTER TABLE crash_demo_sessions DROP COLUMN client_address;
