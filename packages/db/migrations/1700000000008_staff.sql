-- Up Migration
-- Staff of the operator staff portal: accounts with scrypt password hashes, a role per operator
-- (viewer, admin) or a provider-wide role (provider staff see every operator), sessions stored
-- only as token hashes, login rate-limit counters shared by every API process, and an
-- append-only audit log of what staff did (who, when, what, result).

CREATE TABLE staff_users (
  staff_id       text PRIMARY KEY,
  -- Lower-case login name.
  username       text NOT NULL UNIQUE CHECK (username ~ '^[a-z0-9][a-z0-9._@-]{1,63}$'),
  display_name   text NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 100),
  -- scrypt$<log2 N>$<r>$<p>$<salt base64url>$<hash base64url>; never the password itself.
  password_hash  text NOT NULL CHECK (password_hash LIKE 'scrypt$%'),
  -- Provider staff: this role on every operator. Operator staff: NULL, roles in staff_roles.
  provider_role  text CHECK (provider_role IN ('viewer', 'admin')),
  disabled       boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  password_changed_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE staff_roles (
  staff_id    text NOT NULL REFERENCES staff_users (staff_id) ON DELETE CASCADE,
  operator_id text NOT NULL REFERENCES operators (operator_id),
  role        text NOT NULL CHECK (role IN ('viewer', 'admin')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (staff_id, operator_id)
);

-- A session is found by the SHA-256 of its bearer token; the token itself is never stored.
CREATE TABLE staff_sessions (
  token_hash   char(64) PRIMARY KEY CHECK (token_hash ~ '^[a-f0-9]{64}$'),
  staff_id     text NOT NULL REFERENCES staff_users (staff_id) ON DELETE CASCADE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  revoked_at   timestamptz,
  client_ip    text,
  user_agent   text
);
CREATE INDEX staff_sessions_staff ON staff_sessions (staff_id);
CREATE INDEX staff_sessions_expires ON staff_sessions (expires_at);

-- Login attempts per bucket (`user:<name>`, `ip:<address>`) in a fixed window; one upsert per
-- attempt, so the limit holds across API processes.
CREATE TABLE staff_login_limits (
  bucket       text PRIMARY KEY,
  window_start timestamptz NOT NULL,
  attempts     integer NOT NULL
);

CREATE TABLE staff_audit_log (
  audit_id    bigserial PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  staff_id    text,
  username    text NOT NULL,
  operator_id text,
  -- login, logout, round.cancel, wallet.diagnostics ...
  action      text NOT NULL,
  -- What the action was about (a round id, a wallet URL ...).
  target      text,
  -- accepted, cancelled, refused, passed, failed, ok, denied ...
  result      text NOT NULL,
  detail      jsonb NOT NULL DEFAULT '{}'::jsonb,
  client_ip   text
);
CREATE INDEX staff_audit_log_operator ON staff_audit_log (operator_id, at DESC, audit_id DESC);

CREATE FUNCTION staff_audit_log_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'staff_audit_log is append-only (% refused)', TG_OP;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER staff_audit_log_append_only
  BEFORE UPDATE OR DELETE ON staff_audit_log
  FOR EACH ROW EXECUTE FUNCTION staff_audit_log_append_only();

-- The portal's session search pages newest first within one operator.
CREATE INDEX sessions_operator_created ON sessions (operator_id, created_at, session_id);

-- Down Migration
DROP INDEX sessions_operator_created;
DROP TRIGGER staff_audit_log_append_only ON staff_audit_log;
DROP FUNCTION staff_audit_log_append_only();
DROP TABLE staff_audit_log;
DROP TABLE staff_login_limits;
DROP TABLE staff_sessions;
DROP TABLE staff_roles;
DROP TABLE staff_users;
