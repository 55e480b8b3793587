-- Up Migration
-- Reconciliation's working set: one narrow row per round with both sides of its reconciliation,
-- kept by the database in the same transaction as every write to the round or its journal, so a
-- reconciliation reads one small row per round instead of aggregating every journal row (one
-- million journal rows took 3.8 s) or the wide rounds rows.
--
--   game_delta_minor    the history side: win minus bet; zero for a rejected, cancelled or
--                       rolled-back round, whose wager never stood
--   wallet_delta_minor  the wallet effect of the round's journalled transactions in the round's
--                       currency: successful credits minus successful debits, plus each
--                       successful cancel or rollback whose original debit is journalled
--                       successful (what that debit took comes back; an uncertain debit and its
--                       reversal net to nothing)
--   journal_rows        its journal rows (balance reads excluded) of the round's operator
--   pending_rows        those still pending
--   foreign_rows        those in another currency than the round's (never summed: a difference)
--   differs             the round is one reconciliation lists: its sides differ, or something is
--                       pending, or a row is in another currency
--
-- services/api/src/audit/reconciliation.ts (journalDrift) recounts every column from rounds and
-- the journal; the tests and the reliability run check that it finds nothing.
CREATE TABLE round_reconciliation (
  round_id           text PRIMARY KEY REFERENCES rounds (round_id) ON DELETE CASCADE,
  operator_id        text NOT NULL,
  created_at         timestamptz NOT NULL,
  currency           char(3) NOT NULL,
  game_delta_minor   bigint NOT NULL,
  wallet_delta_minor bigint NOT NULL DEFAULT 0,
  journal_rows       integer NOT NULL DEFAULT 0,
  pending_rows       integer NOT NULL DEFAULT 0,
  foreign_rows       integer NOT NULL DEFAULT 0,
  differs            boolean GENERATED ALWAYS AS (
                       wallet_delta_minor <> game_delta_minor OR pending_rows > 0 OR foreign_rows > 0) STORED
) WITH (fillfactor = 80);
-- A window's rows (the totals), and the rounds to list in round-id order without reading the rest.
CREATE INDEX round_reconciliation_window ON round_reconciliation (operator_id, created_at);
CREATE INDEX round_reconciliation_differs ON round_reconciliation (operator_id, round_id) WHERE differs;

-- The history side of a round.
CREATE FUNCTION round_game_delta(status text, bet_minor bigint, win_minor bigint) RETURNS bigint AS $$
  SELECT CASE WHEN status IN ('rejected', 'cancelled', 'rolled_back') THEN 0 ELSE win_minor - bet_minor END
$$ LANGUAGE sql IMMUTABLE;

-- Recomputes the wallet side of the given rounds from their journal rows. Their rows are locked
-- first (in id order), and the journal is read by a later statement: under READ COMMITTED that
-- statement's snapshot includes whatever a concurrent writer of the same round committed before
-- the lock was granted, so two transactions writing one round cannot leave it with either one's
-- partial view.
CREATE FUNCTION round_reconciliation_refresh(ids text[]) RETURNS void AS $$
BEGIN
  IF cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  PERFORM 1 FROM round_reconciliation WHERE round_id = ANY (ids) ORDER BY round_id FOR UPDATE;
  UPDATE round_reconciliation r
     SET wallet_delta_minor = s.wallet, journal_rows = s.n, pending_rows = s.pending, foreign_rows = s.foreign_n
    FROM (
      SELECT k.round_id,
             coalesce(sum(CASE WHEN t.currency <> k.currency OR t.status <> 'success' THEN 0
                               WHEN t.transaction_type = 'debit' THEN -t.amount_minor
                               WHEN t.transaction_type = 'credit' THEN t.amount_minor
                               WHEN o.status = 'success' THEN t.amount_minor
                               ELSE 0 END), 0)::bigint AS wallet,
             count(t.transaction_id)::int AS n,
             count(t.transaction_id) FILTER (WHERE t.status = 'pending')::int AS pending,
             count(t.transaction_id) FILTER (WHERE t.currency <> k.currency)::int AS foreign_n
        FROM round_reconciliation k
        LEFT JOIN wallet_transactions t
          ON t.round_id = k.round_id AND t.operator_id = k.operator_id AND t.transaction_type <> 'balance'
        LEFT JOIN wallet_transactions o ON o.transaction_id = t.original_transaction_id
       WHERE k.round_id = ANY (ids)
       GROUP BY k.round_id
    ) s
   WHERE r.round_id = s.round_id
     AND (r.wallet_delta_minor, r.journal_rows, r.pending_rows, r.foreign_rows)
         IS DISTINCT FROM (s.wallet, s.n, s.pending, s.foreign_n);
END;
$$ LANGUAGE plpgsql;

-- New rounds: their row, and the wallet side of any whose journal rows were written before them
-- (a round is normally created before its first wallet call, so usually there are none).
CREATE FUNCTION round_reconciliation_rounds_inserted() RETURNS trigger AS $$
BEGIN
  INSERT INTO round_reconciliation (round_id, operator_id, created_at, currency, game_delta_minor)
  SELECT round_id, operator_id, created_at, currency, round_game_delta(status, bet_minor, win_minor) FROM changed;
  PERFORM round_reconciliation_refresh(ARRAY(
    SELECT c.round_id FROM changed c
     WHERE EXISTS (SELECT 1 FROM wallet_transactions t WHERE t.round_id = c.round_id)));
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- Changed rounds: the history side follows status, bet and win; a changed operator, currency or
-- creation time (never done by the platform) moves the row and recounts its wallet side.
CREATE FUNCTION round_reconciliation_rounds_updated() RETURNS trigger AS $$
BEGIN
  UPDATE round_reconciliation r
     SET operator_id = n.operator_id, created_at = n.created_at, currency = n.currency,
         game_delta_minor = round_game_delta(n.status, n.bet_minor, n.win_minor)
    FROM changed n
   WHERE r.round_id = n.round_id
     AND (r.operator_id, r.created_at, r.currency, r.game_delta_minor)
         IS DISTINCT FROM (n.operator_id, n.created_at, n.currency, round_game_delta(n.status, n.bet_minor, n.win_minor));
  PERFORM round_reconciliation_refresh(ARRAY(
    SELECT n.round_id FROM changed n JOIN before o USING (round_id)
     WHERE (n.operator_id, n.currency) IS DISTINCT FROM (o.operator_id, o.currency)));
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- New journal rows.
CREATE FUNCTION round_reconciliation_journal_inserted() RETURNS trigger AS $$
BEGIN
  PERFORM round_reconciliation_refresh(ARRAY(SELECT DISTINCT round_id FROM changed));
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- Changed journal rows: only a change of status (or of the round or operator a row names) moves
-- the totals; attempt counts and error notes do not, so those rounds are not recomputed.
CREATE FUNCTION round_reconciliation_journal_updated() RETURNS trigger AS $$
BEGIN
  PERFORM round_reconciliation_refresh(ARRAY(
    SELECT n.round_id FROM changed n JOIN before o USING (transaction_id)
     WHERE (n.status, n.round_id, n.operator_id) IS DISTINCT FROM (o.status, o.round_id, o.operator_id)
    UNION
    SELECT o.round_id FROM changed n JOIN before o USING (transaction_id)
     WHERE (n.round_id, n.operator_id) IS DISTINCT FROM (o.round_id, o.operator_id)));
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

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

-- Rounds already written get their rows now.
INSERT INTO round_reconciliation (round_id, operator_id, created_at, currency, game_delta_minor)
SELECT round_id, operator_id, created_at, currency, round_game_delta(status, bet_minor, win_minor) FROM rounds;
SELECT round_reconciliation_refresh(ARRAY(SELECT DISTINCT round_id FROM wallet_transactions));

-- Down Migration
DROP TRIGGER wallet_transactions_reconciliation_update ON wallet_transactions;
DROP TRIGGER wallet_transactions_reconciliation_insert ON wallet_transactions;
DROP TRIGGER rounds_reconciliation_update ON rounds;
DROP TRIGGER rounds_reconciliation_insert ON rounds;
DROP FUNCTION round_reconciliation_journal_updated();
DROP FUNCTION round_reconciliation_journal_inserted();
DROP FUNCTION round_reconciliation_rounds_updated();
DROP FUNCTION round_reconciliation_rounds_inserted();
DROP FUNCTION round_reconciliation_refresh(text[]);
DROP FUNCTION round_game_delta(text, bigint, bigint);
DROP TABLE round_reconciliation;
