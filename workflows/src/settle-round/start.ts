import { currentTrace } from '@opi/config/trace';
import type { Pool, PoolClient } from '@opi/db';
import { journalEntry, journalInsertSql } from '@opi/wallet';
import type { RoundIntent, RoundOutcome } from '@opi/wallet/intent';
import { type Client, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import type { SettlementTuning, settleRound } from './workflow.js';

export interface RoundRecord {
  intent: RoundIntent;
  /** Internal player id (players.player_id). */
  playerPk: string;
  /** The game outcome (reels, stages, crash point ...), stored with the round. */
  outcome?: unknown;
}

/**
 * Writes the round and its settlement intent. Call it inside the same database transaction as
 * whatever else the spin writes, before the workflow starts: the intent exists before any send.
 * A journal-ahead intent gets its debit's pending journal row (its exact bytes) in the same
 * statement, and a credit-ahead one its credit's too.
 */
export async function recordRound(db: Pool | PoolClient, round: RoundRecord): Promise<void> {
  const intent = withTrace(round.intent);
  const debit = intent.journalAhead ? journalEntry(intent, 'debit', intent.stakeMinor) : null;
  // Credit ahead (a one-step spin's): the credit's row too, after the debit's (its created_at).
  const credit =
    debit && intent.creditAhead && intent.winMinor !== null
      ? journalEntry(intent, 'credit', intent.winMinor)
      : null;
  await db.query(
    `WITH ins AS (
       INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                           bet_minor, win_minor, intent, outcome)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', $8, 0, $9, $10) RETURNING round_id
     )${
       debit
         ? `, journal AS (
       ${roundJournalInsertSql({
         transactionId: '$11',
         type: `'debit'`,
         amountMinor: '$8',
         body: '$13',
         requestHash: '$14',
       })}
     )`
         : ''
     }${
       credit
         ? `, journal_credit AS (
       ${roundJournalInsertSql(
         { transactionId: '$15', type: `'credit'`, amountMinor: '$16', body: '$17', requestHash: '$18' },
         'clock_timestamp()',
       )}
     )`
         : ''
     } SELECT 1`,
    [
      intent.roundId,
      intent.operatorId,
      intent.sessionId,
      round.playerPk,
      intent.gameSymbol,
      intent.providerId,
      intent.currency,
      intent.stakeMinor,
      JSON.stringify(intent),
      round.outcome === undefined ? null : JSON.stringify(round.outcome),
      ...(debit ? [debit.transactionId, intent.playerId, debit.body, debit.requestHash] : []),
      ...(credit ? [credit.transactionId, intent.winMinor, credit.body, credit.requestHash] : []),
    ],
  );
}

/** A journal row's own values in roundJournalInsertSql: SQL expressions (parameters or literals). */
export type RoundJournalStep = Record<
  'transactionId' | 'type' | 'amountMinor' | 'body' | 'requestHash',
  string
>;

/**
 * The journal part of a statement that writes a round and its pending row(s) together (recordRound,
 * the slot spin's statement): the round's insert is the CTE `ins` (RETURNING round_id) and the
 * statement's parameters follow recordRound's layout for the round's columns ($2 operator, $3
 * session, $5 game symbol, $7 currency) and $12 for the player's id at the wallet. `createdAt`:
 * a credit written ahead takes clock_timestamp(), after its debit's now().
 */
export function roundJournalInsertSql(step: RoundJournalStep, createdAt?: string): string {
  return journalInsertSql(
    {
      ...step,
      operatorId: '$2',
      sessionId: '$3',
      roundId: 'round_id',
      playerId: '$12',
      gameSymbol: '$5',
      currency: '$7',
    },
    { from: 'ins', ...(createdAt ? { createdAt } : {}) },
  );
}

/**
 * The intent with the trace of the request being handled (if any and if it has none yet): the
 * worker's wallet callbacks for the round then carry that trace id and log that request id.
 */
export function withTrace(intent: RoundIntent): RoundIntent {
  if (intent.trace) return intent;
  const trace = currentTrace();
  if (!trace) return intent;
  return {
    ...intent,
    trace: { traceparent: trace.traceparent, ...(trace.requestId ? { requestId: trace.requestId } : {}) },
  };
}

export interface StartOptions {
  /**
   * Ask the server to hand the first workflow task back in the start response (eager workflow
   * start). Only honoured when `client` is built on the NativeConnection of a worker polling
   * `taskQueue` in this process with a free slot; otherwise the start is an ordinary one.
   */
  eager?: boolean;
}

/**
 * Starts the round's settlement workflow (workflow id = round id). A second start of a running
 * round attaches to it; a finished round is never run again.
 */
export async function startSettlement(
  client: Client,
  taskQueue: string,
  intent: RoundIntent,
  tuning?: Partial<SettlementTuning>,
  options: StartOptions = {},
): Promise<WorkflowHandle<typeof settleRound> & { eagerlyStarted?: boolean }> {
  try {
    return await client.workflow.start<typeof settleRound>('settleRound', {
      taskQueue,
      workflowId: intent.roundId,
      args: [{ intent: withTrace(intent), ...(tuning ? { tuning } : {}) }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      ...(options.eager ? { requestEagerStart: true } : {}),
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return client.workflow.getHandle(intent.roundId);
    throw err;
  }
}

/** Starts (or attaches to) a round's settlement and waits for its outcome. */
export async function settle(
  client: Client,
  taskQueue: string,
  intent: RoundIntent,
  tuning?: Partial<SettlementTuning>,
  options: StartOptions = {},
): Promise<RoundOutcome> {
  const handle = await startSettlement(client, taskQueue, intent, tuning, options);
  return handle.result();
}
