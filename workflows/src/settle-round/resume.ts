import type { Pool } from '@opi/db';
import { journalCloseUnsentSql } from '@opi/wallet';
import type { RoundIntent } from '@opi/wallet/intent';
import type { Client } from '@temporalio/client';
import { startSettlement } from './start.js';

/**
 * Starts the settlement of slot rounds whose workflow never started. The game runtime commits the
 * round and its intent, then starts the round's workflow: an API process that dies in between
 * (SIGKILL, or a crash while PostgreSQL restarts), or a Temporal that does not answer the start,
 * leaves an open round that no workflow would ever settle — its session then refuses every
 * further spin. The intent is durable, so the settlement can start late: the same workflow id,
 * the same transaction ids; a start of a round that does have a workflow is a no-op.
 *
 * Candidates are prov_a and prov_b rounds still open after `olderThanSeconds` with nothing in the
 * journal but, for a journal-ahead round (the spin writes its debit's row with the round), that
 * debit row as it was written (a free round's credit row: it has no debit), and a credit-ahead
 * round's credit row too: pending, one attempt, no error recorded. A started settlement
 * journals its debit before its first send, and an attempt that failed records its error, so
 * such a round's settlement is very likely not running; if it is after all (a first attempt held
 * that long), the start attaches to it and changes nothing. Found by the reliability suite
 * (`bench/src/reliability`).
 */
export async function resumeUnstartedRounds(
  pool: Pool,
  client: Client,
  taskQueue: string,
  options: { olderThanSeconds?: number; limit?: number } = {},
): Promise<string[]> {
  const { rows } = await pool.query<{ round_id: string; intent: RoundIntent }>(
    // The first condition matches the rounds_in_flight partial index.
    `SELECT r.round_id, r.intent FROM rounds r
     WHERE (r.status IN ('open', 'settling') OR r.stuck) AND r.status = 'open'
       AND r.provider_id IN ('prov_a', 'prov_b')
       AND r.created_at < now() - make_interval(secs => $1)
       AND NOT EXISTS (
         SELECT 1 FROM wallet_transactions w WHERE w.round_id = r.round_id
            AND NOT ((w.transaction_type = (CASE WHEN r.intent ? 'freeRound' THEN 'credit' ELSE 'debit' END)
                      OR (w.transaction_type = 'credit' AND (r.intent ->> 'creditAhead') = 'true'))
                     AND w.status = 'pending' AND w.attempts = 1
                     AND w.last_error IS NULL AND (r.intent ->> 'journalAhead') = 'true'))
     ORDER BY r.created_at LIMIT $2`,
    [options.olderThanSeconds ?? 30, options.limit ?? 100],
  );
  const started: string[] = [];
  for (const row of rows) {
    await startSettlement(client, taskQueue, row.intent);
    started.push(row.round_id);
  }
  return started;
}

/**
 * Closes the never-sent credit rows of credit-ahead rounds that ended without their debit standing
 * (rejected, rolled back) but kept the row pending: rounds a worker of a release before credit
 * ahead settled (it knows no `creditAhead`, so its refusal or rollback statement left the row as
 * the spin wrote it; docs/settlement.md "Credit ahead"). Such a credit is never sent: the round
 * is over. Each row is closed as this release's own statement would have (`not_sent_debit_rejected`,
 * `not_sent_round_rolled_back`). Reads the journal's pending rows only (their partial index).
 */
export async function closeUnsentCredits(
  pool: Pool,
  options: { olderThanSeconds?: number; limit?: number } = {},
): Promise<string[]> {
  const { rows } = await pool.query<{ transaction_id: string; status: 'rejected' | 'rolled_back' }>(
    `SELECT w.transaction_id, r.status FROM wallet_transactions w JOIN rounds r ON r.round_id = w.round_id
     WHERE w.status = 'pending' AND w.transaction_type = 'credit' AND w.transaction_id = r.round_id || ':credit'
       AND w.created_at < now() - make_interval(secs => $1)
       AND r.status IN ('rejected', 'rolled_back') AND (r.intent ->> 'creditAhead') = 'true'
     ORDER BY w.created_at LIMIT $2`,
    [options.olderThanSeconds ?? 30, options.limit ?? 100],
  );
  const closed: string[] = [];
  for (const row of rows) {
    const reason = row.status === 'rejected' ? 'not_sent_debit_rejected' : 'not_sent_round_rolled_back';
    const { rowCount } = await pool.query(journalCloseUnsentSql('$1', reason), [row.transaction_id]);
    if (rowCount) closed.push(row.transaction_id);
  }
  return closed;
}

/** Runs resumeUnstartedRounds every `everyMs` (a worker does); returns the stopper. */
export function startRoundResumer(options: {
  pool: Pool;
  client: Client;
  taskQueue: string;
  everyMs?: number;
  olderThanSeconds?: number;
  log?: (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => void;
}): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    resumeUnstartedRounds(options.pool, options.client, options.taskQueue, {
      ...(options.olderThanSeconds !== undefined ? { olderThanSeconds: options.olderThanSeconds } : {}),
    })
      .then(async (ids) => {
        if (ids.length)
          options.log?.('warn', 'started the settlement of rounds left unstarted', { rounds: ids });
        const closed = await closeUnsentCredits(options.pool);
        if (closed.length)
          options.log?.('warn', 'closed the unsent credits of rounds an older worker ended', {
            transactions: closed,
          });
      })
      .catch((err: unknown) =>
        options.log?.('warn', 'resuming unstarted rounds failed', { error: String(err) }),
      )
      .finally(() => {
        running = false;
      });
  }, options.everyMs ?? 10_000);
  timer.unref();
  return () => clearInterval(timer);
}
