import type { Pool, SecretBox } from '@opi/db';
import type { WalletNetworkPolicy } from './address-policy.js';
import { type JournalRow, type MoneyOperation, recordJournalUnresolved } from './journal.js';
import { sendWalletCallback } from './send.js';

/*
 * The one wallet step (docs/settlement.md): whatever owes the wallet a money callback (a round's
 * debit, credit, cancel or rollback; a promotional payout's credit) runs it the same way once its
 * journal row is in hand: an outcome the journal already holds is answered from it; otherwise the
 * operator's wallet address and secret, one signed send of the stored bytes, one log line, and the
 * answer classified. A success or a final refusal is recorded by the caller's own statement (the
 * journal row with what follows from it, in one transaction); anything else leaves the row pending
 * with its reason and is retried with the same bytes. No Temporal here: the activities turn a
 * `retry` or `fail` result into their failures.
 */

/** Failure types the workflows distinguish (listed as retryable types; never swallowed). */
export const WALLET_UNCERTAIN = 'WalletUncertain';
export const WALLET_CONFIG_FAULT = 'WalletConfigFault';
export const WALLET_NOT_CONFIGURED = 'WalletNotConfigured';
export const WALLET_REJECTED_RETRY = 'WalletRejectedRetry';
export const JOURNAL_INCONSISTENT = 'JournalInconsistent';

export interface WalletStepDeps {
  pool: Pool;
  box: SecretBox;
  /** Per-attempt wallet timeout. */
  walletTimeoutMs: number;
  /** Reject http:// wallets (production). */
  requireHttps: boolean;
  /**
   * Wallets on loopback and private networks allowed (address-policy.ts). Absent: allowed when
   * HTTPS is not required (outside production). Link-local and metadata addresses never are.
   */
  allowPrivateNetworks?: boolean;
  log?: (level: 'warn' | 'error' | 'info', msg: string, fields: Record<string, unknown>) => void;
}

export interface WalletCall {
  operation: MoneyOperation;
  operatorId: string;
  /** The round (or the payout) the row belongs to, for the log. */
  roundId: string;
  /** The journal row: claimed, or journalled ahead (pending, its bytes from the intent). */
  row: JournalRow;
  /** What the step is called in alerts and failures: `debit`, `promotional credit` ... */
  label: string;
  /** A refusal is final (a debit): recorded by `onRejected`. Otherwise the same bytes are sent again. */
  rejectionIsFinal: boolean;
  /** W3C trace context of the work that caused the step. */
  traceparent?: string;
  /** More fields for the callback's log line. */
  logFields?: Record<string, unknown>;
  /** Records the success (the journal row's outcome and what follows from it, one statement). */
  onSuccess(o: { balance: string; httpStatus: number }): Promise<void>;
  /** Records a final refusal. */
  onRejected?(o: { error: string; httpStatus: number }): Promise<void>;
  /**
   * After an unresolved attempt was recorded on the row: `attempts` counts it; `refused` when the
   * wallet refused a step that must land (a round is then shown stuck at once).
   */
  onUnresolved?(attempts: number, refused: boolean): Promise<void>;
}

export type WalletCallResult =
  /** `journalled`: the journal held the success already; nothing was sent. */
  | { status: 'success'; balance: string; journalled?: boolean }
  | { status: 'rejected'; error: string }
  /** Not settled yet: retried with the same bytes. */
  | { status: 'retry'; type: string; message: string }
  /** Never settles by retrying. */
  | { status: 'fail'; type: string; message: string };

export function createWalletStep(deps: WalletStepDeps) {
  const log = deps.log ?? (() => {});
  const network: WalletNetworkPolicy = { allowPrivate: deps.allowPrivateNetworks ?? !deps.requireHttps };

  // Wallet URL and secret per operator, kept for a few seconds; a configuration fault drops the
  // entry so a fixed secret is picked up on the very next attempt.
  const walletCache = new Map<string, { url: string; secret: string; until: number }>();
  async function walletConfig(
    operatorId: string,
  ): Promise<{ url: string; secret: string } | { status: 'retry'; type: string; message: string }> {
    const hit = walletCache.get(operatorId);
    if (hit && hit.until > Date.now()) return hit;
    const { rows } = await deps.pool.query<{
      wallet_base_url: string | null;
      wallet_secret_enc: string | null;
    }>(`SELECT wallet_base_url, wallet_secret_enc FROM operators WHERE operator_id = $1`, [operatorId]);
    const row = rows[0];
    if (!row?.wallet_base_url || !row.wallet_secret_enc)
      return {
        status: 'retry',
        type: WALLET_NOT_CONFIGURED,
        message: `operator ${operatorId} has no wallet configured`,
      };
    if (deps.requireHttps && !row.wallet_base_url.startsWith('https://'))
      return {
        status: 'retry',
        type: WALLET_NOT_CONFIGURED,
        message: `operator ${operatorId} wallet is not HTTPS`,
      };
    const fresh = { url: row.wallet_base_url, secret: deps.box.decrypt(row.wallet_secret_enc) };
    walletCache.set(operatorId, { ...fresh, until: Date.now() + 5_000 });
    return fresh;
  }

  async function unresolved(
    call: WalletCall,
    reason: string,
    httpStatus: number | undefined,
    refused = false,
  ): Promise<void> {
    await recordJournalUnresolved(deps.pool, call.row.transaction_id, reason, httpStatus);
    await call.onUnresolved?.(call.row.attempts, refused);
  }

  /** One wallet step on its journal row. Never throws for a wallet answer (the database may). */
  async function run(call: WalletCall): Promise<WalletCallResult> {
    const { row } = call;
    if (row.status === 'success')
      return { status: 'success', balance: row.wallet_balance ?? '', journalled: true };
    if (row.status === 'failed') {
      if (call.rejectionIsFinal) return { status: 'rejected', error: row.error_code ?? 'rejected' };
      return {
        status: 'fail',
        type: JOURNAL_INCONSISTENT,
        message: `journal holds a failed ${call.label} ${row.transaction_id}`,
      };
    }

    const wallet = await walletConfig(call.operatorId);
    if ('status' in wallet) return wallet;
    const outcome = await sendWalletCallback({
      baseUrl: wallet.url,
      operation: call.operation,
      secret: wallet.secret,
      body: row.request_body,
      requestId: `${row.transaction_id}#${row.attempts}`,
      operatorId: call.operatorId,
      ...(call.traceparent ? { traceparent: call.traceparent } : {}),
      timeoutMs: deps.walletTimeoutMs,
      network,
    });
    log(outcome.kind === 'success' || outcome.kind === 'rejected' ? 'info' : 'warn', 'wallet callback', {
      operator_id: call.operatorId,
      round_id: call.roundId,
      transaction_id: row.transaction_id,
      transaction_type: call.operation,
      attempt: row.attempts,
      outcome: outcome.kind,
      http_status: outcome.httpStatus ?? null,
      ...call.logFields,
    });
    switch (outcome.kind) {
      case 'success':
        await call.onSuccess({ balance: outcome.balance, httpStatus: outcome.httpStatus });
        return { status: 'success', balance: outcome.balance };
      case 'rejected':
        if (!call.rejectionIsFinal) {
          // Only a debit can be refused for good. A credit, rollback or cancel must land: the
          // row stays pending, shows as stuck, and the same body is sent again.
          log('error', `the wallet rejected a ${call.label}; it stays pending and is retried`, {
            alert: true,
            operator_id: call.operatorId,
            transaction_id: row.transaction_id,
            error: outcome.error,
          });
          await unresolved(call, `400 ${outcome.error}`, outcome.httpStatus, true);
          return {
            status: 'retry',
            type: WALLET_REJECTED_RETRY,
            message: `wallet rejected ${call.label}: ${outcome.error}`,
          };
        }
        await call.onRejected?.({ error: outcome.error, httpStatus: outcome.httpStatus });
        return { status: 'rejected', error: outcome.error };
      case 'config_fault': {
        walletCache.delete(call.operatorId);
        // A 401, or a wallet address the network policy refuses (nothing was sent): the intent is
        // kept and retried with the same body, so a corrected URL or secret settles it.
        const refused = outcome.httpStatus === undefined;
        log(
          'error',
          refused
            ? 'wallet configuration fault: the wallet URL names a refused address; nothing was sent'
            : 'wallet configuration fault: the wallet refused our signature',
          {
            alert: true,
            operator_id: call.operatorId,
            transaction_id: row.transaction_id,
            error: outcome.error,
            ...(refused ? { detail: outcome.message ?? null } : {}),
          },
        );
        const what = refused ? `${outcome.error}: ${outcome.message ?? ''}` : `401 ${outcome.error}`;
        await unresolved(call, what, outcome.httpStatus);
        return {
          status: 'retry',
          type: WALLET_CONFIG_FAULT,
          message: refused
            ? `wallet not called: ${outcome.message ?? outcome.error}`
            : `wallet answered 401 ${outcome.error}`,
        };
      }
      case 'uncertain':
        await unresolved(call, outcome.reason, outcome.httpStatus);
        return {
          status: 'retry',
          type: WALLET_UNCERTAIN,
          message: `uncertain wallet outcome: ${outcome.reason}`,
        };
    }
  }

  return { run, network };
}

export type WalletStep = ReturnType<typeof createWalletStep>;
