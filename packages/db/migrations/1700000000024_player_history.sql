-- Up Migration
-- The player's own history on the game pages (issue 26, docs/game-pages.md "History panel"):
-- `GET /api/runtime/history` pages one player's rounds with one operator, newest first by
-- (created_at, round_id), over the last 90 days, for the page's title (scope=title, the default)
-- or for every title (scope=all). All titles is a range of rounds_operator_player (migration 7:
-- operator_id, player_id, created_at, round_id), read backwards. One title needs the symbol before
-- the time, else a player's other titles are read and thrown away: this index, and no other (every
-- index on rounds is one more write per round, issue 27).
CREATE INDEX rounds_player_title_history ON rounds (operator_id, player_id, symbol, created_at, round_id);

-- Down Migration
DROP INDEX rounds_player_title_history;
