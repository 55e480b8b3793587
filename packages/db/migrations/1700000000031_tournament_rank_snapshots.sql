-- Up Migration
-- Issue 34 point 8 (docs/jackpots-and-promotions.md "A player's place"). Additive only: new tables,
-- nothing the previous release reads or writes changes.
--
-- A published snapshot of every live leaderboard, so that a player's place is two index seeks
-- instead of a count of everyone ahead. A game-server process (whichever holds the advisory lock
-- `pg_try_advisory_lock(31, 1)`, packages/play/src/promotions/rank-snapshots.ts) rebuilds it while a
-- tournament runs, at most every 15 s and every ten times its own duration, and only when
-- tournament_scores changed since. It empties the slot table not in use (TRUNCATE, its index
-- dropped), writes the boards into it, builds the index again, and points tournament_rank_snapshots
-- at that slot in the same transaction: readers see the old boards or the new ones, never a
-- half-built one. The slot in use is never emptied.
--
-- UNLOGGED: a rebuild writes no WAL (a million rows every 15 s would be most of the database's
-- WAL). After a crash PostgreSQL empties them; the place is then counted live over a bounded range
-- until the next rebuild (seconds). They hold nothing that is not in tournament_scores.
-- No autovacuum: rows are only inserted, into a table just emptied by TRUNCATE (no dead rows).
CREATE UNLOGGED TABLE tournament_rank_snapshot_0 (
  tournament_id text NOT NULL,
  currency char(3) NOT NULL,
  -- 1..n in the leaderboard's order (score DESC, score_reached_at, external_player_id COLLATE "C",
  -- operator_id COLLATE "C"), as the freeze ranks (workflows/src/promotions/activities.ts).
  rank integer NOT NULL,
  score numeric(38, 8) NOT NULL,
  score_reached_at timestamptz NOT NULL,
  external_player_id text NOT NULL,
  operator_id text NOT NULL
) WITH (autovacuum_enabled = false);
-- The leaderboard's order, with every tie-break: the last row ahead of any (score, time, player,
-- operator) is one seek.
CREATE INDEX tournament_rank_snapshot_0_board ON tournament_rank_snapshot_0
  (tournament_id, currency, score DESC, score_reached_at, external_player_id COLLATE "C", operator_id COLLATE "C");

CREATE UNLOGGED TABLE tournament_rank_snapshot_1 (LIKE tournament_rank_snapshot_0)
  WITH (autovacuum_enabled = false);
CREATE INDEX tournament_rank_snapshot_1_board ON tournament_rank_snapshot_1
  (tournament_id, currency, score DESC, score_reached_at, external_player_id COLLATE "C", operator_id COLLATE "C");

-- Which boards the snapshot holds, in which slot, as of when. One row per live board (tournament
-- and currency); every row names the same slot (all boards are rebuilt together).
CREATE UNLOGGED TABLE tournament_rank_snapshots (
  tournament_id text NOT NULL,
  currency char(3) NOT NULL,
  slot smallint NOT NULL CHECK (slot IN (0, 1)),
  entrants integer NOT NULL CHECK (entrants >= 0),
  -- The rebuild's snapshot time: the board as it stood then.
  built_at timestamptz NOT NULL,
  -- How long the rebuild of every board took (ms).
  build_ms integer NOT NULL,
  -- tournament_scores' insert + update + delete count (pg_stat_user_tables) when it was built: the
  -- next rebuild is skipped while it has not moved.
  scores_changes bigint,
  PRIMARY KEY (tournament_id, currency)
);

-- Down Migration
DROP TABLE tournament_rank_snapshots;
DROP TABLE tournament_rank_snapshot_1;
DROP TABLE tournament_rank_snapshot_0;
