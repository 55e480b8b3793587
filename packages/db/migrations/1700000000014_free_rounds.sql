-- Up Migration
-- Free-round campaigns (issue 18): an operator grants players a number of rounds of given slot
-- titles at a fixed stake, paid by the provider (no debit). The campaign id is the operator's own
-- and its idempotency key; `request_hash` is the SHA-256 of the canonical create request, so a
-- repeat with another body is told apart (409).
CREATE TABLE free_round_campaigns (
  operator_id  text NOT NULL REFERENCES operators (operator_id),
  campaign_id  text NOT NULL,
  symbols      text[] NOT NULL,
  currency     char(3) NOT NULL,
  bet_minor    bigint NOT NULL CHECK (bet_minor > 0),
  rounds       integer NOT NULL CHECK (rounds > 0),
  valid_from   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  request_hash text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  cancelled_at timestamptz,
  PRIMARY KEY (operator_id, campaign_id),
  CHECK (expires_at > valid_from)
);
CREATE INDEX free_round_campaigns_list ON free_round_campaigns (operator_id, created_at, campaign_id);

-- One row per player of a campaign: rounds granted and used, and what the credits paid. A round is
-- counted (rounds_used + 1) in the transaction that records it; won_minor grows in the statement
-- that records its credit's success, so won totals always equal the credits.
CREATE TABLE free_round_grants (
  operator_id        text NOT NULL,
  campaign_id        text NOT NULL,
  external_player_id text NOT NULL,
  rounds_total       integer NOT NULL CHECK (rounds_total > 0),
  rounds_used        integer NOT NULL DEFAULT 0 CHECK (rounds_used >= 0 AND rounds_used <= rounds_total),
  won_minor          bigint NOT NULL DEFAULT 0 CHECK (won_minor >= 0),
  created_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (operator_id, campaign_id, external_player_id),
  FOREIGN KEY (operator_id, campaign_id) REFERENCES free_round_campaigns (operator_id, campaign_id)
);
CREATE INDEX free_round_grants_player ON free_round_grants (operator_id, external_player_id);

-- A free round is recorded with bet 0; its campaign and stake are kept beside it.
ALTER TABLE rounds ADD COLUMN free_round_campaign_id text, ADD COLUMN free_round_bet_minor bigint;
CREATE INDEX rounds_free_round ON rounds (operator_id, created_at) WHERE free_round_campaign_id IS NOT NULL;

-- The player declined the free rounds in this session: paid spins are allowed again.
ALTER TABLE sessions ADD COLUMN free_rounds_declined_at timestamptz;

-- Down Migration
ALTER TABLE sessions DROP COLUMN free_rounds_declined_at;
DROP INDEX rounds_free_round;
ALTER TABLE rounds DROP COLUMN free_round_bet_minor, DROP COLUMN free_round_campaign_id;
DROP TABLE free_round_grants;
DROP TABLE free_round_campaigns;
