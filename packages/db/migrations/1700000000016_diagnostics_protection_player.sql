-- Up Migration
-- Wallet diagnostics (issue 18, item 4): a protection test player the operator's wallet always
-- refuses (a known self-excluded or blocked test account). The diagnostics' protection refusal
-- check debits it and expects a player-protection refusal; null: the check is not configured.
ALTER TABLE operators
  ADD COLUMN diagnostics_protection_player_id text
    CHECK (diagnostics_protection_player_id IS NULL
           OR (char_length(diagnostics_protection_player_id) BETWEEN 1 AND 64
               AND diagnostics_protection_player_id = btrim(diagnostics_protection_player_id)));

-- Down Migration
ALTER TABLE operators DROP COLUMN diagnostics_protection_player_id;
