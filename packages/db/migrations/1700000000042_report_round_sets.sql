-- Up Migration
-- Issue 38 points 3 and 6 (docs/reports-and-invoices.md, "The set of rounds"): each invoice line
-- names the set of rounds it bills by a fingerprint anyone can reproduce. Version 1 hashed the
-- sorted round ids, so an invoice read every round of the month and sorted them (7.3 s at 916,634
-- rounds). The set's fingerprint is now order-free, the XOR of SHA-256(round_id) over the set
-- (opi-invoice/2), and so it can be kept per day beside the daily sums:
--
--  * report_daily gets billed_rounds (the rounds of its (day, title, currency) with a successful
--    debit or credit in their currency: round_reconciliation.rpt_billed) and set_x1 … set_x4, the
--    XOR of those rounds' SHA-256 as four signed 64-bit words (big-endian, the digest's bytes 0–7,
--    8–15, 16–23, 24–31). A shard's words XOR with the others' into the day's; a month's XOR of its
--    days' is the line's set.
--  * The recount (migration 41's, otherwise unchanged) moves a round in or out of its day's set in
--    the same upsert as its other figures, when rpt_billed changes (XOR is its own inverse), and a
--    round that moves day, title or currency takes its fingerprint along.
--  * The rebuild (a zone change, a bulk load) computes the sets set-based; reportDrift recounts
--    every set from the journal.

-- As migration 41: writers wait for the backfill, and it for the writers in flight.
LOCK TABLE rounds, wallet_transactions, promo_payouts, round_reconciliation, operators IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE report_daily
  ADD COLUMN billed_rounds bigint NOT NULL DEFAULT 0,
  ADD COLUMN set_x1        bigint NOT NULL DEFAULT 0,
  ADD COLUMN set_x2        bigint NOT NULL DEFAULT 0,
  ADD COLUMN set_x3        bigint NOT NULL DEFAULT 0,
  ADD COLUMN set_x4        bigint NOT NULL DEFAULT 0;

-- A round's fingerprint: SHA-256 of its id (UTF-8) as four signed 64-bit words, big-endian.
CREATE FUNCTION report_round_fp(id text) RETURNS bigint[] AS $$
  SELECT ARRAY[('x' || substr(h, 1, 16))::bit(64)::bigint, ('x' || substr(h, 17, 16))::bit(64)::bigint,
               ('x' || substr(h, 33, 16))::bit(64)::bigint, ('x' || substr(h, 49, 16))::bit(64)::bigint]
    FROM (SELECT encode(sha256(convert_to(id, 'UTF8')), 'hex') AS h) x
$$ LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;

-- The daily sums' upsert, with a round's billed step and fingerprint (defaults: none, so migration
-- 41's callers of promotional payouts are unchanged).
DROP FUNCTION report_daily_add(text, date, text, char, bigint, bigint, bigint, bigint, bigint, bigint, bigint,
                               numeric, bigint, bigint, bigint, bigint, bigint);
CREATE FUNCTION report_daily_add(op text, d date, sym text, cur char(3), n_rounds bigint, n_players bigint,
                                 stakes bigint, cancelled bigint, rolled_back bigint, wins bigint, free_wins bigint,
                                 jc numeric, jackpot bigint, tournament bigint, prize_drop bigint, ggy_gb bigint,
                                 ggy_non_gb bigint, n_billed bigint DEFAULT 0, fp1 bigint DEFAULT 0,
                                 fp2 bigint DEFAULT 0, fp3 bigint DEFAULT 0, fp4 bigint DEFAULT 0) RETURNS void AS $$
BEGIN
  INSERT INTO report_daily AS x
    (operator_id, day, symbol, currency, shard, rounds, players, stakes_minor, cancelled_stakes_minor,
     rolled_back_stakes_minor, wins_minor, free_round_wins_minor, jackpot_contribution_micros, jackpot_wins_minor,
     tournament_payouts_minor, prize_drop_payouts_minor, ggy_gb_minor, ggy_non_gb_minor,
     billed_rounds, set_x1, set_x2, set_x3, set_x4)
  VALUES (op, d, sym, cur, (pg_backend_pid() % 16)::smallint, n_rounds, n_players, stakes, cancelled, rolled_back,
          wins, free_wins, jc, jackpot, tournament, prize_drop, ggy_gb, ggy_non_gb, n_billed, fp1, fp2, fp3, fp4)
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
         ggy_non_gb_minor = x.ggy_non_gb_minor + EXCLUDED.ggy_non_gb_minor,
         billed_rounds = x.billed_rounds + EXCLUDED.billed_rounds,
         set_x1 = x.set_x1 # EXCLUDED.set_x1, set_x2 = x.set_x2 # EXCLUDED.set_x2,
         set_x3 = x.set_x3 # EXCLUDED.set_x3, set_x4 = x.set_x4 # EXCLUDED.set_x4;
END;
$$ LANGUAGE plpgsql;

DROP FUNCTION report_round_move(integer, text, timestamptz, text, char, text, boolean, boolean, boolean, bigint,
                                bigint, bigint, bigint, bigint, bigint);
CREATE FUNCTION report_round_move(sign integer, op text, at timestamptz, sym text, cur char(3), player text,
                                  free boolean, gb boolean, counted boolean, stakes bigint, cancelled bigint,
                                  rolled_back bigint, credit bigint, jackpot bigint, jc bigint, billed boolean DEFAULT false,
                                  rid text DEFAULT NULL) RETURNS void AS $$
DECLARE
  d date;
  p integer := 0;
  ggy bigint := stakes - cancelled - rolled_back - credit - jackpot;
  fp bigint[] := ARRAY[0, 0, 0, 0]::bigint[];
BEGIN
  IF NOT counted AND stakes = 0 AND cancelled = 0 AND rolled_back = 0 AND credit = 0 AND jackpot = 0 AND jc = 0
     AND NOT billed THEN
    RETURN;
  END IF;
  d := report_day_of(op, at);
  IF billed THEN
    fp := report_round_fp(rid);
  END IF;
  IF counted THEN
    p := report_players_step(op, d, sym, cur, player, sign);
  END IF;
  PERFORM report_daily_add(op, d, sym, cur, sign * counted::int, p, sign * stakes, sign * cancelled,
                           sign * rolled_back, CASE WHEN free THEN 0 ELSE sign * credit END,
                           CASE WHEN free THEN sign * credit ELSE 0 END, sign * jc, sign * jackpot, 0, 0,
                           CASE WHEN gb THEN sign * ggy ELSE 0 END, CASE WHEN gb THEN 0 ELSE sign * ggy END,
                           CASE WHEN billed THEN sign ELSE 0 END, fp[1], fp[2], fp[3], fp[4]);
END;
$$ LANGUAGE plpgsql;

-- The recount: as migration 41's, and the round's membership of its day's billed set follows
-- rpt_billed (the fingerprint XORed in when it becomes billed, out when it stops).
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
  fp bigint[] := ARRAY[0, 0, 0, 0]::bigint[];
BEGIN
  SELECT xmin = pg_current_xact_id()::xid AS written, operator_id, created_at, currency, rpt_symbol, rpt_player_id,
         rpt_free, rpt_gb, rpt_counted, rpt_billed, rpt_stakes_minor, rpt_cancelled_minor, rpt_rolled_back_minor,
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
    IF (cur.rpt_gb, cur.rpt_counted, cur.rpt_billed, cur.rpt_player_id, cur.rpt_stakes_minor, cur.rpt_cancelled_minor,
        cur.rpt_rolled_back_minor, cur.rpt_credit_minor, cur.rpt_jackpot_minor, cur.rpt_jc_micros)
       IS NOT DISTINCT FROM (r.gb, counted, s.billed, r.player_id, s.debit, s.cancelled, s.rolled_back, s.credit, s.jackpot, jc) THEN
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
    IF s.billed <> cur.rpt_billed THEN
      fp := report_round_fp(id);
    END IF;
    PERFORM report_daily_add(r.operator_id, d, r.symbol, r.currency, counted::int - cur.rpt_counted::int, p,
                             s.debit - cur.rpt_stakes_minor, s.cancelled - cur.rpt_cancelled_minor,
                             s.rolled_back - cur.rpt_rolled_back_minor,
                             CASE WHEN r.free THEN 0 ELSE s.credit - cur.rpt_credit_minor END,
                             CASE WHEN r.free THEN s.credit - cur.rpt_credit_minor ELSE 0 END,
                             jc - cur.rpt_jc_micros, s.jackpot - cur.rpt_jackpot_minor, 0, 0,
                             CASE WHEN r.gb THEN ggy_new ELSE 0 END - CASE WHEN cur.rpt_gb THEN ggy_old ELSE 0 END,
                             CASE WHEN r.gb THEN 0 ELSE ggy_new END - CASE WHEN cur.rpt_gb THEN 0 ELSE ggy_old END,
                             s.billed::int - cur.rpt_billed::int, fp[1], fp[2], fp[3], fp[4]);
    RETURN;
  END IF;
  -- A new round, or one whose day, title or currency changed (never done by the platform): out of
  -- where it was, into where it is.
  IF had AND cur.rpt_symbol IS NOT NULL THEN
    PERFORM report_round_move(-1, cur.operator_id, cur.created_at, cur.rpt_symbol, cur.currency, cur.rpt_player_id,
                              cur.rpt_free, cur.rpt_gb, cur.rpt_counted, cur.rpt_stakes_minor, cur.rpt_cancelled_minor,
                              cur.rpt_rolled_back_minor, cur.rpt_credit_minor, cur.rpt_jackpot_minor, cur.rpt_jc_micros,
                              cur.rpt_billed, id);
  END IF;
  PERFORM report_round_move(1, r.operator_id, r.created_at, r.symbol, r.currency, r.player_id, r.free, r.gb, counted,
                            s.debit, s.cancelled, s.rolled_back, s.credit, s.jackpot, jc, s.billed, id);
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION report_round_deleted() RETURNS trigger AS $$
BEGIN
  IF OLD.rpt_symbol IS NOT NULL THEN
    PERFORM report_round_move(-1, OLD.operator_id, OLD.created_at, OLD.rpt_symbol, OLD.currency, OLD.rpt_player_id,
                              OLD.rpt_free, OLD.rpt_gb, OLD.rpt_counted, OLD.rpt_stakes_minor, OLD.rpt_cancelled_minor,
                              OLD.rpt_rolled_back_minor, OLD.rpt_credit_minor, OLD.rpt_jackpot_minor, OLD.rpt_jc_micros,
                              OLD.rpt_billed, OLD.round_id);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- The rebuild: as migration 41's, with the billed sets.
CREATE OR REPLACE FUNCTION report_rollup_rebuild(op text) RETURNS void AS $$
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
                            prize_drop_payouts_minor, ggy_gb_minor, ggy_non_gb_minor, billed_rounds, set_x1, set_x2,
                            set_x3, set_x4)
  SELECT op, day, symbol, currency, 0, sum(n), sum(players), sum(stakes), sum(cancelled), sum(rolled_back), sum(wins),
         sum(free_wins), sum(jc), sum(jackpot), sum(tournament), sum(prize_drop), sum(ggy_gb), sum(ggy_non_gb),
         sum(billed), bit_xor(x1), bit_xor(x2), bit_xor(x3), bit_xor(x4)
    FROM (
      SELECT (created_at AT TIME ZONE tz)::date AS day, rpt_symbol AS symbol, currency, rpt_counted::int AS n,
             0 AS players, rpt_stakes_minor AS stakes, rpt_cancelled_minor AS cancelled,
             rpt_rolled_back_minor AS rolled_back, CASE WHEN rpt_free THEN 0 ELSE rpt_credit_minor END AS wins,
             CASE WHEN rpt_free THEN rpt_credit_minor ELSE 0 END AS free_wins, rpt_jc_micros::numeric AS jc,
             rpt_jackpot_minor AS jackpot, 0 AS tournament, 0 AS prize_drop,
             CASE WHEN rpt_gb THEN rpt_stakes_minor - rpt_cancelled_minor - rpt_rolled_back_minor - rpt_credit_minor
                                   - rpt_jackpot_minor ELSE 0 END AS ggy_gb,
             CASE WHEN rpt_gb THEN 0 ELSE rpt_stakes_minor - rpt_cancelled_minor - rpt_rolled_back_minor
                                   - rpt_credit_minor - rpt_jackpot_minor END AS ggy_non_gb,
             rpt_billed::int AS billed, f.fp[1] AS x1, f.fp[2] AS x2, f.fp[3] AS x3, f.fp[4] AS x4
        FROM round_reconciliation,
             LATERAL (SELECT CASE WHEN rpt_billed THEN report_round_fp(round_id) ELSE ARRAY[0, 0, 0, 0]::bigint[] END
                        AS fp) f
       WHERE operator_id = op AND rpt_symbol IS NOT NULL
         AND (rpt_counted OR rpt_billed OR rpt_stakes_minor <> 0 OR rpt_cancelled_minor <> 0 OR rpt_rolled_back_minor <> 0
              OR rpt_credit_minor <> 0 OR rpt_jackpot_minor <> 0 OR rpt_jc_micros <> 0)
      UNION ALL
      SELECT day, symbol, currency, 0, count(*), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        FROM report_daily_players WHERE operator_id = op GROUP BY 1, 2, 3
      UNION ALL
      SELECT (created_at AT TIME ZONE tz)::date, symbol, currency, 0, 0, 0, 0, 0, 0, 0, 0, 0,
             CASE WHEN promo_type = 'tournament' THEN paid_minor ELSE 0 END,
             CASE WHEN promo_type = 'prize_drop' THEN paid_minor ELSE 0 END,
             CASE WHEN gb THEN -paid_minor ELSE 0 END, CASE WHEN gb THEN 0 ELSE -paid_minor END, 0, 0, 0, 0, 0
        FROM report_payouts WHERE operator_id = op AND paid_minor <> 0
    ) x
   GROUP BY day, symbol, currency;
END;
$$ LANGUAGE plpgsql;

-- The backfill: every operator's sums again, now with their billed sets.
SELECT report_rollup_rebuild(operator_id) FROM operators;

-- Down Migration
-- Migration 41's functions again, then the columns go.
DROP FUNCTION report_daily_add(text, date, text, char, bigint, bigint, bigint, bigint, bigint, bigint, bigint,
                               numeric, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint);
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
DROP FUNCTION report_round_move(integer, text, timestamptz, text, char, text, boolean, boolean, boolean, bigint,
                                bigint, bigint, bigint, bigint, bigint, boolean, text);
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
CREATE OR REPLACE FUNCTION report_round_deleted() RETURNS trigger AS $$
BEGIN
  IF OLD.rpt_symbol IS NOT NULL THEN
    PERFORM report_round_move(-1, OLD.operator_id, OLD.created_at, OLD.rpt_symbol, OLD.currency, OLD.rpt_player_id,
                              OLD.rpt_free, OLD.rpt_gb, OLD.rpt_counted, OLD.rpt_stakes_minor, OLD.rpt_cancelled_minor,
                              OLD.rpt_rolled_back_minor, OLD.rpt_credit_minor, OLD.rpt_jackpot_minor, OLD.rpt_jc_micros);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE OR REPLACE FUNCTION report_rollup_rebuild(op text) RETURNS void AS $$
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
DROP FUNCTION report_round_fp(text);
ALTER TABLE report_daily
  DROP COLUMN billed_rounds, DROP COLUMN set_x1, DROP COLUMN set_x2, DROP COLUMN set_x3, DROP COLUMN set_x4;
