-- Up Migration
-- The sandbox operator wallet, in its own schema `wallet`. Money is bigint minor units; there is
-- no float column holding money anywhere.

CREATE SCHEMA IF NOT EXISTS wallet;

-- The HMAC key of each operator's callbacks. A sandbox keeps it in clear text; a production wallet
-- keeps it encrypted at rest (it must be recoverable: it is an HMAC key, not a password).
CREATE TABLE wallet.operator_secrets (
  operator_id text PRIMARY KEY CHECK (length(operator_id) BETWEEN 1 AND 128),
  secret      text NOT NULL CHECK (length(secret) >= 16),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Single-use callback nonces. A nonce only needs remembering while its timestamp could still pass
-- the skew check (twice the skew window); older rows are purged.
CREATE TABLE wallet.seen_nonces (
  operator_id text NOT NULL,
  nonce       text NOT NULL,
  seen_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (operator_id, nonce)
);
CREATE INDEX seen_nonces_seen_at ON wallet.seen_nonces (seen_at);

-- Accounts of the double-entry ledger. A player account is keyed by (operator, player, currency)
-- and keeps a balance column that only the ledger trigger below changes, so it always equals the
-- sum of its entries. The operator's house account (counter-party of wagers and wins) and cash
-- account (counter-party of deposits and opening balances) are contra accounts: their balance is
-- the ledger sum (the mirror image of what the players hold) and is not kept in a column, so no
-- hot row is locked by every transaction.
CREATE TABLE wallet.accounts (
  account_id    bigserial PRIMARY KEY,
  operator_id   text NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('player', 'house', 'cash')),
  player_id     text CHECK (player_id IS NULL OR length(player_id) BETWEEN 1 AND 64),
  currency      char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  balance_minor bigint CHECK (balance_minor >= 0),
  opening_minor bigint NOT NULL DEFAULT 0 CHECK (opening_minor >= 0),
  created_at    timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'player') = (player_id IS NOT NULL)),
  CHECK ((kind = 'player') = (balance_minor IS NOT NULL))
);
CREATE UNIQUE INDEX accounts_player ON wallet.accounts (operator_id, player_id, currency) WHERE kind = 'player';
CREATE UNIQUE INDEX accounts_system ON wallet.accounts (operator_id, kind, currency) WHERE kind <> 'player';

-- Append-only journal entries. Every transaction_ref (per operator) sums to zero and uses one
-- currency, checked at commit by a deferred constraint trigger.
CREATE TABLE wallet.ledger_entries (
  entry_id        bigserial PRIMARY KEY,
  operator_id     text NOT NULL,
  transaction_ref text NOT NULL,
  account_id      bigint NOT NULL REFERENCES wallet.accounts (account_id),
  amount_minor    bigint NOT NULL CHECK (amount_minor <> 0),
  currency        char(3) NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_ref ON wallet.ledger_entries (operator_id, transaction_ref);
CREATE INDEX ledger_entries_account ON wallet.ledger_entries (account_id);

-- Before each entry: the account belongs to the same operator and currency; a player account's
-- balance moves by the entry (its CHECK then refuses a negative balance).
CREATE FUNCTION wallet.ledger_entry_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  acct wallet.accounts%ROWTYPE;
BEGIN
  SELECT * INTO acct FROM wallet.accounts WHERE account_id = NEW.account_id;
  IF acct.operator_id <> NEW.operator_id OR acct.currency <> NEW.currency THEN
    RAISE EXCEPTION 'ledger entry % does not match account % (operator or currency)', NEW.transaction_ref, NEW.account_id;
  END IF;
  IF acct.kind = 'player' THEN
    UPDATE wallet.accounts SET balance_minor = balance_minor + NEW.amount_minor WHERE account_id = NEW.account_id;
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER ledger_entries_apply BEFORE INSERT ON wallet.ledger_entries
  FOR EACH ROW EXECUTE FUNCTION wallet.ledger_entry_apply();

-- At commit: each transaction's entries sum to zero, in one currency.
CREATE FUNCTION wallet.ledger_ref_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  total bigint;
  currencies int;
BEGIN
  SELECT coalesce(sum(amount_minor), 0), count(DISTINCT currency) INTO total, currencies
    FROM wallet.ledger_entries WHERE operator_id = NEW.operator_id AND transaction_ref = NEW.transaction_ref;
  IF total <> 0 OR currencies > 1 THEN
    RAISE EXCEPTION 'ledger transaction % of % is unbalanced (sum %, % currencies)',
      NEW.transaction_ref, NEW.operator_id, total, currencies;
  END IF;
  RETURN NULL;
END;
$$;
CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON wallet.ledger_entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION wallet.ledger_ref_balanced();

CREATE FUNCTION wallet.append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON wallet.ledger_entries
  FOR EACH ROW EXECUTE FUNCTION wallet.append_only();

-- The idempotency record of every debit, credit, cancel and rollback decided, success or
-- rejection: the material fields, the exact response (status and body bytes), the effect on the
-- player's balance, and which later rollback or cancel reversed it.
CREATE TABLE wallet.transactions (
  operator_id             text NOT NULL,
  transaction_id          text NOT NULL,
  transaction_type        text NOT NULL CHECK (transaction_type IN ('debit', 'credit', 'cancel', 'rollback')),
  player_id               text NOT NULL,
  currency                char(3) NOT NULL,
  amount_minor            bigint NOT NULL CHECK (amount_minor >= 0),
  round_id                text NOT NULL,
  original_transaction_id text,
  request_hash            text NOT NULL CHECK (request_hash ~ '^[a-f0-9]{64}$'),
  status                  text NOT NULL CHECK (status IN ('success', 'rejected')),
  error_code              text,
  -- Signed change of the player's balance (debit negative, credit positive, no-op zero).
  player_delta_minor      bigint NOT NULL DEFAULT 0,
  balance_after_minor     bigint,
  response_status         integer NOT NULL,
  response_body           text NOT NULL,
  reversed_by             text,
  created_at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (operator_id, transaction_id),
  CHECK ((status = 'success') = (error_code IS NULL)),
  CHECK (status = 'success' OR player_delta_minor = 0),
  CHECK (reversed_by IS NULL OR (status = 'success' AND transaction_type IN ('debit', 'credit')))
);
CREATE INDEX transactions_round ON wallet.transactions (operator_id, round_id, player_id, currency);

-- Tombstones. A rollback whose original transaction is unknown records the original id so that a
-- late-arriving debit or credit with it is refused (`transaction_reversed`); a cancelled round is
-- recorded so that a later debit or credit in it is refused (`round_cancelled`).
CREATE TABLE wallet.transaction_tombstones (
  operator_id     text NOT NULL,
  transaction_id  text NOT NULL,
  reversed_by     text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (operator_id, transaction_id)
);

CREATE TABLE wallet.round_tombstones (
  operator_id    text NOT NULL,
  round_id       text NOT NULL,
  cancelled_by   text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (operator_id, round_id)
);

-- Staff deposits, idempotent by (operator, reference).
CREATE TABLE wallet.deposits (
  operator_id  text NOT NULL,
  reference    text NOT NULL CHECK (length(reference) BETWEEN 1 AND 128),
  player_id    text NOT NULL,
  currency     char(3) NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (operator_id, reference)
);

-- Every callback whose signature verified, as received and as answered (append-only): evidence for
-- invariant tests (how many debits per round, nothing applied twice).
CREATE TABLE wallet.requests (
  request_seq      bigserial PRIMARY KEY,
  operator_id      text NOT NULL,
  path_operation   text NOT NULL,
  transaction_id   text,
  transaction_type text,
  round_id         text,
  player_id        text,
  currency         text,
  amount_minor     bigint,
  original_transaction_id text,
  nonce            text NOT NULL,
  request_hash     text NOT NULL,
  -- applied: decided now (success or rejection, stored); replayed: the stored answer was returned;
  -- conflict: same transaction_id, different material fields; invalid: failed validation;
  -- balance: a balance read; error: an unexpected failure (nothing committed).
  outcome          text NOT NULL CHECK (outcome IN ('applied', 'replayed', 'conflict', 'invalid', 'balance', 'error')),
  response_status  integer NOT NULL,
  error_code       text,
  received_at      timestamptz NOT NULL,
  answered_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX requests_transaction ON wallet.requests (operator_id, transaction_id);
CREATE INDEX requests_round ON wallet.requests (operator_id, round_id);
CREATE TRIGGER requests_append_only BEFORE UPDATE OR DELETE ON wallet.requests
  FOR EACH ROW EXECUTE FUNCTION wallet.append_only();

-- Down Migration
DROP TABLE IF EXISTS wallet.requests;
DROP TABLE IF EXISTS wallet.deposits;
DROP TABLE IF EXISTS wallet.round_tombstones;
DROP TABLE IF EXISTS wallet.transaction_tombstones;
DROP TABLE IF EXISTS wallet.transactions;
DROP TABLE IF EXISTS wallet.ledger_entries;
DROP TABLE IF EXISTS wallet.accounts;
DROP TABLE IF EXISTS wallet.seen_nonces;
DROP TABLE IF EXISTS wallet.operator_secrets;
DROP FUNCTION IF EXISTS wallet.append_only();
DROP FUNCTION IF EXISTS wallet.ledger_ref_balanced();
DROP FUNCTION IF EXISTS wallet.ledger_entry_apply();
