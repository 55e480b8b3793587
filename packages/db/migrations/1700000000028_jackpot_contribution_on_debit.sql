-- Up Migration
-- Issue 34, point 1 (docs/jackpots-and-promotions.md, "A contribution counts once its debit
-- stands"): a spin's jackpot contribution goes into the pools in the transaction that records its
-- debit's success, never before. Until migration 27 the spin's own statement added it, so a wager
-- the wallet refused (insufficient funds, a blocked player) still grew the pools.
--
-- Expand only: the previous release's code runs unchanged on this schema.
--  * Its spin statement still adds the contribution itself and leaves the new column NULL: such a
--    round's contribution is already in the pools, so nothing below adds it again.
--  * Its workers record debits as before; the trigger on wallet_transactions applies a new
--    round's contribution whoever writes the success.
--  * A round of either code whose contribution is in the pools and whose wager then does not stand
--    (refused, rolled back, cancelled) has its contribution moved from the pools' contributions
--    to their seeds (the provider funds what stays in the pool: nothing taken out of a pool that
--    may already have paid it to a winner). Rounds that ended so before this migration are
--    treated the same way, below, so every pool's contributions are exactly those of the rounds
--    whose wager stood.

-- Where a round's contribution stands. NULL: no jackpot, or recorded by the code before this
-- migration (its statement added the contribution). `pending`: recorded since, not yet in the
-- pools. `applied`: in the pools (its debit succeeded). `void`: its wager never stood, so it
-- never went in. `reversed`: it had gone in and the wager did not stand: moved to the seeds.
ALTER TABLE rounds
  ADD COLUMN jackpot_contribution_state text
    CHECK (jackpot_contribution_state IN ('pending', 'applied', 'void', 'reversed'));

-- A level's rate never changes once defined (the admin API never updates it): a round's
-- contribution to each level is its stake × the level's rate, derived again when it is applied.
CREATE FUNCTION jackpot_levels_rate_immutable() RETURNS trigger AS $$
BEGIN
  IF NEW.rate_ppm IS DISTINCT FROM OLD.rate_ppm OR NEW.jackpot_id IS DISTINCT FROM OLD.jackpot_id
     OR NEW.level IS DISTINCT FROM OLD.level THEN
    RAISE EXCEPTION 'jackpot level %/% is immutable: its rate is what its contributors played for',
      OLD.jackpot_id, OLD.level USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER jackpot_levels_rate_immutable
  BEFORE UPDATE ON jackpot_levels
  FOR EACH ROW EXECUTE FUNCTION jackpot_levels_rate_immutable();

-- Applies a round's contribution (stake × rate per level) to its jackpot's pools in its currency,
-- through jackpot_pool_step (the cap's excess to the reserve), under the pools' row locks taken in
-- level order. Exactly once: only the statement that takes the round from `pending` applies it.
CREATE FUNCTION jackpot_contribution_apply() RETURNS trigger AS $$
DECLARE
  r record;
BEGIN
  UPDATE rounds SET jackpot_contribution_state = 'applied'
   WHERE round_id = NEW.round_id AND jackpot_contribution_state = 'pending'
     AND status NOT IN ('rejected', 'cancelled', 'rolled_back')
  RETURNING jackpot_id, currency, bet_minor INTO r;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  PERFORM 1 FROM jackpot_pools
    WHERE jackpot_id = r.jackpot_id AND currency = r.currency ORDER BY level FOR UPDATE;
  UPDATE jackpot_pools p
     SET (amount_micros, reserve_micros, contributions_micros, updated_at) =
         (SELECT f.new_amount, f.new_reserve, p.contributions_micros + r.bet_minor * l.rate_ppm, now()
            FROM jackpot_pool_step(p.amount_micros, p.reserve_micros, p.cap_minor, p.seed_minor,
                                   r.bet_minor * l.rate_ppm, false) f)
    FROM jackpot_levels l
   WHERE p.jackpot_id = r.jackpot_id AND p.currency = r.currency
     AND l.jackpot_id = p.jackpot_id AND l.level = p.level;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- Every writer records a debit's success by taking its journal row from pending (or, in loaders,
-- inserting it as a success). Only a contributing spin's debit names a jackpot in its exact body
-- (buildCallbackBody adds `"jackpot_contribution_micros":` to no other body; inside a JSON string
-- a quote is escaped, so the key cannot appear by accident), so other debits never run the function.
CREATE TRIGGER wallet_transactions_jackpot_contribution
  AFTER UPDATE OF status ON wallet_transactions
  FOR EACH ROW
  WHEN (NEW.transaction_type = 'debit' AND NEW.status = 'success' AND OLD.status = 'pending'
        AND strpos(NEW.request_body, '"jackpot_contribution_micros":') > 0)
  EXECUTE FUNCTION jackpot_contribution_apply();
CREATE TRIGGER wallet_transactions_jackpot_contribution_insert
  AFTER INSERT ON wallet_transactions
  FOR EACH ROW
  WHEN (NEW.transaction_type = 'debit' AND NEW.status = 'success'
        AND strpos(NEW.request_body, '"jackpot_contribution_micros":') > 0)
  EXECUTE FUNCTION jackpot_contribution_apply();

-- A round whose wager does not stand (the statement recording its refusal, rollback or cancel):
-- a pending contribution is void (it never went in); one in the pools (applied, or added by the
-- old statement) moves from contributions to seeds, so the pools' contributions stay exactly those
-- of the rounds whose debit stands, to the micro. A BEFORE trigger: the state changes in the same
-- row version as the status.
CREATE FUNCTION jackpot_contribution_unwind() RETURNS trigger AS $$
BEGIN
  IF NEW.jackpot_contribution_state = 'pending' THEN
    NEW.jackpot_contribution_state := 'void';
    RETURN NEW;
  END IF;
  IF NEW.jackpot_contribution_state IS NOT NULL AND NEW.jackpot_contribution_state <> 'applied' THEN
    RETURN NEW;
  END IF;
  NEW.jackpot_contribution_state := 'reversed';
  PERFORM 1 FROM jackpot_pools
    WHERE jackpot_id = NEW.jackpot_id AND currency = NEW.currency ORDER BY level FOR UPDATE;
  UPDATE jackpot_pools p
     SET contributions_micros = p.contributions_micros - NEW.bet_minor * l.rate_ppm,
         seeded_micros = p.seeded_micros + NEW.bet_minor * l.rate_ppm,
         updated_at = now()
    FROM jackpot_levels l
   WHERE p.jackpot_id = NEW.jackpot_id AND p.currency = NEW.currency
     AND l.jackpot_id = p.jackpot_id AND l.level = p.level;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER rounds_jackpot_contribution_unwind
  BEFORE UPDATE OF status ON rounds
  FOR EACH ROW
  WHEN (NEW.jackpot_id IS NOT NULL AND NEW.status IN ('rejected', 'cancelled', 'rolled_back')
        AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION jackpot_contribution_unwind();

-- Rounds that ended without their wager standing before this migration (the old statement had
-- added their contributions): moved to the seeds now, exactly as the trigger above does.
WITH gone AS (
  UPDATE rounds SET jackpot_contribution_state = 'reversed'
   WHERE jackpot_id IS NOT NULL AND jackpot_contribution_state IS NULL
     AND status IN ('rejected', 'cancelled', 'rolled_back')
  RETURNING jackpot_id, currency, bet_minor
), per_pool AS (
  SELECT g.jackpot_id, l.level, g.currency, sum(g.bet_minor::numeric * l.rate_ppm) AS micros
    FROM gone g JOIN jackpot_levels l ON l.jackpot_id = g.jackpot_id
   GROUP BY g.jackpot_id, l.level, g.currency
)
UPDATE jackpot_pools p
   SET contributions_micros = p.contributions_micros - x.micros,
       seeded_micros = p.seeded_micros + x.micros,
       updated_at = now()
  FROM per_pool x
 WHERE (p.jackpot_id, p.level, p.currency) = (x.jackpot_id, x.level, x.currency);

-- Refused wagers per player (the spin's refusal limit, docs/jackpots-and-promotions.md): the
-- spin's statement reads the player's latest refusals from this small index only.
CREATE INDEX wallet_transactions_debits_refused ON wallet_transactions (operator_id, player_id, completed_at)
  WHERE transaction_type = 'debit' AND status = 'failed' AND error_code IS DISTINCT FROM 'reversed_by_rollback';

-- Down Migration
DROP INDEX wallet_transactions_debits_refused;
DROP TRIGGER rounds_jackpot_contribution_unwind ON rounds;
DROP FUNCTION jackpot_contribution_unwind();
DROP TRIGGER wallet_transactions_jackpot_contribution_insert ON wallet_transactions;
DROP TRIGGER wallet_transactions_jackpot_contribution ON wallet_transactions;
DROP FUNCTION jackpot_contribution_apply();
DROP TRIGGER jackpot_levels_rate_immutable ON jackpot_levels;
DROP FUNCTION jackpot_levels_rate_immutable();
ALTER TABLE rounds DROP COLUMN jackpot_contribution_state;
