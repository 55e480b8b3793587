-- Up Migration
-- Issue 38 points 1 and 6 (docs/reports-and-invoices.md, "The rollup"): the daily figures kept in
-- the same transaction as every journal and round change that moves one, so a month's report reads
-- a few rows per (day, title, currency) instead of every round's journal.
--
--  * round_reconciliation keeps, beside each round's reconciliation totals, the round's own report
--    figures (rpt_*: what the round adds to its day's figures, by the definitions of
--    services/api/src/reports/revenue.ts). Its deferred recount (migration 27: once per round per
--    transaction, at commit, behind the row's lock) computes them in the same pass over the
--    round's journal rows, and moves the daily sums by the difference between what it stored and
--    what it finds.
--  * report_daily: per (operator, day, title, currency) the sums, striped over 16 shards (by the
--    backend's pid) so that concurrent commits of one hot title and day do not queue on one row
--    lock held until their commit; a read sums the shards. `players` counts a (day, title,
--    currency)'s distinct players: +1 when report_daily_players gets the player's first counted
--    round there, -1 when it loses the last.
--  * report_daily_players: per (operator, day, title, currency, player) the counted rounds; the
--    reads grouped over several days, titles or currencies count distinct players from it.
--  * report_payouts: each promotional payout's paid amount as the rollup holds it (tournaments and
--    prize drops: `promo_win` credits journalled with the payout id as their round).
--
-- The day is the operator's reporting time zone's (migration 33). A change of zone rebuilds the
-- operator's rollup from the per-round figures in the same transaction (report_rollup_rebuild);
-- every writer of a delta holds a shared advisory lock (38, hashtext(operator)) from before it
-- reads the zone until it commits, the rebuild the exclusive one, so no delta is ever added in a
-- zone the rollup no longer uses.
--
-- The check that it is complete: reportDrift (services/api/src/reports/recount.ts) recounts every
-- figure from the journal in JavaScript and compares it with what the rollup answers; the reports
-- tests and the reliability suite (after every fault) find nothing.

-- Writers wait for this migration (and it for the ones in flight), so no transaction commits a
-- change between the backfill's snapshot and the new recount (migrate() gives way on a lock cycle).
LOCK TABLE rounds, wallet_transactions, promo_payouts, round_reconciliation, operators IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE round_reconciliation
  ADD COLUMN rpt_symbol            text,
  ADD COLUMN rpt_provider_id       text,
  ADD COLUMN rpt_player_id         text,
  ADD COLUMN rpt_free              boolean NOT NULL DEFAULT false,
  ADD COLUMN rpt_gb                boolean NOT NULL DEFAULT false,
  -- A round the reports count (a paid round whose wager stood; a free round completed).
  ADD COLUMN rpt_counted           boolean NOT NULL DEFAULT false,
  -- A successful debit or credit in the round's currency: the round is in its invoice line's set.
  ADD COLUMN rpt_billed            boolean NOT NULL DEFAULT false,
  ADD COLUMN rpt_stakes_minor      bigint NOT NULL DEFAULT 0,
  ADD COLUMN rpt_cancelled_minor   bigint NOT NULL DEFAULT 0,
  ADD COLUMN rpt_rolled_back_minor bigint NOT NULL DEFAULT 0,
  -- Successful credits other than jackpot credits: wins, or free-round wins (rpt_free).
  ADD COLUMN rpt_credit_minor      bigint NOT NULL DEFAULT 0,
  ADD COLUMN rpt_jackpot_minor     bigint NOT NULL DEFAULT 0,
  -- The round's jackpot contribution when its wager stood, else 0.
  ADD COLUMN rpt_jc_micros         bigint NOT NULL DEFAULT 0;

CREATE TABLE report_daily (
  operator_id                 text NOT NULL,
  day                         date NOT NULL,
  symbol                      text NOT NULL,
  currency                    char(3) NOT NULL,
  shard                       smallint NOT NULL,
  rounds                      bigint NOT NULL DEFAULT 0,
  players                     bigint NOT NULL DEFAULT 0,
  stakes_minor                bigint NOT NULL DEFAULT 0,
  cancelled_stakes_minor      bigint NOT NULL DEFAULT 0,
  rolled_back_stakes_minor    bigint NOT NULL DEFAULT 0,
  wins_minor                  bigint NOT NULL DEFAULT 0,
  free_round_wins_minor       bigint NOT NULL DEFAULT 0,
  jackpot_contribution_micros numeric NOT NULL DEFAULT 0,
  jackpot_wins_minor          bigint NOT NULL DEFAULT 0,
  tournament_payouts_minor    bigint NOT NULL DEFAULT 0,
  prize_drop_payouts_minor    bigint NOT NULL DEFAULT 0,
  ggy_gb_minor                bigint NOT NULL DEFAULT 0,
  ggy_non_gb_minor            bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (operator_id, day, symbol, currency, shard)
);

CREATE TABLE report_daily_players (
  operator_id text NOT NULL,
  day         date NOT NULL,
  symbol      text NOT NULL,
  currency    char(3) NOT NULL,
  player_id   text NOT NULL,
  rounds      integer NOT NULL CHECK (rounds > 0),
  PRIMARY KEY (operator_id, day, symbol, currency, player_id)
);

CREATE TABLE report_payouts (
  payout_id   text PRIMARY KEY,
  operator_id text NOT NULL,
  created_at  timestamptz NOT NULL,
  symbol      text NOT NULL,
  currency    char(3) NOT NULL,
  promo_type  text NOT NULL,
  gb          boolean NOT NULL,
  paid_minor  bigint NOT NULL
);
CREATE INDEX report_payouts_operator ON report_payouts (operator_id);

-- The day an instant falls on in the operator's reporting zone, for a writer about to move that
-- day's sums: the shared lock first (a zone change's rebuild holds the exclusive one), then the
-- zone, read by a later statement (so after a rebuild, its zone).
CREATE FUNCTION report_day_of(op text, at timestamptz) RETURNS date AS $$
DECLARE
  tz text;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(38, hashtext(op));
  SELECT reporting_time_zone INTO tz FROM operators WHERE operator_id = op;
  RETURN (at AT TIME ZONE coalesce(tz, 'UTC'))::date;
END;
$$ LANGUAGE plpgsql;

-- Moves one (operator, day, title, currency)'s sums, in this backend's shard.
CREATE FUNCTION report_daily_add(op text, d date, sym text, cur char(3), n_rounds bigint, n_players bigint,
                                 stakes bigint, cancelled bigint, rolled_back bigint, wins bigint, free_wins bigint,
                                 jc numeric, jackpot bigint, tournament bigint, prize_drop bigint, ggy_gb bigint,
                                 ggy_non_gb bigint) RETURNS void AS $$
BEGIN
  INSERT INTO report_daily AS x
    (operator_id, day, symbol, currency, shard, rounds, players, stakes_minor, cancelled_stakes_minor,
     rolled_back_stakes_minor, wins_minor, free_round_wins_minor, jackpot_contribution_micros, jackpot_wins_minor,
     tournament_payouts_minor, prize_drop_payouts_minor, ggy_gb_minor, ggy_non_gb_minor)
  VALUES (op, d, sym, cur, (pg_backend_pid() % 16)::smallint, n_rounds, n_players, stakes, cancelled, rolled_back,
          wins, free_wins, jc, jackpot, tournament, prize_drop, ggy_gb, ggy_non_gb)
  ON CONFLICT (operator_id, day, symbol, currency, shard) DO UPDATE
     SET rounds = x.rounds + EXCLUDED.rounds,
         players = x.players + EXCLUDED.players,
         stakes_minor = x.stakes_minor + EXCLUDED.stakes_minor,
         cancelled_stakes_minor = x.cancelled_stakes_minor + EXCLUDED.cancelled_stakes_minor,
         rolled_back_stakes_minor = x.rolled_back_stakes_minor + EXCLUDED.rolled_back_stakes_minor,
         wins_minor = x.wins_minor + EXCLUDED.wins_minor,
         free_round_wins_minor = x.free_round_wins_minor + EXCLUDED.free_round_wins_minor,
         jackpot_contribution_micros = x.jackpot_contribution_micros + EXCLUDED.jackpot_contribution_micros,
         jackpot_wins_minor = x.jackpot_wins_minor + EXCLUDED.jackpot_wins_minor,
         tournament_payouts_minor = x.tournament_payouts_minor + EXCLUDED.tournament_payouts_minor,
         prize_drop_payouts_minor = x.prize_drop_payouts_minor + EXCLUDED.prize_drop_payouts_minor,
         ggy_gb_minor = x.ggy_gb_minor + EXCLUDED.ggy_gb_minor,
         ggy_non_gb_minor = x.ggy_non_gb_minor + EXCLUDED.ggy_non_gb_minor;
END;
$$ LANGUAGE plpgsql;

-- A player's counted rounds in a (day, title, currency) move by one; answers how the group's
-- distinct players move (+1: the first, -1: the last, else 0).
CREATE FUNCTION report_players_step(op text, d date, sym text, cur char(3), player text, step integer)
RETURNS integer AS $$
DECLARE
  n integer;
BEGIN
  IF step > 0 THEN
    INSERT INTO report_daily_players AS x (operator_id, day, symbol, currency, player_id, rounds)
    VALUES (op, d, sym, cur, player, 1)
    ON CONFLICT (operator_id, day, symbol, currency, player_id) DO UPDATE SET rounds = x.rounds + 1
    RETURNING x.rounds INTO n;
    RETURN CASE WHEN n = 1 THEN 1 ELSE 0 END;
  END IF;
  DELETE FROM report_daily_players
   WHERE operator_id = op AND day = d AND symbol = sym AND currency = cur AND player_id = player AND rounds = 1;
  IF FOUND THEN
    RETURN -1;
  END IF;
  UPDATE report_daily_players SET rounds = rounds - 1
   WHERE operator_id = op AND day = d AND symbol = sym AND currency = cur AND player_id = player;
  RETURN 0;
END;
$$ LANGUAGE plpgsql;

-- Adds (sign 1) or takes away (sign -1) one round's stored figures at its day.
CREATE FUNCTION report_round_move(sign integer, op text, at timestamptz, sym text, cur char(3), player text,
                                  free boolean, gb boolean, counted boolean, stakes bigint, cancelled bigint,
                                  rolled_back bigint, credit bigint, jackpot bigint, jc bigint) RETURNS void AS $$
DECLARE
  d date;
  p integer := 0;
  ggy bigint := stakes - cancelled - rolled_back - credit - jackpot;
BEGIN
  IF NOT counted AND stakes = 0 AND cancelled = 0 AND rolled_back = 0 AND credit = 0 AND jackpot = 0 AND jc = 0 THEN
    RETURN;
  END IF;
  d := report_day_of(op, at);
  IF counted THEN
    p := report_players_step(op, d, sym, cur, player, sign);
  END IF;
  PERFORM report_daily_add(op, d, sym, cur, sign * counted::int, p, sign * stakes, sign * cancelled,
                           sign * rolled_back, CASE WHEN free THEN 0 ELSE sign * credit END,
                           CASE WHEN free THEN sign * credit ELSE 0 END, sign * jc, sign * jackpot, 0, 0,
                           CASE WHEN gb THEN sign * ggy ELSE 0 END, CASE WHEN gb THEN 0 ELSE sign * ggy END);
END;
$$ LANGUAGE plpgsql;

-- One promotional payout: what the rollup holds of it is made what its journal says (its
-- successful credits in its currency, on the day it was awarded). Rare (a payout is paid once):
-- counted again on every change, behind report_payouts' row lock.
CREATE FUNCTION report_payout_recount(pid text) RETURNS void AS $$
DECLARE
  old record;
  p record;
  paid bigint := 0;
  d date;
  gb boolean;
BEGIN
  SELECT * INTO old FROM report_payouts WHERE payout_id = pid FOR UPDATE;
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT 1 FROM promo_payouts WHERE payout_id = pid) THEN
      RETURN;
    END IF;
    INSERT INTO report_payouts (payout_id, operator_id, created_at, symbol, currency, promo_type, gb, paid_minor)
    SELECT payout_id, operator_id, created_at, game_symbol, currency, promo_type, false, 0
      FROM promo_payouts WHERE payout_id = pid
    ON CONFLICT (payout_id) DO NOTHING;
    SELECT * INTO old FROM report_payouts WHERE payout_id = pid FOR UPDATE;
  END IF;
  SELECT pp.operator_id, pp.created_at, pp.game_symbol, pp.currency, pp.promo_type,
         coalesce(s.jurisdiction = 'GB' OR s.jurisdiction LIKE 'GB-%', false) AS gb
    INTO p FROM promo_payouts pp LEFT JOIN sessions s ON s.session_id = pp.session_id WHERE pp.payout_id = pid;
  IF FOUND THEN
    SELECT coalesce(sum(amount_minor), 0)::bigint INTO paid
      FROM wallet_transactions
     WHERE round_id = pid AND operator_id = p.operator_id AND transaction_type = 'credit' AND status = 'success'
       AND currency = p.currency;
  END IF;
  IF FOUND AND (old.operator_id, old.created_at, old.symbol, old.currency, old.promo_type, old.gb, old.paid_minor)
               IS NOT DISTINCT FROM (p.operator_id, p.created_at, p.game_symbol, p.currency, p.promo_type, p.gb, paid) THEN
    RETURN;
  END IF;
  IF old.paid_minor <> 0 THEN
    d := report_day_of(old.operator_id, old.created_at);
    PERFORM report_daily_add(old.operator_id, d, old.symbol, old.currency, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                             CASE WHEN old.promo_type = 'tournament' THEN -old.paid_minor ELSE 0 END,
                             CASE WHEN old.promo_type = 'prize_drop' THEN -old.paid_minor ELSE 0 END,
                             CASE WHEN old.gb THEN old.paid_minor ELSE 0 END,
                             CASE WHEN old.gb THEN 0 ELSE old.paid_minor END);
  END IF;
  IF p.operator_id IS NULL THEN
    DELETE FROM report_payouts WHERE payout_id = pid;
    RETURN;
  END IF;
  IF paid <> 0 THEN
    d := report_day_of(p.operator_id, p.created_at);
    PERFORM report_daily_add(p.operator_id, d, p.game_symbol, p.currency, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                             CASE WHEN p.promo_type = 'tournament' THEN paid ELSE 0 END,
                             CASE WHEN p.promo_type = 'prize_drop' THEN paid ELSE 0 END,
                             CASE WHEN p.gb THEN -paid ELSE 0 END,
                             CASE WHEN p.gb THEN 0 ELSE -paid END);
  END IF;
  UPDATE report_payouts
     SET operator_id = p.operator_id, created_at = p.created_at, symbol = p.game_symbol, currency = p.currency,
         promo_type = p.promo_type, gb = p.gb, paid_minor = paid
   WHERE payout_id = pid;
END;
$$ LANGUAGE plpgsql;

-- Migration 27's recount, which now also keeps the round's report figures and moves the daily
-- sums by their change. Same locking and the same once-per-transaction rule; the journal is read
-- once for both.
CREATE OR REPLACE FUNCTION round_reconciliation_recount(id text) RETURNS void AS $$
DECLARE
  cur record;
  had boolean;
  r record;
  s record;
  stood boolean;
  counted boolean;
  jc bigint;
  same boolean;
  p integer := 0;
  d date;
  ggy_old bigint;
  ggy_new bigint;
BEGIN
  SELECT xmin = pg_current_xact_id()::xid AS written, operator_id, created_at, currency, rpt_symbol, rpt_player_id,
         rpt_free, rpt_gb, rpt_counted, rpt_stakes_minor, rpt_cancelled_minor, rpt_rolled_back_minor,
         rpt_credit_minor, rpt_jackpot_minor, rpt_jc_micros
    INTO cur
    FROM round_reconciliation WHERE round_id = id FOR UPDATE;
  had := FOUND;  -- a new round's row is inserted below
  IF had AND cur.written THEN
    RETURN;
  END IF;
  SELECT k.operator_id, k.created_at, k.currency,
         round_game_delta(k.status, k.bet_minor, k.win_minor + k.jackpot_win_minor) AS game,
         k.symbol, k.provider_id, k.player_id, k.free_round_campaign_id IS NOT NULL AS free,
         k.status = 'completed' AS completed, coalesce(k.jackpot_contribution_micros, 0) AS jc,
         coalesce(ss.jurisdiction = 'GB' OR ss.jurisdiction LIKE 'GB-%', false) AS gb
    INTO r FROM rounds k LEFT JOIN sessions ss ON ss.session_id = k.session_id WHERE k.round_id = id;
  IF NOT FOUND THEN
    -- Journal rows ahead of their round: counted when the round arrives. Or a promotional
    -- payout's credit (its payout id is its round).
    PERFORM report_payout_recount(id);
    RETURN;
  END IF;
  -- As migration 27: the round's rows by wallet_transactions_round alone (OFFSET 0), and a
  -- reversal's original read only for a successful reversal in the round's currency.
  SELECT coalesce(sum(CASE WHEN NOT t.ok THEN 0
                           WHEN t.transaction_type = 'debit' THEN -t.amount_minor
                           WHEN t.transaction_type = 'credit' THEN t.amount_minor
                           WHEN t.reverses THEN t.amount_minor
                           ELSE 0 END), 0)::bigint AS wallet,
         count(*)::int AS n,
         count(*) FILTER (WHERE t.status = 'pending')::int AS pending,
         count(*) FILTER (WHERE t.currency <> r.currency)::int AS foreign_n,
         coalesce(sum(t.amount_minor) FILTER (WHERE t.ok AND t.transaction_type = 'debit'), 0)::bigint AS debit,
         coalesce(sum(t.amount_minor) FILTER (WHERE t.ok AND t.transaction_type = 'credit' AND NOT t.jackpot), 0)::bigint
           AS credit,
         coalesce(sum(t.amount_minor) FILTER (WHERE t.ok AND t.transaction_type = 'credit' AND t.jackpot), 0)::bigint
           AS jackpot,
         coalesce(sum(t.amount_minor) FILTER (WHERE t.reverses AND t.transaction_type = 'cancel'), 0)::bigint AS cancelled,
         coalesce(sum(t.amount_minor) FILTER (WHERE t.reverses AND t.transaction_type = 'rollback'), 0)::bigint
           AS rolled_back,
         coalesce(bool_or(t.ok AND t.transaction_type IN ('debit', 'credit')), false) AS billed
    INTO s
    FROM (SELECT w.status, w.currency, w.transaction_type, w.amount_minor,
                 w.status = 'success' AND w.currency = r.currency AS ok,
                 w.transaction_type = 'credit' AND starts_with(w.transaction_id, id || ':jackpot:') AS jackpot,
                 CASE WHEN w.status = 'success' AND w.currency = r.currency
                           AND w.transaction_type NOT IN ('debit', 'credit')
                      THEN coalesce((SELECT o.status FROM wallet_transactions o
                                      WHERE o.transaction_id = w.original_transaction_id) = 'success', false)
                      ELSE false END AS reverses
            FROM (SELECT * FROM wallet_transactions WHERE round_id = id OFFSET 0) w
           WHERE w.operator_id = r.operator_id AND w.transaction_type <> 'balance') t;
  stood := NOT r.free AND s.debit > 0 AND s.cancelled + s.rolled_back = 0;
  counted := CASE WHEN r.free THEN r.completed ELSE stood END;
  jc := CASE WHEN stood THEN r.jc ELSE 0 END;
  IF had THEN
    UPDATE round_reconciliation
       SET operator_id = r.operator_id, created_at = r.created_at, currency = r.currency, game_delta_minor = r.game,
           wallet_delta_minor = s.wallet, journal_rows = s.n, pending_rows = s.pending, foreign_rows = s.foreign_n,
           rpt_symbol = r.symbol, rpt_provider_id = r.provider_id, rpt_player_id = r.player_id, rpt_free = r.free,
           rpt_gb = r.gb, rpt_counted = counted, rpt_billed = s.billed, rpt_stakes_minor = s.debit,
           rpt_cancelled_minor = s.cancelled, rpt_rolled_back_minor = s.rolled_back, rpt_credit_minor = s.credit,
           rpt_jackpot_minor = s.jackpot, rpt_jc_micros = jc
     WHERE round_id = id
       AND (operator_id, created_at, currency, game_delta_minor, wallet_delta_minor, journal_rows, pending_rows,
            foreign_rows, rpt_symbol, rpt_provider_id, rpt_player_id, rpt_free, rpt_gb, rpt_counted, rpt_billed,
            rpt_stakes_minor, rpt_cancelled_minor, rpt_rolled_back_minor, rpt_credit_minor, rpt_jackpot_minor,
            rpt_jc_micros)
           IS DISTINCT FROM (r.operator_id, r.created_at, r.currency, r.game, s.wallet, s.n, s.pending, s.foreign_n,
                             r.symbol, r.provider_id, r.player_id, r.free, r.gb, counted, s.billed, s.debit,
                             s.cancelled, s.rolled_back, s.credit, s.jackpot, jc);
  ELSE
    INSERT INTO round_reconciliation (round_id, operator_id, created_at, currency, game_delta_minor,
                                      wallet_delta_minor, journal_rows, pending_rows, foreign_rows, rpt_symbol,
                                      rpt_provider_id, rpt_player_id, rpt_free, rpt_gb, rpt_counted, rpt_billed,
                                      rpt_stakes_minor, rpt_cancelled_minor, rpt_rolled_back_minor, rpt_credit_minor,
                                      rpt_jackpot_minor, rpt_jc_micros)
    VALUES (id, r.operator_id, r.created_at, r.currency, r.game, s.wallet, s.n, s.pending, s.foreign_n, r.symbol,
            r.provider_id, r.player_id, r.free, r.gb, counted, s.billed, s.debit, s.cancelled, s.rolled_back,
            s.credit, s.jackpot, jc)
    ON CONFLICT (round_id) DO NOTHING;
    IF NOT FOUND THEN
      -- Another transaction wrote the row first (a round left without one by a load with triggers
      -- off, written by two at once): count again behind its lock, seeing what it committed.
      PERFORM round_reconciliation_recount(id);
      RETURN;
    END IF;
  END IF;

  -- The daily sums move by what changed.
  IF had AND cur.rpt_symbol IS NOT NULL
     AND (cur.operator_id, cur.created_at, cur.currency, cur.rpt_symbol, cur.rpt_free)
         IS NOT DISTINCT FROM (r.operator_id, r.created_at, r.currency, r.symbol, r.free) THEN
    -- The usual case: the same day, title and currency; one upsert of the difference.
    IF (cur.rpt_gb, cur.rpt_counted, cur.rpt_player_id, cur.rpt_stakes_minor, cur.rpt_cancelled_minor,
        cur.rpt_rolled_back_minor, cur.rpt_credit_minor, cur.rpt_jackpot_minor, cur.rpt_jc_micros)
       IS NOT DISTINCT FROM (r.gb, counted, r.player_id, s.debit, s.cancelled, s.rolled_back, s.credit, s.jackpot, jc) THEN
      RETURN;
    END IF;
    d := report_day_of(r.operator_id, r.created_at);
    IF cur.rpt_counted AND NOT (counted AND cur.rpt_player_id = r.player_id) THEN
      p := p + report_players_step(r.operator_id, d, r.symbol, r.currency, cur.rpt_player_id, -1);
    END IF;
    IF counted AND NOT (cur.rpt_counted AND cur.rpt_player_id = r.player_id) THEN
      p := p + report_players_step(r.operator_id, d, r.symbol, r.currency, r.player_id, 1);
    END IF;
    ggy_old := cur.rpt_stakes_minor - cur.rpt_cancelled_minor - cur.rpt_rolled_back_minor - cur.rpt_credit_minor
               - cur.rpt_jackpot_minor;
    ggy_new := s.debit - s.cancelled - s.rolled_back - s.credit - s.jackpot;
    PERFORM report_daily_add(r.operator_id, d, r.symbol, r.currency, counted::int - cur.rpt_counted::int, p,
                             s.debit - cur.rpt_stakes_minor, s.cancelled - cur.rpt_cancelled_minor,
                             s.rolled_back - cur.rpt_rolled_back_minor,
                             CASE WHEN r.free THEN 0 ELSE s.credit - cur.rpt_credit_minor END,
                             CASE WHEN r.free THEN s.credit - cur.rpt_credit_minor ELSE 0 END,
                             jc - cur.rpt_jc_micros, s.jackpot - cur.rpt_jackpot_minor, 0, 0,
                             CASE WHEN r.gb THEN ggy_new ELSE 0 END - CASE WHEN cur.rpt_gb THEN ggy_old ELSE 0 END,
                             CASE WHEN r.gb THEN 0 ELSE ggy_new END - CASE WHEN cur.rpt_gb THEN 0 ELSE ggy_old END);
    RETURN;
  END IF;
  -- A new round, or one whose day, title or currency changed (never done by the platform): out of
  -- where it was, into where it is.
  IF had AND cur.rpt_symbol IS NOT NULL THEN
    PERFORM report_round_move(-1, cur.operator_id, cur.created_at, cur.rpt_symbol, cur.currency, cur.rpt_player_id,
                              cur.rpt_free, cur.rpt_gb, cur.rpt_counted, cur.rpt_stakes_minor, cur.rpt_cancelled_minor,
                              cur.rpt_rolled_back_minor, cur.rpt_credit_minor, cur.rpt_jackpot_minor, cur.rpt_jc_micros);
  END IF;
  PERFORM report_round_move(1, r.operator_id, r.created_at, r.symbol, r.currency, r.player_id, r.free, r.gb, counted,
                            s.debit, s.cancelled, s.rolled_back, s.credit, s.jackpot, jc);
END;
$$ LANGUAGE plpgsql;

-- A round's row gone (its round deleted: ON DELETE CASCADE): its figures leave the sums.
CREATE FUNCTION report_round_deleted() RETURNS trigger AS $$
BEGIN
  IF OLD.rpt_symbol IS NOT NULL THEN
    PERFORM report_round_move(-1, OLD.operator_id, OLD.created_at, OLD.rpt_symbol, OLD.currency, OLD.rpt_player_id,
                              OLD.rpt_free, OLD.rpt_gb, OLD.rpt_counted, OLD.rpt_stakes_minor, OLD.rpt_cancelled_minor,
                              OLD.rpt_rolled_back_minor, OLD.rpt_credit_minor, OLD.rpt_jackpot_minor, OLD.rpt_jc_micros);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER round_reconciliation_report_deleted
  AFTER DELETE ON round_reconciliation
  FOR EACH ROW EXECUTE FUNCTION report_round_deleted();

-- The round's figures follow more of its columns than its reconciliation did: its title, player,
-- session (GB or not), free-round campaign and jackpot contribution.
DROP TRIGGER rounds_reconciliation_update ON rounds;
CREATE CONSTRAINT TRIGGER rounds_reconciliation_update
  AFTER UPDATE OF operator_id, created_at, currency, status, bet_minor, win_minor, jackpot_win_minor, symbol,
                  provider_id, player_id, session_id, free_round_campaign_id, jackpot_contribution_micros ON rounds
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW
  WHEN ((OLD.operator_id, OLD.created_at, OLD.currency, OLD.status, OLD.bet_minor, OLD.win_minor,
         OLD.jackpot_win_minor, OLD.symbol, OLD.provider_id, OLD.player_id, OLD.session_id,
         OLD.free_round_campaign_id, OLD.jackpot_contribution_micros)
        IS DISTINCT FROM (NEW.operator_id, NEW.created_at, NEW.currency, NEW.status, NEW.bet_minor,
                          NEW.win_minor, NEW.jackpot_win_minor, NEW.symbol, NEW.provider_id, NEW.player_id,
                          NEW.session_id, NEW.free_round_campaign_id, NEW.jackpot_contribution_micros))
  EXECUTE FUNCTION round_reconciliation_round_changed();

-- Promotional payouts: written, changed or removed.
CREATE FUNCTION report_payout_changed() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM report_payout_recount(OLD.payout_id);
  ELSE
    PERFORM report_payout_recount(NEW.payout_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE CONSTRAINT TRIGGER promo_payouts_report
  AFTER INSERT OR UPDATE OR DELETE ON promo_payouts
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION report_payout_changed();

-- The report figures of rounds recounted set-based from the journal (the backfill, and loads with
-- triggers off after rebuildRoundReconciliation): every round of the operator (all when null)
-- that has its reconciliation row. The sums are not touched: report_rollup_rebuild follows.
CREATE FUNCTION report_rounds_backfill(op text) RETURNS void AS $$
BEGIN
  UPDATE round_reconciliation k
     SET rpt_symbol = x.symbol, rpt_provider_id = x.provider_id, rpt_player_id = x.player_id, rpt_free = x.free,
         rpt_gb = x.gb, rpt_counted = x.counted, rpt_billed = x.billed, rpt_stakes_minor = x.debit,
         rpt_cancelled_minor = x.cancelled, rpt_rolled_back_minor = x.rolled_back, rpt_credit_minor = x.credit,
         rpt_jackpot_minor = x.jackpot, rpt_jc_micros = x.jc
    FROM (
      SELECT r.round_id, r.symbol, r.provider_id, r.player_id, r.free, r.gb,
             CASE WHEN r.free THEN r.status = 'completed' ELSE r.stood END AS counted,
             r.billed, r.debit, r.cancelled, r.rolled_back, r.credit, r.jackpot,
             CASE WHEN r.stood THEN r.jc ELSE 0 END AS jc
        FROM (
          SELECT r.round_id, r.symbol, r.provider_id, r.player_id, r.status,
                 r.free_round_campaign_id IS NOT NULL AS free,
                 coalesce(ss.jurisdiction = 'GB' OR ss.jurisdiction LIKE 'GB-%', false) AS gb,
                 coalesce(r.jackpot_contribution_micros, 0) AS jc,
                 coalesce(j.debit, 0) AS debit, coalesce(j.cancelled, 0) AS cancelled,
                 coalesce(j.rolled_back, 0) AS rolled_back, coalesce(j.credit, 0) AS credit,
                 coalesce(j.jackpot, 0) AS jackpot, coalesce(j.billed, false) AS billed,
                 r.free_round_campaign_id IS NULL AND coalesce(j.debit, 0) > 0
                   AND coalesce(j.cancelled, 0) + coalesce(j.rolled_back, 0) = 0 AS stood
            FROM rounds r
            LEFT JOIN sessions ss ON ss.session_id = r.session_id
            LEFT JOIN (
              SELECT t.round_id,
                     sum(t.amount_minor) FILTER (WHERE t.transaction_type = 'debit')::bigint AS debit,
                     sum(t.amount_minor) FILTER (WHERE t.transaction_type = 'credit'
                                                 AND NOT starts_with(t.transaction_id, t.round_id || ':jackpot:'))::bigint AS credit,
                     sum(t.amount_minor) FILTER (WHERE t.transaction_type = 'credit'
                                                 AND starts_with(t.transaction_id, t.round_id || ':jackpot:'))::bigint AS jackpot,
                     sum(t.amount_minor) FILTER (WHERE t.transaction_type = 'cancel' AND o.status = 'success')::bigint AS cancelled,
                     sum(t.amount_minor) FILTER (WHERE t.transaction_type = 'rollback' AND o.status = 'success')::bigint AS rolled_back,
                     bool_or(t.transaction_type IN ('debit', 'credit')) AS billed
                FROM wallet_transactions t
                JOIN rounds rr ON rr.round_id = t.round_id AND rr.operator_id = t.operator_id AND rr.currency = t.currency
                LEFT JOIN wallet_transactions o
                  ON o.transaction_id = t.original_transaction_id AND t.transaction_type IN ('cancel', 'rollback')
               WHERE t.status = 'success' AND t.transaction_type <> 'balance' AND (op IS NULL OR t.operator_id = op)
               GROUP BY t.round_id
            ) j ON j.round_id = r.round_id
           WHERE op IS NULL OR r.operator_id = op
        ) r
    ) x
   WHERE k.round_id = x.round_id;
END;
$$ LANGUAGE plpgsql;

-- An operator's sums rebuilt from the per-round figures and the payouts, in its reporting zone as
-- it is now (a zone change; the backfill; a load with triggers off). Holds the operator's
-- exclusive lock: writers of deltas wait, and the statements below see everything they committed.
CREATE FUNCTION report_rollup_rebuild(op text) RETURNS void AS $$
DECLARE
  tz text;
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'report_rollup_rebuild needs READ COMMITTED (a later snapshot than its lock)'
      USING ERRCODE = 'invalid_transaction_state';
  END IF;
  PERFORM pg_advisory_xact_lock(38, hashtext(op));
  SELECT reporting_time_zone INTO tz FROM operators WHERE operator_id = op;
  tz := coalesce(tz, 'UTC');
  DELETE FROM report_daily WHERE operator_id = op;
  DELETE FROM report_daily_players WHERE operator_id = op;
  -- Payouts the rollup has not seen yet (the backfill): as their journal says.
  INSERT INTO report_payouts (payout_id, operator_id, created_at, symbol, currency, promo_type, gb, paid_minor)
  SELECT p.payout_id, p.operator_id, p.created_at, p.game_symbol, p.currency, p.promo_type,
         coalesce(ss.jurisdiction = 'GB' OR ss.jurisdiction LIKE 'GB-%', false),
         coalesce((SELECT sum(t.amount_minor) FROM wallet_transactions t
                    WHERE t.round_id = p.payout_id AND t.operator_id = p.operator_id AND t.transaction_type = 'credit'
                      AND t.status = 'success' AND t.currency = p.currency), 0)
    FROM promo_payouts p LEFT JOIN sessions ss ON ss.session_id = p.session_id
   WHERE p.operator_id = op
  ON CONFLICT (payout_id) DO NOTHING;
  INSERT INTO report_daily_players (operator_id, day, symbol, currency, player_id, rounds)
  SELECT op, (created_at AT TIME ZONE tz)::date, rpt_symbol, currency, rpt_player_id, count(*)
    FROM round_reconciliation
   WHERE operator_id = op AND rpt_counted AND rpt_symbol IS NOT NULL
   GROUP BY 2, 3, 4, 5;
  INSERT INTO report_daily (operator_id, day, symbol, currency, shard, rounds, players, stakes_minor,
                            cancelled_stakes_minor, rolled_back_stakes_minor, wins_minor, free_round_wins_minor,
                            jackpot_contribution_micros, jackpot_wins_minor, tournament_payouts_minor,
                            prize_drop_payouts_minor, ggy_gb_minor, ggy_non_gb_minor)
  SELECT op, day, symbol, currency, 0, sum(n), sum(players), sum(stakes), sum(cancelled), sum(rolled_back), sum(wins),
         sum(free_wins), sum(jc), sum(jackpot), sum(tournament), sum(prize_drop), sum(ggy_gb), sum(ggy_non_gb)
    FROM (
      SELECT (created_at AT TIME ZONE tz)::date AS day, rpt_symbol AS symbol, currency, rpt_counted::int AS n,
             0 AS players, rpt_stakes_minor AS stakes, rpt_cancelled_minor AS cancelled,
             rpt_rolled_back_minor AS rolled_back, CASE WHEN rpt_free THEN 0 ELSE rpt_credit_minor END AS wins,
             CASE WHEN rpt_free THEN rpt_credit_minor ELSE 0 END AS free_wins, rpt_jc_micros::numeric AS jc,
             rpt_jackpot_minor AS jackpot, 0 AS tournament, 0 AS prize_drop,
             CASE WHEN rpt_gb THEN rpt_stakes_minor - rpt_cancelled_minor - rpt_rolled_back_minor - rpt_credit_minor
                                   - rpt_jackpot_minor ELSE 0 END AS ggy_gb,
             CASE WHEN rpt_gb THEN 0 ELSE rpt_stakes_minor - rpt_cancelled_minor - rpt_rolled_back_minor
                                   - rpt_credit_minor - rpt_jackpot_minor END AS ggy_non_gb
        FROM round_reconciliation
       WHERE operator_id = op AND rpt_symbol IS NOT NULL
         AND (rpt_counted OR rpt_stakes_minor <> 0 OR rpt_cancelled_minor <> 0 OR rpt_rolled_back_minor <> 0
              OR rpt_credit_minor <> 0 OR rpt_jackpot_minor <> 0 OR rpt_jc_micros <> 0)
      UNION ALL
      SELECT day, symbol, currency, 0, count(*), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        FROM report_daily_players WHERE operator_id = op GROUP BY 1, 2, 3
      UNION ALL
      SELECT (created_at AT TIME ZONE tz)::date, symbol, currency, 0, 0, 0, 0, 0, 0, 0, 0, 0,
             CASE WHEN promo_type = 'tournament' THEN paid_minor ELSE 0 END,
             CASE WHEN promo_type = 'prize_drop' THEN paid_minor ELSE 0 END,
             CASE WHEN gb THEN -paid_minor ELSE 0 END, CASE WHEN gb THEN 0 ELSE -paid_minor END
        FROM report_payouts WHERE operator_id = op AND paid_minor <> 0
    ) x
   GROUP BY day, symbol, currency;
END;
$$ LANGUAGE plpgsql;

-- A change of reporting zone moves every day boundary: the operator's sums are rebuilt in the new
-- zone, in the same transaction.
CREATE FUNCTION report_zone_changed() RETURNS trigger AS $$
BEGIN
  PERFORM report_rollup_rebuild(NEW.operator_id);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER operators_report_zone_changed
  AFTER UPDATE OF reporting_time_zone ON operators
  FOR EACH ROW WHEN (OLD.reporting_time_zone IS DISTINCT FROM NEW.reporting_time_zone)
  EXECUTE FUNCTION report_zone_changed();

-- The backfill: every round's figures, then every operator's sums.
SELECT report_rounds_backfill(NULL);
SELECT report_rollup_rebuild(operator_id) FROM operators;

-- Down Migration
DROP TRIGGER operators_report_zone_changed ON operators;
DROP FUNCTION report_zone_changed();
DROP TRIGGER promo_payouts_report ON promo_payouts;
DROP FUNCTION report_payout_changed();
DROP TRIGGER round_reconciliation_report_deleted ON round_reconciliation;
DROP FUNCTION report_round_deleted();
DROP TRIGGER rounds_reconciliation_update ON rounds;
CREATE CONSTRAINT TRIGGER rounds_reconciliation_update
  AFTER UPDATE OF operator_id, created_at, currency, status, bet_minor, win_minor, jackpot_win_minor ON rounds
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW
  WHEN ((OLD.operator_id, OLD.created_at, OLD.currency, OLD.status, OLD.bet_minor, OLD.win_minor,
         OLD.jackpot_win_minor)
        IS DISTINCT FROM (NEW.operator_id, NEW.created_at, NEW.currency, NEW.status, NEW.bet_minor,
                          NEW.win_minor, NEW.jackpot_win_minor))
  EXECUTE FUNCTION round_reconciliation_round_changed();
-- Migration 27's recount.
CREATE OR REPLACE FUNCTION round_reconciliation_recount(id text) RETURNS void AS $$
DECLARE
  cur record;
  had boolean;
  r record;
  s record;
BEGIN
  SELECT xmin = pg_current_xact_id()::xid AS written INTO cur
    FROM round_reconciliation WHERE round_id = id FOR UPDATE;
  had := FOUND;
  IF had AND cur.written THEN
    RETURN;
  END IF;
  SELECT operator_id, created_at, currency,
         round_game_delta(status, bet_minor, win_minor + jackpot_win_minor) AS game
    INTO r FROM rounds WHERE round_id = id;
  IF NOT FOUND THEN
    RETURN;
  END IF;
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
      PERFORM round_reconciliation_recount(id);
    END IF;
  END IF;
END;
$$ LANGUAGE plpgsql;
DROP FUNCTION report_rollup_rebuild(text);
DROP FUNCTION report_rounds_backfill(text);
DROP FUNCTION report_payout_recount(text);
DROP FUNCTION report_round_move(integer, text, timestamptz, text, char, text, boolean, boolean, boolean, bigint,
                                bigint, bigint, bigint, bigint, bigint);
DROP FUNCTION report_players_step(text, date, text, char, text, integer);
DROP FUNCTION report_daily_add(text, date, text, char, bigint, bigint, bigint, bigint, bigint, bigint, bigint,
                               numeric, bigint, bigint, bigint, bigint, bigint);
DROP FUNCTION report_day_of(text, timestamptz);
DROP TABLE report_payouts;
DROP TABLE report_daily_players;
DROP TABLE report_daily;
ALTER TABLE round_reconciliation
  DROP COLUMN rpt_symbol, DROP COLUMN rpt_provider_id, DROP COLUMN rpt_player_id, DROP COLUMN rpt_free,
  DROP COLUMN rpt_gb, DROP COLUMN rpt_counted, DROP COLUMN rpt_billed, DROP COLUMN rpt_stakes_minor,
  DROP COLUMN rpt_cancelled_minor, DROP COLUMN rpt_rolled_back_minor, DROP COLUMN rpt_credit_minor,
  DROP COLUMN rpt_jackpot_minor, DROP COLUMN rpt_jc_micros;
