import type pg from 'pg';
import { withTransaction } from './pool.js';

/**
 * Rebuilds every round's reconciliation row from rounds and the journal, in one transaction: for
 * data loaded with triggers off (`pg_restore --disable-triggers`, `session_replication_role =
 * replica`), which skips the triggers that keep round_reconciliation (migration
 * 1700000000011_round_reconciliation) and the reports' rollup (migration 1700000000041). Safe to run
 * at any time; rows already right stay as they are (the rollup's sums are rebuilt).
 */
export async function rebuildRoundReconciliation(pool: pg.Pool): Promise<void> {
  await withTransaction(pool, async (c) => {
    await c.query(
      `INSERT INTO round_reconciliation (round_id, operator_id, created_at, currency, game_delta_minor)
       SELECT round_id, operator_id, created_at, currency, round_game_delta(status, bet_minor, win_minor + jackpot_win_minor) FROM rounds
       ON CONFLICT (round_id) DO UPDATE
         SET operator_id = EXCLUDED.operator_id, created_at = EXCLUDED.created_at, currency = EXCLUDED.currency,
             game_delta_minor = EXCLUDED.game_delta_minor
         WHERE (round_reconciliation.operator_id, round_reconciliation.created_at, round_reconciliation.currency,
                round_reconciliation.game_delta_minor)
               IS DISTINCT FROM (EXCLUDED.operator_id, EXCLUDED.created_at, EXCLUDED.currency, EXCLUDED.game_delta_minor)`,
    );
    await c.query(`SELECT round_reconciliation_refresh(ARRAY(SELECT round_id FROM rounds))`);
    // The reports' rollup (migration 1700000000041): each round's figures from the journal, then
    // every operator's daily sums rebuilt from them, set-based.
    await c.query(`SELECT report_rounds_backfill(NULL)`);
    await c.query(`SELECT report_rollup_rebuild(operator_id) FROM operators ORDER BY operator_id`);
  });
}
