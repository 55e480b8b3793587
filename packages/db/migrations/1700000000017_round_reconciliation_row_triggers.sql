-- Up Migration
-- round_reconciliation (migration 1700000000011) kept by row triggers instead of statement
-- triggers (issue 16: the spin's CPU). Same rows, same rule, same locking: a changed round's row is
-- locked, then recounted from the journal by a later statement (which sees whatever a concurrent
-- writer of that round committed before the lock was granted). What changes is the cost: a
-- statement trigger with transition tables built arrays of round ids and ran the many-round
-- refresh five times per spin (about a millisecond each); a row trigger recounts one round by its
-- primary key, and only when a counted column changed (the WHEN clauses), so a journal update of
-- attempts or error notes, a balance read, or a round's stuck flag runs nothing at all.

-- Recounts the wallet side of one round (nothing when it has no row yet).
CREATE FUNCTION round_reconciliation_refresh_one(id text) RETURNS void AS $$
DECLARE
  k record;
  s record;
BEGIN
  SELECT operator_id, currency INTO k FROM round_reconciliation WHERE round_id = id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  -- The round's rows are found by wallet_transactions_round alone (OFFSET 0 keeps the planner from
  -- pulling the operator's condition into the scan: a generic plan made before statistics exist
  -- ANDs the operator's index in, which reads every journal row of the operator). A reversal's
  -- original is read only for a successful reversal in the round's currency (a scalar subquery in
  -- its CASE branch, by primary key), not joined for every row.
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

-- A new round: its row, and the wallet side of journal rows written before it (or in the same
-- statement, as the spin's does: the journal row's own trigger recounts it too, which is harmless).
CREATE FUNCTION round_reconciliation_round_inserted() RETURNS trigger AS $$
BEGIN
  INSERT INTO round_reconciliation (round_id, operator_id, created_at, currency, game_delta_minor)
  VALUES (NEW.round_id, NEW.operator_id, NEW.created_at, NEW.currency,
          round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor));
  IF EXISTS (SELECT 1 FROM wallet_transactions WHERE round_id = NEW.round_id) THEN
    PERFORM round_reconciliation_refresh_one(NEW.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- A changed round (only when a column the row keeps changed): the history side follows status,
-- bet and win; a changed operator or currency recounts the wallet side.
CREATE FUNCTION round_reconciliation_round_updated() RETURNS trigger AS $$
BEGIN
  UPDATE round_reconciliation
     SET operator_id = NEW.operator_id, created_at = NEW.created_at, currency = NEW.currency,
         game_delta_minor = round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor)
   WHERE round_id = NEW.round_id
     AND (operator_id, created_at, currency, game_delta_minor)
         IS DISTINCT FROM (NEW.operator_id, NEW.created_at, NEW.currency,
                           round_game_delta(NEW.status, NEW.bet_minor, NEW.win_minor));
  IF (NEW.operator_id, NEW.currency) IS DISTINCT FROM (OLD.operator_id, OLD.currency) THEN
    PERFORM round_reconciliation_refresh_one(NEW.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- A journal row written or changed (balance reads and changes of uncounted columns never get here).
CREATE FUNCTION round_reconciliation_journal_row() RETURNS trigger AS $$
BEGIN
  PERFORM round_reconciliation_refresh_one(NEW.round_id);
  IF TG_OP = 'UPDATE' AND OLD.round_id IS DISTINCT FROM NEW.round_id THEN
    PERFORM round_reconciliation_refresh_one(OLD.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER wallet_transactions_reconciliation_update ON wallet_transactions;
DROP TRIGGER wallet_transactions_reconciliation_insert ON wallet_transactions;
DROP TRIGGER rounds_reconciliation_update ON rounds;
DROP TRIGGER rounds_reconciliation_insert ON rounds;

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

-- Down Migration
DROP TRIGGER wallet_transactions_reconciliation_update ON wallet_transactions;
DROP TRIGGER wallet_transactions_reconciliation_insert ON wallet_transactions;
DROP TRIGGER rounds_reconciliation_update ON rounds;
DROP TRIGGER rounds_reconciliation_insert ON rounds;
DROP FUNCTION round_reconciliation_journal_row();
DROP FUNCTION round_reconciliation_round_updated();
DROP FUNCTION round_reconciliation_round_inserted();
DROP FUNCTION round_reconciliation_refresh_one(text);
CREATE TRIGGER rounds_reconciliation_insert
  AFTER INSERT ON rounds REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION round_reconciliation_rounds_inserted();
CREATE TRIGGER rounds_reconciliation_update
  AFTER UPDATE ON rounds REFERENCING OLD TABLE AS before NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION round_reconciliation_rounds_updated();
CREATE TRIGGER wallet_transactions_reconciliation_insert
  AFTER INSERT ON wallet_transactions REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION round_reconciliation_journal_inserted();
CREATE TRIGGER wallet_transactions_reconciliation_update
  AFTER UPDATE ON wallet_transactions REFERENCING OLD TABLE AS before NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION round_reconciliation_journal_updated();
