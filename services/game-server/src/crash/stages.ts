import type { Pool, PoolClient } from '@opi/db';
import { formatMultiplier } from '@opi/games';

/**
 * Appends one stage to round_stages (append-only): bet, start, cashout, crash, cancel, reject.
 * Call it while holding the crash round's row lock, so sequence numbers never collide.
 */
export async function appendStage(
  db: Pool | PoolClient,
  roundId: string,
  action: 'bet' | 'start' | 'cashout' | 'crash' | 'cancel' | 'reject',
  inputs: Record<string, unknown>,
  outcome: Record<string, unknown>,
  multiplierCents: number | null,
): Promise<void> {
  await db.query(
    `INSERT INTO round_stages (round_id, seq, action, inputs, outcome, multiplier)
     SELECT $1, coalesce(max(seq) + 1, 0), $2, $3, $4, $5 FROM round_stages WHERE round_id = $1`,
    [
      roundId,
      action,
      JSON.stringify(inputs),
      JSON.stringify(outcome),
      multiplierCents === null ? null : formatMultiplier(multiplierCents),
    ],
  );
}
