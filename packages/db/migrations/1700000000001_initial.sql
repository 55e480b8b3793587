-- Up Migration
-- The first schema. Money is bigint minor units everywhere; no float column holds money.

CREATE TABLE operators (
  operator_id        text PRIMARY KEY CHECK (operator_id ~ '^[a-z0-9][a-z0-9_-]{1,63}$'),
  name               text NOT NULL,
  status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  default_currency   char(3) NOT NULL DEFAULT 'USD' CHECK (default_currency ~ '^[A-Z]{3}$'),
  allowed_currencies text[] NOT NULL DEFAULT ARRAY['USD'],
  bet_min_minor      bigint NOT NULL DEFAULT 10 CHECK (bet_min_minor > 0),
  bet_max_minor      bigint NOT NULL DEFAULT 100000 CHECK (bet_max_minor >= bet_min_minor),
  wallet_base_url    text,
  -- The wallet secret is the HMAC key of the callbacks, so it is kept encrypted, never hashed only.
  wallet_secret_enc  text,
  artwork_format     text NOT NULL DEFAULT 'vertical' CHECK (artwork_format IN ('vertical', 'horizontal')),
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  key_id       text PRIMARY KEY,
  kind         text NOT NULL CHECK (kind IN ('operator', 'master', 'admin')),
  operator_id  text REFERENCES operators (operator_id),
  -- Lookup by a keyed hash of the raw key; the raw key itself is kept encrypted because it is
  -- the HMAC key of signed requests.
  key_hash     text NOT NULL UNIQUE,
  key_enc      text NOT NULL,
  label        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz,
  CHECK ((kind = 'operator') = (operator_id IS NOT NULL))
);

CREATE TABLE request_nonces (
  key_id   text NOT NULL,
  nonce    text NOT NULL,
  seen_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key_id, nonce)
);
CREATE INDEX request_nonces_seen_at ON request_nonces (seen_at);

CREATE TABLE provider_switches (
  provider_id text PRIMARY KEY CHECK (provider_id IN ('prov_a', 'prov_b', 'prov_c', 'prov_d')),
  enabled     boolean NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE games (
  symbol                  text PRIMARY KEY,
  slug                    text NOT NULL UNIQUE,
  title                   text NOT NULL,
  provider_id             text NOT NULL CHECK (provider_id IN ('prov_a', 'prov_b', 'prov_c', 'prov_d')),
  provider                text NOT NULL,
  family                  text,
  -- Stored metadata, not a measured payout rate (text keeps the exact published figure).
  rtp                     text,
  integration_mode        text NOT NULL CHECK (integration_mode IN ('operator-wallet', 'demo-only', 'sandbox-only')),
  -- Installed version; the release registry is consulted for exactly this version.
  installed_version       text NOT NULL,
  enabled                 boolean NOT NULL DEFAULT true,
  -- prov_c per-title flag and prov_d crash opt-in; default off.
  operator_wallet_enabled boolean NOT NULL DEFAULT false,
  -- The remaining catalog fields of the spec's Game (features, special_bet_profile, assets, ...).
  metadata                jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE release_registry (
  symbol              text NOT NULL REFERENCES games (symbol),
  registry_version    text NOT NULL,
  status              text NOT NULL CHECK (status IN ('accepted', 'blocked')),
  detail              text NOT NULL DEFAULT '',
  reasons             text[] NOT NULL DEFAULT '{}',
  evidence            text[] NOT NULL DEFAULT '{}',
  deployment_identity text,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (symbol, registry_version)
);

CREATE TABLE operator_games (
  operator_id text NOT NULL REFERENCES operators (operator_id),
  symbol      text NOT NULL REFERENCES games (symbol),
  enabled     boolean NOT NULL DEFAULT true,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (operator_id, symbol)
);

CREATE TABLE game_artwork (
  symbol       text NOT NULL REFERENCES games (symbol),
  format       text NOT NULL CHECK (format IN ('vertical', 'horizontal')),
  content_type text NOT NULL,
  bytes        bytea NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (symbol, format)
);

-- A player identity. prov_a/prov_b/prov_c ids are global (one operator owns an id);
-- prov_d ids are isolated by operator and currency.
CREATE TABLE players (
  player_id          text PRIMARY KEY,
  operator_id        text NOT NULL REFERENCES operators (operator_id),
  external_player_id text NOT NULL CHECK (char_length(external_player_id) BETWEEN 1 AND 64),
  scope              text NOT NULL CHECK (scope IN ('global', 'crash')),
  currency           char(3),
  created_at         timestamptz NOT NULL DEFAULT now(),
  CHECK ((scope = 'crash') = (currency IS NOT NULL))
);
CREATE UNIQUE INDEX players_global_id ON players (external_player_id) WHERE scope = 'global';
CREATE UNIQUE INDEX players_crash_id ON players (operator_id, external_player_id, currency) WHERE scope = 'crash';

CREATE TABLE sessions (
  session_id       text PRIMARY KEY,
  operator_id      text NOT NULL REFERENCES operators (operator_id),
  player_id        text NOT NULL REFERENCES players (player_id),
  symbol           text NOT NULL REFERENCES games (symbol),
  provider_id      text NOT NULL,
  currency         char(3) NOT NULL,
  -- The launch URL is a bearer secret: only its hash is stored.
  token_hash       text UNIQUE,
  device           text,
  lang             text,
  return_url       text,
  coin_minor       bigint,
  status           text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'closed', 'revoked')),
  expires_at       timestamptz,
  grant_expires_at timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_activity_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_operator_player ON sessions (operator_id, player_id);

CREATE TABLE rounds (
  round_id     text PRIMARY KEY,
  operator_id  text NOT NULL REFERENCES operators (operator_id),
  session_id   text NOT NULL REFERENCES sessions (session_id),
  player_id    text NOT NULL REFERENCES players (player_id),
  symbol       text NOT NULL REFERENCES games (symbol),
  provider_id  text NOT NULL,
  currency     char(3) NOT NULL,
  status       text NOT NULL DEFAULT 'open'
               CHECK (status IN ('open', 'settling', 'completed', 'rejected', 'cancelled', 'rolled_back')),
  stuck        boolean NOT NULL DEFAULT false,
  bet_minor    bigint NOT NULL DEFAULT 0 CHECK (bet_minor >= 0),
  win_minor    bigint NOT NULL DEFAULT 0 CHECK (win_minor >= 0),
  -- The settlement intent, fixed before the first wallet call (stake, win, transaction ids).
  intent       jsonb NOT NULL,
  outcome      jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  settled_at   timestamptz
);
CREATE INDEX rounds_operator_created ON rounds (operator_id, created_at, round_id);
CREATE INDEX rounds_session ON rounds (session_id);

-- The wallet transaction journal: append-only in substance. A row is written as pending before
-- its first send with the exact body; the body and its hash never change afterwards.
CREATE TABLE wallet_transactions (
  transaction_id          text PRIMARY KEY,
  operator_id             text NOT NULL REFERENCES operators (operator_id),
  session_id              text NOT NULL,
  round_id                text NOT NULL,
  player_id               text NOT NULL,
  game_symbol             text NOT NULL,
  transaction_type        text NOT NULL CHECK (transaction_type IN ('balance', 'debit', 'credit', 'cancel', 'rollback')),
  amount_minor            bigint NOT NULL CHECK (amount_minor >= 0),
  currency                char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  status                  text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'success', 'failed')),
  original_transaction_id text REFERENCES wallet_transactions (transaction_id),
  request_body            text NOT NULL,
  request_hash            char(64) NOT NULL CHECK (request_hash ~ '^[a-f0-9]{64}$'),
  attempts                integer NOT NULL DEFAULT 0,
  http_status             integer,
  error_code              text,
  last_error              text,
  wallet_balance          text,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  completed_at            timestamptz,
  -- A rollback names what it reverses; a cancel may; debits, credits and balance reads do not.
  CHECK (CASE transaction_type
           WHEN 'rollback' THEN original_transaction_id IS NOT NULL
           WHEN 'cancel' THEN true
           ELSE original_transaction_id IS NULL
         END)
);
CREATE INDEX wallet_transactions_round ON wallet_transactions (round_id);
CREATE INDEX wallet_transactions_operator_created ON wallet_transactions (operator_id, created_at, transaction_id);

CREATE FUNCTION wallet_transactions_immutable() RETURNS trigger AS $$
BEGIN
  IF NEW.request_hash IS DISTINCT FROM OLD.request_hash
     OR NEW.request_body IS DISTINCT FROM OLD.request_body
     OR NEW.transaction_id IS DISTINCT FROM OLD.transaction_id
     OR NEW.amount_minor IS DISTINCT FROM OLD.amount_minor
     OR NEW.transaction_type IS DISTINCT FROM OLD.transaction_type
     OR NEW.currency IS DISTINCT FROM OLD.currency THEN
    RAISE EXCEPTION 'wallet transaction % is immutable: its body, hash, amount, type and currency never change', OLD.transaction_id
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF OLD.status <> 'pending' AND NEW.status IS DISTINCT FROM OLD.status THEN
    RAISE EXCEPTION 'wallet transaction % already reached %', OLD.transaction_id, OLD.status
      USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER wallet_transactions_immutable
  BEFORE UPDATE ON wallet_transactions
  FOR EACH ROW EXECUTE FUNCTION wallet_transactions_immutable();

CREATE FUNCTION wallet_transactions_no_delete() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'the wallet journal is append-only' USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER wallet_transactions_no_delete
  BEFORE DELETE ON wallet_transactions
  FOR EACH ROW EXECUTE FUNCTION wallet_transactions_no_delete();

-- End-to-end probes: a workflow's activity writes here (readiness and the stack's self-test).
CREATE TABLE system_probes (
  probe_id     text PRIMARY KEY,
  requested_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  worker       text
);

INSERT INTO provider_switches (provider_id, enabled) VALUES
  ('prov_a', true), ('prov_b', false), ('prov_c', true), ('prov_d', true);

-- Down Migration
DROP TABLE system_probes;
DROP TRIGGER wallet_transactions_no_delete ON wallet_transactions;
DROP TRIGGER wallet_transactions_immutable ON wallet_transactions;
DROP FUNCTION wallet_transactions_no_delete();
DROP FUNCTION wallet_transactions_immutable();
DROP TABLE wallet_transactions;
DROP TABLE rounds;
DROP TABLE sessions;
DROP TABLE players;
DROP TABLE game_artwork;
DROP TABLE operator_games;
DROP TABLE release_registry;
DROP TABLE games;
DROP TABLE provider_switches;
DROP TABLE request_nonces;
DROP TABLE api_keys;
DROP TABLE operators;
