import { createHash, randomUUID } from 'node:crypto';
import { blocksBets, CONTRACT_VERSION } from '@opi/contract';
import type { Pool, SecretBox } from '@opi/db';
import { minorToDecimalNumber } from '@opi/money';
import { ApplicationFailure } from '@temporalio/activity';
import { sendWalletCallback } from '../wallet/send.js';
import type { RoundIntent } from './intent.js';

export interface SettlementDeps {
  pool: Pool;
  box: SecretBox;
  /** Per-attempt wallet timeout. */
  walletTimeoutMs: number;
  /** Attempts after which an unresolved transaction marks its round stuck. */
  stuckAfterAttempts: number;
  /** Reject http:// wallets (production). */
  requireHttps: boolean;
  log?: (level: 'warn' | 'error' | 'info', msg: string, fields: Record<string, unknown>) => void;
}

export type MoneyOperation = 'debit' | 'credit' | 'cancel' | 'rollback';

export interface WalletStepInput {
  intent: RoundIntent;
  operation: MoneyOperation;
  amountMinor: string;
  /** Round status to set in the same database transaction when this step succeeds. */
  roundStatusOnSuccess?: 'completed' | 'rolled_back' | 'cancelled';
  /** Round status to set when the wallet definitely rejects this step. */
  roundStatusOnRejection?: 'rejected';
}

export type WalletStepResult = { status: 'success'; balance: string } | { status: 'rejected'; error: string };

/** Errors the workflow distinguishes (listed as retryable types; never swallowed). */
export const WALLET_UNCERTAIN = 'WalletUncertain';
export const WALLET_CONFIG_FAULT = 'WalletConfigFault';
export const WALLET_NOT_CONFIGURED = 'WalletNotConfigured';
export const WALLET_REJECTED_RETRY = 'WalletRejectedRetry';

interface JournalRow {
  transaction_id: string;
  status: 'pending' | 'success' | 'failed';
  request_body: string;
  attempts: number;
  error_code: string | null;
  wallet_balance: string | null;
}

function transactionIdOf(intent: RoundIntent, op: MoneyOperation): string {
  return intent.transactions[op];
}

/** The callback body, built once: its bytes are journalled before the first send. */
export function buildCallbackBody(intent: RoundIntent, op: MoneyOperation, amountMinor: string): string {
  const minor = BigInt(amountMinor);
  const body: Record<string, unknown> = {
    contract_version: CONTRACT_VERSION,
    operator_id: intent.operatorId,
    player_id: intent.playerId,
    session_id: intent.sessionId,
    game_symbol: intent.gameSymbol,
    currency: intent.currency,
    request_id: randomUUID(),
    transaction_id: transactionIdOf(intent, op),
    round_id: intent.roundId,
    transaction_type: op,
    action_type: op === 'debit' || op === 'credit' ? intent.actionType : op,
    amount: minorToDecimalNumber(minor, intent.currency),
    amount_minor: Number(minor),
  };
  if (op === 'rollback') body.original_transaction_id = intent.transactions.debit;
  return JSON.stringify(body);
}

export function createSettlementActivities(deps: SettlementDeps) {
  const log = deps.log ?? (() => {});

  // Wallet URL and secret per operator, kept for a few seconds; a 401 drops the entry so a fixed
  // secret is picked up on the very next attempt.
  const walletCache = new Map<string, { url: string; secret: string; until: number }>();
  async function walletConfig(operatorId: string): Promise<{ url: string; secret: string }> {
    const hit = walletCache.get(operatorId);
    if (hit && hit.until > Date.now()) return hit;
    const fresh = await loadWalletConfig(operatorId);
    walletCache.set(operatorId, { ...fresh, until: Date.now() + 5_000 });
    return fresh;
  }

  async function loadWalletConfig(operatorId: string): Promise<{ url: string; secret: string }> {
    const { rows } = await deps.pool.query<{
      wallet_base_url: string | null;
      wallet_secret_enc: string | null;
    }>(`SELECT wallet_base_url, wallet_secret_enc FROM operators WHERE operator_id = $1`, [operatorId]);
    const row = rows[0];
    if (!row?.wallet_base_url || !row.wallet_secret_enc) {
      throw ApplicationFailure.retryable(
        `operator ${operatorId} has no wallet configured`,
        WALLET_NOT_CONFIGURED,
      );
    }
    if (deps.requireHttps && !row.wallet_base_url.startsWith('https://')) {
      throw ApplicationFailure.retryable(`operator ${operatorId} wallet is not HTTPS`, WALLET_NOT_CONFIGURED);
    }
    return { url: row.wallet_base_url, secret: deps.box.decrypt(row.wallet_secret_enc) };
  }

  /**
   * A rollback or cancel names the round's debit, so the debit needs a journal row. It has none
   * only when no debit attempt got as far as the journal (the database was unreachable through
   * the whole debit budget of a prov_a round): journal first means such a debit was never sent.
   * Its row is written then, never attempted (attempts 0), so that the compensation can be
   * journalled and still sent — the wallet's tombstone refuses a debit that might yet arrive —
   * instead of failing on the foreign key forever, leaving the round open and unflagged.
   */
  async function journalOriginalDebit(intent: RoundIntent): Promise<void> {
    const body = buildCallbackBody(intent, 'debit', intent.stakeMinor);
    await deps.pool.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, request_body, request_hash, attempts)
       VALUES ($1, $2, $3, $4, $5, $6, 'debit', $7, $8, $9, $10, 0)
       ON CONFLICT (transaction_id) DO NOTHING`,
      [
        intent.transactions.debit,
        intent.operatorId,
        intent.sessionId,
        intent.roundId,
        intent.playerId,
        intent.gameSymbol,
        intent.stakeMinor,
        intent.currency,
        body,
        createHash('sha256').update(body).digest('hex'),
      ],
    );
  }

  /**
   * Journal first: the pending row with its exact body is written (once) before any send; every
   * attempt sends the stored bytes. A terminal row is answered from the journal without calling
   * the wallet again.
   */
  async function claimAttempt(input: WalletStepInput): Promise<JournalRow> {
    const { intent, operation, amountMinor } = input;
    if (operation === 'rollback' || operation === 'cancel') await journalOriginalDebit(intent);
    const body = buildCallbackBody(intent, operation, amountMinor);
    const { rows } = await deps.pool.query<JournalRow>(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, original_transaction_id, request_body, request_hash, attempts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 1)
       ON CONFLICT (transaction_id) DO UPDATE
         SET attempts = CASE WHEN wallet_transactions.status = 'pending'
                             THEN wallet_transactions.attempts + 1 ELSE wallet_transactions.attempts END,
             updated_at = now()
       RETURNING transaction_id, status, request_body, attempts, error_code, wallet_balance`,
      [
        transactionIdOf(intent, operation),
        intent.operatorId,
        intent.sessionId,
        intent.roundId,
        intent.playerId,
        intent.gameSymbol,
        operation,
        amountMinor,
        intent.currency,
        operation === 'rollback' || operation === 'cancel' ? intent.transactions.debit : null,
        body,
        createHash('sha256').update(body).digest('hex'),
      ],
    );
    return rows[0]!;
  }

  /**
   * The outcome, the round's status, (for a successful rollback) the reversed debit and (for a
   * debit refused with a code that blocks bets: self_excluded, session_time_limit, player_blocked
   * or an unknown code) the session's bets block, in one statement: one round trip, atomic. The
   * block is set only by the statement that records the refusal (a replay of a recorded outcome
   * changes nothing), so a relaunch that cleared it is not undone by a retried activity.
   */
  async function recordOutcome(
    input: WalletStepInput,
    txId: string,
    outcome: { status: 'success' | 'failed'; balance?: string; error?: string; httpStatus?: number },
  ): Promise<void> {
    const roundStatus =
      (outcome.status === 'success' ? input.roundStatusOnSuccess : input.roundStatusOnRejection) ?? null;
    const reversesDebit = input.operation === 'rollback' && outcome.status === 'success';
    const blocksSession =
      input.operation === 'debit' &&
      outcome.status === 'failed' &&
      outcome.error !== undefined &&
      blocksBets(outcome.error);
    await deps.pool.query(
      `WITH tx AS (
         UPDATE wallet_transactions SET status = $2, wallet_balance = $3, error_code = $4, http_status = $5,
                last_error = NULL, completed_at = now(), updated_at = now()
         WHERE transaction_id = $1 AND status = 'pending' RETURNING 1
       ), rd AS (
         UPDATE rounds SET status = $6, stuck = false, updated_at = now(), settled_at = now(),
                win_minor = CASE WHEN $6 = 'completed' THEN $7::bigint ELSE win_minor END
         WHERE $6::text IS NOT NULL AND round_id = $8 RETURNING 1
       ), rb AS (
         -- The reversed debit's outcome is unknown and now irrelevant: it can no longer be pending.
         UPDATE wallet_transactions SET status = 'failed', error_code = 'reversed_by_rollback',
                completed_at = now(), updated_at = now()
         WHERE $9::boolean AND transaction_id = $10 AND status = 'pending' RETURNING 1
       ), sb AS (
         -- Player protection: the session takes no bets until the operator relaunches it.
         UPDATE sessions SET bets_blocked_code = $4, bets_blocked_at = now(), bets_blocked_round_id = $8
         WHERE $11::boolean AND session_id = $12 AND EXISTS (SELECT 1 FROM tx) RETURNING 1
       )
       SELECT (SELECT count(*) FROM tx) AS tx, (SELECT count(*) FROM rd) AS rd, (SELECT count(*) FROM rb) AS rb,
              (SELECT count(*) FROM sb) AS sb`,
      [
        txId,
        outcome.status,
        outcome.balance ?? null,
        outcome.error ?? null,
        outcome.httpStatus ?? null,
        roundStatus,
        input.operation === 'credit' ? input.amountMinor : '0',
        input.intent.roundId,
        reversesDebit,
        input.intent.transactions.debit,
        blocksSession,
        input.intent.sessionId,
      ],
    );
  }

  async function recordUnresolved(
    input: WalletStepInput,
    row: JournalRow,
    reason: string,
    httpStatus?: number,
  ) {
    await deps.pool.query(
      `UPDATE wallet_transactions SET last_error = $2, http_status = $3, updated_at = now()
       WHERE transaction_id = $1 AND status = 'pending'`,
      [row.transaction_id, reason.slice(0, 500), httpStatus ?? null],
    );
    if (row.attempts >= deps.stuckAfterAttempts) {
      await deps.pool.query(
        `UPDATE rounds SET stuck = true, updated_at = now() WHERE round_id = $1 AND NOT stuck`,
        [input.intent.roundId],
      );
    }
  }

  return {
    /** One wallet money step: debit, credit, cancel or rollback. */
    async walletStep(input: WalletStepInput): Promise<WalletStepResult> {
      const row = await claimAttempt(input);
      if (row.status === 'success') return { status: 'success', balance: row.wallet_balance ?? '' };
      if (row.status === 'failed') {
        if (input.operation === 'debit') return { status: 'rejected', error: row.error_code ?? 'rejected' };
        throw ApplicationFailure.nonRetryable(
          `journal holds a failed ${input.operation} ${row.transaction_id}`,
          'JournalInconsistent',
        );
      }

      const wallet = await walletConfig(input.intent.operatorId);
      const outcome = await sendWalletCallback({
        baseUrl: wallet.url,
        operation: input.operation,
        secret: wallet.secret,
        body: row.request_body,
        requestId: `${row.transaction_id}#${row.attempts}`,
        operatorId: input.intent.operatorId,
        ...(input.intent.trace ? { traceparent: input.intent.trace.traceparent } : {}),
        timeoutMs: deps.walletTimeoutMs,
      });
      log(outcome.kind === 'success' || outcome.kind === 'rejected' ? 'info' : 'warn', 'wallet callback', {
        operator_id: input.intent.operatorId,
        round_id: input.intent.roundId,
        transaction_id: row.transaction_id,
        transaction_type: input.operation,
        attempt: row.attempts,
        outcome: outcome.kind,
        http_status: outcome.httpStatus ?? null,
        // The operator's (or the page's) request that created the round, and its trace.
        origin_request_id: input.intent.trace?.requestId ?? null,
        trace_id: input.intent.trace?.traceparent.split('-')[1] ?? null,
      });
      switch (outcome.kind) {
        case 'success':
          await recordOutcome(input, row.transaction_id, {
            status: 'success',
            balance: outcome.balance,
            httpStatus: outcome.httpStatus,
          });
          return { status: 'success', balance: outcome.balance };
        case 'rejected':
          if (input.operation !== 'debit') {
            // Only a debit can be refused for good. A credit, rollback or cancel must land: the
            // row stays pending, the round shows as stuck, and the same body is sent again.
            log('error', `the wallet rejected a ${input.operation}; it stays pending and is retried`, {
              alert: true,
              operator_id: input.intent.operatorId,
              transaction_id: row.transaction_id,
              error: outcome.error,
            });
            await recordUnresolved(
              input,
              { ...row, attempts: Math.max(row.attempts, deps.stuckAfterAttempts) },
              `400 ${outcome.error}`,
              outcome.httpStatus,
            );
            throw ApplicationFailure.retryable(
              `wallet rejected ${input.operation}: ${outcome.error}`,
              WALLET_REJECTED_RETRY,
            );
          }
          await recordOutcome(input, row.transaction_id, {
            status: 'failed',
            error: outcome.error,
            httpStatus: outcome.httpStatus,
          });
          return { status: 'rejected', error: outcome.error };
        case 'config_fault':
          walletCache.delete(input.intent.operatorId);
          log('error', 'wallet configuration fault: the wallet refused our signature', {
            alert: true,
            operator_id: input.intent.operatorId,
            transaction_id: row.transaction_id,
            error: outcome.error,
          });
          await recordUnresolved(input, row, `401 ${outcome.error}`, outcome.httpStatus);
          throw ApplicationFailure.retryable(`wallet answered 401 ${outcome.error}`, WALLET_CONFIG_FAULT);
        case 'uncertain':
          await recordUnresolved(input, row, outcome.reason, outcome.httpStatus);
          throw ApplicationFailure.retryable(`uncertain wallet outcome: ${outcome.reason}`, WALLET_UNCERTAIN);
      }
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
