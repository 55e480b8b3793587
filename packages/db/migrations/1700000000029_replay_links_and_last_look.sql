-- Up Migration
-- Issue 34. Additive only: the previous release's code runs on this schema unchanged.
--
-- 1. Revoked replay links (points 5 and 6, docs/audit-and-reconciliation.md "Replay links"): the
--    provider's admin revokes the links of one round or of one operator
--    (`POST /api/admin/v1/rounds/{round_id}/replay-links/revoke`,
--    `POST /api/admin/v1/operators/{operator_id}/replay-links/revoke`). A revocation ends every
--    link issued before `revoked_at`: a round's stable details link counts as issued with its round
--    (so a round revocation ends it for good, an operator revocation ends those of the operator's
--    rounds made before it), a share link by the issue time it carries. Links issued after it open.
--    A repeated revocation moves `revoked_at` forward. The replay page reads the one or two rows of
--    its round and operator by primary key.
CREATE TABLE replay_link_revocations (
  scope      text NOT NULL CHECK (scope IN ('round', 'operator')),
  subject_id text NOT NULL CHECK (char_length(subject_id) BETWEEN 1 AND 200),
  revoked_at timestamptz NOT NULL DEFAULT now(),
  reason     text CHECK (reason IS NULL OR char_length(reason) BETWEEN 1 AND 500),
  revoked_by text,
  PRIMARY KEY (scope, subject_id)
);

-- 2. No last look (point 2): a prize-drop award (promo_payouts, written with its round before the
--    round's debit) is shown only once its round's wager stands, so the reads find the award's
--    round by its payout id. Partial: an entry only for the rounds that won a prize, none for the
--    others (every index on rounds is a write per round, issue 27).
CREATE INDEX rounds_prize_drop_payout ON rounds (prize_drop_payout_id) WHERE prize_drop_payout_id IS NOT NULL;

-- Down Migration
DROP INDEX rounds_prize_drop_payout;
DROP TABLE replay_link_revocations;
