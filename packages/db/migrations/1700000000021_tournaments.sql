-- Up Migration
-- Tournaments and promotional payouts (issue 25, docs/jackpots-and-promotions.md).
--
-- A tournament: slot titles, the operators that opted in, per currency a minimum stake and a prize
-- table. Its scores are kept by the transaction that records a round's outcome (the trigger at the
-- end), so a round counts once it is settled, and a cancelled, rejected or rolled-back round never
-- counts. At its end the leaderboard is frozen in one statement (tournament_standings) with one
-- promo_payouts row per prize; each payout is a `credit` with `action_type: promo_win`, journalled
-- in wallet_transactions like every credit, with the payout id as its round reference.
CREATE TABLE tournaments (
  tournament_id text PRIMARY KEY CHECK (tournament_id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  -- `max_multiplier`: the best single round's win / stake; `total_win`: the sum of the wins.
  scoring text NOT NULL CHECK (scoring IN ('max_multiplier', 'total_win')),
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  -- scheduled -> running -> ended (leaderboard frozen, payouts written) -> paid; or cancelled
  -- (only before its end: a cancelled tournament pays nothing).
  status text NOT NULL DEFAULT 'scheduled'
    CHECK (status IN ('scheduled', 'running', 'ended', 'paid', 'cancelled')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  frozen_at timestamptz,
  paid_at timestamptz,
  CHECK (ends_at > starts_at),
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
  CHECK ((status IN ('ended', 'paid')) = (frozen_at IS NOT NULL)),
  CHECK ((status = 'paid') = (paid_at IS NOT NULL))
);
-- The scoring trigger's one lookup: the tournaments not yet over (few at any time).
CREATE INDEX tournaments_live ON tournaments (starts_at) WHERE status IN ('scheduled', 'running');

CREATE TABLE tournament_titles (
  tournament_id text NOT NULL REFERENCES tournaments (tournament_id),
  symbol text NOT NULL REFERENCES games (symbol),
  PRIMARY KEY (tournament_id, symbol)
);
CREATE INDEX tournament_titles_symbol ON tournament_titles (symbol);

-- Who takes part: the operators that opted in (like jackpot_operators).
CREATE TABLE tournament_operators (
  tournament_id text NOT NULL REFERENCES tournaments (tournament_id),
  operator_id text NOT NULL REFERENCES operators (operator_id),
  opted_in boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tournament_id, operator_id)
);
CREATE INDEX tournament_operators_operator ON tournament_operators (operator_id) WHERE opted_in;

-- The currencies it runs in, each its own leaderboard, with the minimum stake a round needs to count.
CREATE TABLE tournament_currencies (
  tournament_id text NOT NULL REFERENCES tournaments (tournament_id),
  currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  min_stake_minor bigint NOT NULL CHECK (min_stake_minor BETWEEN 1 AND 1000000000000),
  PRIMARY KEY (tournament_id, currency)
);

CREATE TABLE tournament_prizes (
  tournament_id text NOT NULL,
  currency char(3) NOT NULL,
  rank integer NOT NULL CHECK (rank BETWEEN 1 AND 100),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0 AND amount_minor <= 1000000000000),
  PRIMARY KEY (tournament_id, currency, rank),
  FOREIGN KEY (tournament_id, currency) REFERENCES tournament_currencies (tournament_id, currency)
);

-- One row per player (operator and external id) and currency: the running score. Written only by
-- the scoring trigger. The last counted round's session and title are what the payout's callback
-- names (the contract's credit carries a session_id and a game_symbol).
CREATE TABLE tournament_scores (
  tournament_id text NOT NULL REFERENCES tournaments (tournament_id),
  currency char(3) NOT NULL,
  operator_id text NOT NULL REFERENCES operators (operator_id),
  external_player_id text NOT NULL,
  player_id text NOT NULL REFERENCES players (player_id),
  -- Copied from the tournament (the upsert's conflict branch cannot join it).
  scoring text NOT NULL CHECK (scoring IN ('max_multiplier', 'total_win')),
  score numeric(38, 8) NOT NULL CHECK (score >= 0),
  -- When the score was set (the settled-at time of the round that set it): the first tie-break.
  score_reached_at timestamptz NOT NULL,
  best_round_id text NOT NULL,
  last_round_id text NOT NULL,
  last_session_id text NOT NULL,
  last_game_symbol text NOT NULL,
  rounds_counted integer NOT NULL CHECK (rounds_counted >= 1),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tournament_id, currency, operator_id, external_player_id)
);
CREATE INDEX tournament_scores_board ON tournament_scores (tournament_id, currency, score DESC, score_reached_at);

-- The frozen leaderboard (written once, at the end, by the freezing statement).
CREATE TABLE tournament_standings (
  tournament_id text NOT NULL REFERENCES tournaments (tournament_id),
  currency char(3) NOT NULL,
  rank integer NOT NULL CHECK (rank >= 1),
  operator_id text NOT NULL,
  external_player_id text NOT NULL,
  score numeric(38, 8) NOT NULL,
  score_reached_at timestamptz NOT NULL,
  rounds_counted integer NOT NULL,
  prize_minor bigint CHECK (prize_minor IS NULL OR prize_minor > 0),
  payout_id text,
  PRIMARY KEY (tournament_id, currency, rank),
  UNIQUE (tournament_id, currency, operator_id, external_player_id)
);

-- A promotional prize owed to a player: paid by one `credit` (action_type promo_win) whose
-- round_id is payout_id and whose transaction_id is payout_id || ':credit'.
-- payout_id: `pp_t_<tournament id>_<h>` (a tournament) or `pp_d_<drop id>_<h>` (a prize drop), h the
-- first 32 hex digits of sha256(operator_id || E'\n' || external_player_id || E'\n' || currency):
-- unique per promotion, player and currency (the UNIQUE below), at most 101 characters (ids fit
-- the journal and the contract's 256), and never showing a player id in a reference.
CREATE TABLE promo_payouts (
  payout_id text PRIMARY KEY CHECK (payout_id ~ '^pp_[td]_[a-z0-9][a-z0-9_-]{0,62}_[0-9a-f]{32}$'),
  promo_type text NOT NULL CHECK (promo_type IN ('tournament', 'prize_drop')),
  promo_id text NOT NULL,
  operator_id text NOT NULL REFERENCES operators (operator_id),
  external_player_id text NOT NULL CHECK (char_length(external_player_id) BETWEEN 1 AND 64),
  player_id text NOT NULL REFERENCES players (player_id),
  currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  -- The tournament rank (null for a prize drop).
  rank integer CHECK (rank IS NULL OR rank >= 1),
  session_id text NOT NULL,
  game_symbol text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid')),
  created_at timestamptz NOT NULL DEFAULT now(),
  paid_at timestamptz,
  CHECK ((status = 'paid') = (paid_at IS NOT NULL)),
  CHECK ((promo_type = 'tournament') = (rank IS NOT NULL)),
  UNIQUE (promo_type, promo_id, operator_id, external_player_id, currency)
);
CREATE INDEX promo_payouts_promo ON promo_payouts (promo_type, promo_id);
CREATE INDEX promo_payouts_pending ON promo_payouts (created_at) WHERE status = 'pending';

-- Definition changes reach every process's caches (migration 2).
CREATE TRIGGER tournaments_changed AFTER INSERT OR UPDATE OR DELETE ON tournaments
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER tournament_titles_changed AFTER INSERT OR UPDATE OR DELETE ON tournament_titles
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER tournament_operators_changed AFTER INSERT OR UPDATE OR DELETE ON tournament_operators
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER tournament_currencies_changed AFTER INSERT OR UPDATE OR DELETE ON tournament_currencies
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();
CREATE TRIGGER tournament_prizes_changed AFTER INSERT OR UPDATE OR DELETE ON tournament_prizes
  FOR EACH STATEMENT EXECUTE FUNCTION notify_config_change();

-- Scoring: a round counts in the transaction that records its outcome (completed). It counts for
-- every tournament not yet over whose window holds the settling time (now(): the round's
-- settled_at), whose titles include the round's title, whose opted-in operators include the
-- round's operator, which runs in the round's currency, when its stake is at least the minimum.
-- Free rounds (free_round_campaign_id set) never count: the operator paid their stake.
-- Each tournament a round counts for is held by a shared advisory lock (class 21, the id's hash)
-- until the round's transaction ends; the freezing transaction takes it exclusively before it
-- reads the scores. So a round counted before the end is always in the frozen leaderboard, and one
-- that comes during the freeze waits, then (re-reading the row under the lock) sees it ended. An
-- advisory lock lives in memory: nothing is written to the tournament's row per round (a row lock
-- would write and log its tuple, and share it between concurrent rounds as a MultiXact). Locks are
-- taken in id order, so two freezes and the rounds between them cannot deadlock.
CREATE FUNCTION tournament_count_round() RETURNS trigger AS $$
DECLARE
  t record;
  at timestamptz := coalesce(NEW.settled_at, now());
  points numeric(38, 8);
  ext text;
BEGIN
  FOR t IN
    SELECT tr.tournament_id, tr.scoring
      FROM tournaments tr
      JOIN tournament_titles tt ON tt.tournament_id = tr.tournament_id AND tt.symbol = NEW.symbol
      JOIN tournament_operators o ON o.tournament_id = tr.tournament_id AND o.operator_id = NEW.operator_id
                                 AND o.opted_in
      JOIN tournament_currencies c ON c.tournament_id = tr.tournament_id AND c.currency = NEW.currency
     WHERE tr.status IN ('scheduled', 'running') AND tr.starts_at <= at AND at < tr.ends_at
       AND NEW.bet_minor >= c.min_stake_minor
     ORDER BY tr.tournament_id
  LOOP
    PERFORM pg_advisory_xact_lock_shared(21, hashtext(t.tournament_id));
    -- Under the lock, a new snapshot: a freeze that committed meanwhile has ended it.
    PERFORM 1 FROM tournaments
      WHERE tournament_id = t.tournament_id AND status IN ('scheduled', 'running') AND at < ends_at;
    IF NOT FOUND THEN
      CONTINUE;
    END IF;
    IF ext IS NULL THEN
      SELECT external_player_id INTO ext FROM players WHERE player_id = NEW.player_id;
    END IF;
    points := CASE t.scoring
                WHEN 'max_multiplier' THEN round(NEW.win_minor::numeric / NEW.bet_minor, 8)
                ELSE NEW.win_minor::numeric
              END;
    INSERT INTO tournament_scores AS s
      (tournament_id, currency, operator_id, external_player_id, player_id, scoring, score, score_reached_at,
       best_round_id, last_round_id, last_session_id, last_game_symbol, rounds_counted)
    VALUES (t.tournament_id, NEW.currency, NEW.operator_id, ext, NEW.player_id, t.scoring, points, at,
            NEW.round_id, NEW.round_id, NEW.session_id, NEW.symbol, 1)
    ON CONFLICT (tournament_id, currency, operator_id, external_player_id) DO UPDATE
      SET score = CASE WHEN s.scoring = 'total_win' THEN s.score + EXCLUDED.score
                       ELSE greatest(s.score, EXCLUDED.score) END,
          -- The score's time and round change only when the score does.
          score_reached_at = CASE WHEN (s.scoring = 'total_win' AND EXCLUDED.score > 0)
                                    OR (s.scoring = 'max_multiplier' AND EXCLUDED.score > s.score)
                                  THEN EXCLUDED.score_reached_at ELSE s.score_reached_at END,
          best_round_id = CASE WHEN (s.scoring = 'total_win' AND EXCLUDED.score > 0)
                                 OR (s.scoring = 'max_multiplier' AND EXCLUDED.score > s.score)
                               THEN EXCLUDED.best_round_id ELSE s.best_round_id END,
          last_round_id = EXCLUDED.last_round_id,
          last_session_id = EXCLUDED.last_session_id,
          last_game_symbol = EXCLUDED.last_game_symbol,
          rounds_counted = s.rounds_counted + 1,
          updated_at = now();
  END LOOP;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- The WHEN clause does the filtering: a spin's other status changes, free rounds and zero stakes
-- never enter the function.
CREATE TRIGGER rounds_tournament_score
  AFTER UPDATE OF status ON rounds
  FOR EACH ROW
  WHEN (NEW.status = 'completed' AND OLD.status IS DISTINCT FROM 'completed'
        AND NEW.free_round_campaign_id IS NULL AND NEW.bet_minor > 0)
  EXECUTE FUNCTION tournament_count_round();

-- Down Migration
DROP TRIGGER rounds_tournament_score ON rounds;
DROP FUNCTION tournament_count_round();
DROP TABLE promo_payouts;
DROP TABLE tournament_standings;
DROP TABLE tournament_scores;
DROP TABLE tournament_prizes;
DROP TABLE tournament_currencies;
DROP TABLE tournament_operators;
DROP TABLE tournament_titles;
DROP TABLE tournaments;
