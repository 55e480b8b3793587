-- Up Migration
-- Issue 27: round_reconciliation is recounted once per round per transaction, at commit, instead
-- of once per changed row as each statement ends. Same rows and same rule (migration 11's
-- definitions). What changes is the cost: a spin's three transactions each changed two rows of its
-- round (the round and its debit; the debit's outcome and the credit's pending row; the credit's
-- outcome and the round's status), and each change recounted the round from the journal, or
-- rewrote its history side: five recounts and two more writes per spin. Now each transaction
-- recounts both sides once, and writes the row once.
--
-- How: the triggers are constraint triggers, deferred to commit. The first one of a transaction to
-- fire for a round locks the round's row, reads the round and, by a later statement (a fresh
-- snapshot under READ COMMITTED: whatever a concurrent writer of the round committed before the
-- lock was granted), its journal rows, and writes both sides. Every later one of the same
-- transaction finds the row written by this transaction (its xmin), and does nothing: at commit
-- every statement of the transaction has run, so that recount saw them all.
--
-- Nothing here runs SET CONSTRAINTS ... IMMEDIATE. A transaction that did would recount at that
-- point, and a change after it in the same transaction would then find the row already written and
-- be skipped: do not, or recount with round_reconciliation_refresh.

CREATE FUNCTION round_reconciliation_recount(id text) RETURNS void AS $$
DECLARE
  cur record;
  had boolean;
  r record;
  s record;
BEGIN
  SELECT xmin = pg_current_xact_id()::xid AS written INTO cur
    FROM round_reconciliation WHERE round_id = id FOR UPDATE;
  had := FOUND;  -- a new round's row is inserted below
  IF had AND cur.written THEN
    RETURN;
  END IF;
  SELECT operator_id, created_at, currency,
         round_game_delta(status, bet_minor, win_minor + jackpot_win_minor) AS game
    INTO r FROM rounds WHERE round_id = id;
  IF NOT FOUND THEN
    -- Journal rows ahead of their round: counted when the round arrives.
    RETURN;
  END IF;
  -- As migration 17: the round's rows by wallet_transactions_round alone (OFFSET 0), and a
  -- reversal's original read only for a successful reversal in the round's currency.
  SELECT coalesce(sum(CASE WHEN t.currency <> r.currency OR t.status <> 'success' THEN 0
                           WHEN t.transaction_type = 'debit' THEN -t.amount_minor
                           WHEN t.transaction_type = 'credit' THEN t.amount_minor
                           WHEN (SELECT o.status FROM wallet_transactions o
                                  WHERE o.transaction_id = t.original_transaction_id) = 'success' THEN t.amount_minor
                           ELSE 0 END), 0)::bigint AS wallet,
         count(*)::int AS n,
         count(*) FILTER (WHERE t.status = 'pending')::int AS pending,
         count(*) FILTER (WHERE t.currency <> r.currency)::int AS foreign_n
    INTO s
    FROM (SELECT * FROM wallet_transactions WHERE round_id = id OFFSET 0) t
   WHERE t.operator_id = r.operator_id AND t.transaction_type <> 'balance';
  IF had THEN
    UPDATE round_reconciliation
       SET operator_id = r.operator_id, created_at = r.created_at, currency = r.currency, game_delta_minor = r.game,
           wallet_delta_minor = s.wallet, journal_rows = s.n, pending_rows = s.pending, foreign_rows = s.foreign_n
     WHERE round_id = id
       AND (operator_id, created_at, currency, game_delta_minor, wallet_delta_minor, journal_rows, pending_rows,
            foreign_rows)
           IS DISTINCT FROM (r.operator_id, r.created_at, r.currency, r.game, s.wallet, s.n, s.pending, s.foreign_n);
  ELSE
    INSERT INTO round_reconciliation (round_id, operator_id, created_at, currency, game_delta_minor,
                                      wallet_delta_minor, journal_rows, pending_rows, foreign_rows)
    VALUES (id, r.operator_id, r.created_at, r.currency, r.game, s.wallet, s.n, s.pending, s.foreign_n)
    ON CONFLICT (round_id) DO NOTHING;
    IF NOT FOUND THEN
      -- Another transaction wrote the row first (a round left without one by a load with triggers
      -- off, written by two at once): count again behind its lock, seeing what it committed.
      PERFORM round_reconciliation_recount(id);
    END IF;
  END IF;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION round_reconciliation_round_changed() RETURNS trigger AS $$
BEGIN
  PERFORM round_reconciliation_recount(NEW.round_id);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION round_reconciliation_journal_changed() RETURNS trigger AS $$
BEGIN
  PERFORM round_reconciliation_recount(NEW.round_id);
  IF TG_OP = 'UPDATE' AND OLD.round_id IS DISTINCT FROM NEW.round_id THEN
    PERFORM round_reconciliation_recount(OLD.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER wallet_transactions_reconciliation_update ON wallet_transactions;
DROP TRIGGER wallet_transactions_reconciliation_insert ON wallet_transactions;
DROP TRIGGER rounds_reconciliation_update ON rounds;
DROP TRIGGER rounds_reconciliation_insert ON rounds;
DROP FUNCTION round_reconciliation_journal_row();
DROP FUNCTION round_reconciliation_round_updated();
DROP FUNCTION round_reconciliation_round_inserted();
DROP FUNCTION round_reconciliation_refresh_one(text);

-- The same events as migration 17's triggers, and a round's jackpot wins too (part of its
-- history side since migration 20, which only ever set them with the round).
CREATE CONSTRAINT TRIGGER rounds_reconciliation_insert
  AFTER INSERT ON rounds
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION round_reconciliation_round_changed();
CREATE CONSTRAINT TRIGGER rounds_reconciliation_update
  AFTER UPDATE OF operator_id, created_at, currency, status, bet_minor, win_minor, jackpot_win_minor ON rounds
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW
  WHEN ((OLD.operator_id, OLD.created_at, OLD.currency, OLD.status, OLD.bet_minor, OLD.win_minor,
         OLD.jackpot_win_minor)
        IS DISTINCT FROM (NEW.operator_id, NEW.created_at, NEW.currency, NEW.status, NEW.bet_minor,
                          NEW.win_minor, NEW.jackpot_win_minor))
  EXECUTE FUNCTION round_reconciliation_round_changed();
CREATE CONSTRAINT TRIGGER wallet_transactions_reconciliation_insert
  AFTER INSERT ON wallet_transactions
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.transaction_type <> 'balance')
  EXECUTE FUNCTION round_reconciliation_journal_changed();
CREATE CONSTRAINT TRIGGER wallet_transactions_reconciliation_update
  AFTER UPDATE OF status, round_id, operator_id ON wallet_transactions
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW
  WHEN (NEW.transaction_type <> 'balance'
        AND (OLD.status, OLD.round_id, OLD.operator_id) IS DISTINCT FROM (NEW.status, NEW.round_id, NEW.operator_id))
  EXECUTE FUNCTION round_reconciliation_journal_changed();

-- Down Migration
DROP TRIGGER wallet_transactions_reconciliation_update ON wallet_transactions;
DROP TRIGGER wallet_transactions_reconciliation_insert ON wallet_transactions;
DROP TRIGGER rounds_reconciliation_update ON rounds;
DROP TRIGGER rounds_reconciliation_insert ON rounds;
DROP FUNCTION round_reconciliation_journal_changed();
DROP FUNCTION round_reconciliation_round_changed();
DROP FUNCTION round_reconciliation_recount(text);

-- Migration 17's functions as migration 20 left them, and its triggers.
CREATE FUNCTION round_reconciliation_refresh_one(id text) RETURNS void AS $$
DECLARE
  k record;
  s record;
BEGIN
  SELECT operator_id, currency INTO k FROM round_reconciliation WHERE round_id = id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT coalesce(sum(CASE WHEN t.currency <> k.currency OR t.status <> 'success' THEN 0
                           WHEN t.transaction_type = 'debit' THEN -t.amount_minor
                           WHEN t.transaction_type = 'credit' THEN t.amount_minor
                           WHEN (SELECT o.status FROM wallet_transactions o
                                  WHERE o.transaction_id = t.original_transaction_id) = 'success' THEN t.amount_minor
                           ELSE 0 END), 0)::bigint AS wallet,
         count(*)::int AS n,
         count(*) FILTER (WHERE t.status = 'pending')::int AS pending,
         count(*) FILTER (WHERE t.currency <> k.currency)::int AS foreign_n
    INTO s
    FROM (SELECT * FROM wallet_transactions WHERE round_id = id OFFSET 0) t
   WHERE t.operator_id = k.operator_id AND t.transaction_type <> 'balance';
  UPDATE round_reconciliation
     SET wallet_delta_minor = s.wallet, journal_rows = s.n, pending_rows = s.pending, foreign_rows = s.foreign_n
   WHERE round_id = id
     AND (wallet_delta_minor, journal_rows, pending_rows, foreign_rows)
         IS DISTINCT FROM (s.wallet, s.n, s.pending, s.foreign_n);
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION round_reconciliation_round_inserted() RETURNS trigger AS $$
BEGIN
  INSERT INTO round_reconciliation (round_id, operator_id, created_at, currency, game_delta_minor)
  VALUES (NEW.round_id, NEW.operator_id, NEW.created_at, NEW.currency,
          round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor + NEW.jackpot_win_minor));
  IF EXISTS (SELECT 1 FROM wallet_transactions WHERE round_id = NEW.round_id) THEN
    PERFORM round_reconciliation_refresh_one(NEW.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION round_reconciliation_round_updated() RETURNS trigger AS $$
BEGIN
  UPDATE round_reconciliation
     SET operator_id = NEW.operator_id, created_at = NEW.created_at, currency = NEW.currency,
         game_delta_minor = round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor + NEW.jackpot_win_minor)
   WHERE round_id = NEW.round_id
     AND (operator_id, created_at, currency, game_delta_minor)
         IS DISTINCT FROM (NEW.operator_id, NEW.created_at, NEW.currency,
                           round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor + NEW.jackpot_win_minor));
  IF (NEW.operator_id, NEW.currency) IS DISTINCT FROM (OLD.operator_id, OLD.currency) THEN
    PERFORM round_reconciliation_refresh_one(NEW.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION round_reconciliation_journal_row() RETURNS trigger AS $$
BEGIN
  PERFORM round_reconciliation_refresh_one(NEW.round_id);
  IF TG_OP = 'UPDATE' AND OLD.round_id IS DISTINCT FROM NEW.round_id THEN
    PERFORM round_reconciliation_refresh_one(OLD.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER rounds_reconciliation_insert
  AFTER INSERT ON rounds
  FOR EACH ROW EXECUTE FUNCTION round_reconciliation_round_inserted();
CREATE TRIGGER rounds_reconciliation_update
  AFTER UPDATE OF operator_id, created_at, currency, status, bet_minor, win_minor ON rounds
  FOR EACH ROW
  WHEN ((OLD.operator_id, OLD.created_at, OLD.currency, OLD.status, OLD.bet_minor, OLD.win_minor)
        IS DISTINCT FROM (NEW.operator_id, NEW.created_at, NEW.currency, NEW.status, NEW.bet_minor, NEW.win_minor))
  EXECUTE FUNCTION round_reconciliation_round_updated();
CREATE TRIGGER wallet_transactions_reconciliation_insert
  AFTER INSERT ON wallet_transactions
  FOR EACH ROW WHEN (NEW.transaction_type <> 'balance')
  EXECUTE FUNCTION round_reconciliation_journal_row();
CREATE TRIGGER wallet_transactions_reconciliation_update
  AFTER UPDATE OF status, round_id, operator_id ON wallet_transactions
  FOR EACH ROW
  WHEN (NEW.transaction_type <> 'balance'
        AND (OLD.status, OLD.round_id, OLD.operator_id) IS DISTINCT FROM (NEW.status, NEW.round_id, NEW.operator_id))
  EXECUTE FUNCTION round_reconciliation_journal_row();
