import { createHash } from 'node:crypto';
import { blocksBets, CONTRACT_VERSION } from '@opi/contract';
import { type Pool, prepared, type SecretBox } from '@opi/db';
import { minorToDecimalNumber } from '@opi/money';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { WalletNetworkPolicy } from '../wallet/address-policy.js';
import { sendWalletCallback } from '../wallet/send.js';
import { jackpotWinTransactionId, type RoundIntent, type RoundOutcome } from './intent.js';

export interface SettlementDeps {
  pool: Pool;
  box: SecretBox;
  /** Per-attempt wallet timeout. */
  walletTimeoutMs: number;
  /** Attempts after which an unresolved transaction marks its round stuck. */
  stuckAfterAttempts: number;
  /** Reject http:// wallets (production). */
  requireHttps: boolean;
  /**
   * Wallets on loopback and private networks allowed (address-policy.ts). Absent: allowed when
   * HTTPS is not required (outside production). Link-local and metadata addresses never are.
   */
  allowPrivateNetworks?: boolean;
  log?: (level: 'warn' | 'error' | 'info', msg: string, fields: Record<string, unknown>) => void;
  /**
   * Told a round's outcome once the statement recording its last money step has committed (see
   * local-outcomes.ts): the process that started the round can answer without the workflow's result.
   */
  announce?: (roundId: string, outcome: RoundOutcome) => void;
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
  /**
   * A credit paying this jackpot level's win (intent.jackpot.wins): its own transaction
   * (`<round>:jackpot:<level>`), `action_type: jackpot_win`. The round's status is not touched.
   */
  jackpotLevel?: string;
  /**
   * Claim the journal row even on the activity's first attempt (a step after the one-step first
   * attempt: its row may have been attempted, or even settled, already).
   */
  claim?: boolean;
}

export type WalletStepResult = { status: 'success'; balance: string } | { status: 'rejected'; error: string };

/** A step of the one-step first attempt: its result, or why it is not settled yet. */
export type FirstAttemptStep = WalletStepResult | { status: 'unsettled'; reason: string };

/** Errors the workflow distinguishes (listed as retryable types; never swallowed). */
export const WALLET_UNCERTAIN = 'WalletUncertain';
export const WALLET_CONFIG_FAULT = 'WalletConfigFault';
export const WALLET_NOT_CONFIGURED = 'WalletNotConfigured';
export const WALLET_REJECTED_RETRY = 'WalletRejectedRetry';
/** A cancel refused because the round's credit is already applied (the workflow credits on). */
export const CREDIT_ALREADY_APPLIED = 'CreditAlreadyApplied';

interface JournalRow {
  transaction_id: string;
  status: 'pending' | 'success' | 'failed';
  request_body: string;
  attempts: number;
  error_code: string | null;
  wallet_balance: string | null;
}

function transactionIdOf(intent: RoundIntent, op: MoneyOperation, jackpotLevel?: string): string {
  if (jackpotLevel !== undefined) return jackpotWinTransactionId(intent.roundId, jackpotLevel);
  return intent.transactions[op];
}

/**
 * The body's `request_id`: a UUID derived from the transaction id, so that the body's bytes follow
 * from the intent alone (a journal-ahead step sends its first attempt without reading its row).
 * Every attempt of a transaction carries the same body; `x-pp-request-id` names the attempt.
 */
export function callbackRequestId(transactionId: string): string {
  const h = createHash('sha256').update(`pp-request-id\n${transactionId}`).digest('hex');
  const variant = (8 | (Number.parseInt(h[16]!, 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The callback body: deterministic, journalled before the first send, resent unchanged. */
export function buildCallbackBody(
  intent: RoundIntent,
  op: MoneyOperation,
  amountMinor: string,
  jackpotLevel?: string,
): string {
  const minor = BigInt(amountMinor);
  const transactionId = transactionIdOf(intent, op, jackpotLevel);
  const body: Record<string, unknown> = {
    contract_version: CONTRACT_VERSION,
    operator_id: intent.operatorId,
    player_id: intent.playerId,
    session_id: intent.sessionId,
    game_symbol: intent.gameSymbol,
    currency: intent.currency,
    request_id: callbackRequestId(transactionId),
    transaction_id: transactionId,
    round_id: intent.roundId,
    transaction_type: op,
    action_type: op === 'debit' || op === 'credit' ? intent.actionType : op,
    amount: minorToDecimalNumber(minor, intent.currency),
    amount_minor: Number(minor),
  };
  if (op === 'rollback') body.original_transaction_id = intent.transactions.debit;
  if (intent.freeRound && op === 'credit') {
    // Optional additions to the callback body for a free round's credit (issue 18).
    body.action_type = 'free_round';
    body.campaign_id = intent.freeRound.campaignId;
    if (intent.freeRound.last) body.free_round_last = true;
  }
  if (intent.jackpot && op === 'debit') {
    // Optional additions to a contributing spin's debit (issue 25): the contribution is in
    // millionths of a minor unit, a decimal string (exact at any stake).
    body.jackpot_id = intent.jackpot.jackpotId;
    body.jackpot_contribution_micros = intent.jackpot.contributionMicros;
  }
  if (intent.jackpot && jackpotLevel !== undefined) {
    body.action_type = 'jackpot_win';
    body.jackpot_id = intent.jackpot.jackpotId;
    body.jackpot_level = jackpotLevel;
  }
  if (intent.detailsUrl && op === 'credit' && jackpotLevel === undefined && !intent.freeRound) {
    // Optional addition to the round's own credit (issue 26; as Playtech's round details URL): its
    // stable replay page, from the intent (the game server fixed it with the round), so every
    // attempt of the credit, in any process, carries the same bytes. Not on a jackpot_win credit
    // (the round's credit has it), nor on a free round's credit (journalled ahead with the round;
    // the audit API still gives the link).
    body.round_details_url = intent.detailsUrl;
  }
  return JSON.stringify(body);
}

/** A step's journal entry as first written: its id, its exact body and the body's SHA-256. */
export function journalEntry(
  intent: RoundIntent,
  op: MoneyOperation,
  amountMinor: string,
  jackpotLevel?: string,
): { transactionId: string; body: string; requestHash: string } {
  // A spin's process builds the same entry more than once (the debit: when the round is recorded,
  // when the workflow starts and when it is sent; the credit: when its row is written and when it
  // is sent). The key holds every input of buildCallbackBody, so a hit is the same bytes.
  const key = entryKey(intent, op, amountMinor, jackpotLevel);
  const known = entries.get(key);
  if (known) return known;
  const body = buildCallbackBody(intent, op, amountMinor, jackpotLevel);
  const entry = {
    transactionId: transactionIdOf(intent, op, jackpotLevel),
    body,
    requestHash: createHash('sha256').update(body).digest('hex'),
  };
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
  entries.set(key, entry);
  return entry;
}
const MAX_ENTRIES = 2048;
const entries = new Map<string, { transactionId: string; body: string; requestHash: string }>();

/** Every input of buildCallbackBody, as one string (journalEntry's memory key). */
export function entryKey(
  intent: RoundIntent,
  op: MoneyOperation,
  amountMinor: string,
  jackpotLevel?: string,
): string {
  const fr = intent.freeRound;
  const jp = intent.jackpot;
  return [
    op,
    amountMinor,
    jackpotLevel ?? '-',
    intent.roundId,
    intent.transactions[op],
    intent.transactions.debit,
    intent.operatorId,
    intent.playerId,
    intent.sessionId,
    intent.gameSymbol,
    intent.currency,
    intent.actionType,
    fr ? `${fr.campaignId}:${fr.last}` : '-',
    jp ? `${jp.jackpotId}:${jp.contributionMicros}` : '-',
    intent.detailsUrl ?? '-',
  ].join('\u0000');
}

/** Whether this is the activity's first attempt (false outside an activity). */
function firstAttempt(): boolean {
  try {
    return Context.current().info.attempt === 1;
  } catch {
    return false;
  }
}

export function createSettlementActivities(deps: SettlementDeps) {
  const log = deps.log ?? (() => {});
  const network: WalletNetworkPolicy = { allowPrivate: deps.allowPrivateNetworks ?? !deps.requireHttps };

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
   * A journal-ahead round's debit, and a single-step one's credit, had their pending rows written
   * before this step could run (with the round; with the debit's success). On the first attempt the
   * row is not read again: its bytes follow from the intent. A later attempt claims it as usual
   * (counts the attempt, and answers a recorded outcome from the journal). A first attempt run
   * again after a worker died resends the same bytes; the wallet answers the stored result.
   */
  function journalledAhead(input: WalletStepInput): boolean {
    const { intent, operation } = input;
    if (!intent.journalAhead || input.claim || input.jackpotLevel !== undefined) return false;
    if (operation !== 'debit' && !(operation === 'credit' && intent.winMinor !== null)) return false;
    return firstAttempt();
  }

  function aheadRow(input: WalletStepInput): JournalRow {
    const entry = journalEntry(input.intent, input.operation, input.amountMinor);
    return {
      transaction_id: entry.transactionId,
      status: 'pending',
      request_body: entry.body,
      attempts: 1,
      error_code: null,
      wallet_balance: null,
    };
  }

  /**
   * Journal first: the pending row with its exact body is written (once) before any send; every
   * attempt sends the stored bytes. A terminal row is answered from the journal without calling
   * the wallet again.
   */
  async function claimAttempt(input: WalletStepInput): Promise<JournalRow> {
    const { intent, operation, amountMinor } = input;
    if (operation === 'rollback' || operation === 'cancel') await journalOriginalDebit(intent);
    const body = buildCallbackBody(intent, operation, amountMinor, input.jackpotLevel);
    const { rows } = await deps.pool.query<JournalRow>(
      prepared(
        `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, original_transaction_id, request_body, request_hash, attempts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 1)
       ON CONFLICT (transaction_id) DO UPDATE
         SET attempts = CASE WHEN wallet_transactions.status = 'pending'
                             THEN wallet_transactions.attempts + 1 ELSE wallet_transactions.attempts END,
             updated_at = now()
       RETURNING transaction_id, status, request_body, attempts, error_code, wallet_balance`,
        [
          transactionIdOf(intent, operation, input.jackpotLevel),
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
      ),
    );
    return rows[0]!;
  }

  /**
   * The outcome and, in the same statement (one round trip, atomic), what follows from it: the
   * round's status; for a successful rollback, the reversed debit; for a debit refused with a code
   * that blocks bets (self_excluded, session_time_limit, player_blocked or an unknown code), the
   * session's bets block; for a journal-ahead round, the credit's pending row with a debit's
   * success (the credit is then sent without a claim of its own), or that credit row voided with a
   * cancel's success (a cancelled round never sends its credit). The block is set only by the
   * statement that records the refusal (a replay of a recorded outcome changes nothing), so a
   * relaunch that cleared it is not undone by a retried activity. Only the parts that apply are
   * in the statement: a data-modifying part that changes nothing still runs its table's triggers.
   */
  async function recordOutcome(
    input: WalletStepInput,
    txId: string,
    outcome: { status: 'success' | 'failed'; balance?: string; error?: string; httpStatus?: number },
  ): Promise<void> {
    const { intent } = input;
    const roundStatus =
      (outcome.status === 'success' ? input.roundStatusOnSuccess : input.roundStatusOnRejection) ?? null;
    const params: unknown[] = [
      txId,
      outcome.status,
      outcome.balance ?? null,
      outcome.error ?? null,
      outcome.httpStatus ?? null,
    ];
    const p = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const parts = [
      `tx AS (
         UPDATE wallet_transactions SET status = $2, wallet_balance = $3, error_code = $4, http_status = $5,
                last_error = NULL, completed_at = now(), updated_at = now()
         WHERE transaction_id = $1 AND status = 'pending' RETURNING 1
       )`,
    ];
    if (roundStatus !== null) {
      const win =
        roundStatus === 'completed'
          ? `${p(input.operation === 'credit' ? input.amountMinor : '0')}::bigint`
          : 'win_minor';
      parts.push(`rd AS (
         UPDATE rounds SET status = ${p(roundStatus)}, stuck = false, updated_at = now(), settled_at = now(),
                win_minor = ${win}
         WHERE round_id = ${p(intent.roundId)} RETURNING 1
       )`);
    }
    if (input.operation === 'rollback' && outcome.status === 'success') {
      // The reversed debit's outcome is unknown and now irrelevant: it can no longer be pending.
      parts.push(`rb AS (
         UPDATE wallet_transactions SET status = 'failed', error_code = 'reversed_by_rollback',
                completed_at = now(), updated_at = now()
         WHERE transaction_id = ${p(intent.transactions.debit)} AND status = 'pending' RETURNING 1
       )`);
    }
    if (
      input.operation === 'debit' &&
      outcome.status === 'failed' &&
      outcome.error !== undefined &&
      blocksBets(outcome.error)
    ) {
      // Player protection: the session takes no bets until the operator relaunches it.
      parts.push(`sb AS (
         UPDATE sessions SET bets_blocked_code = $4, bets_blocked_at = now(), bets_blocked_round_id = ${p(intent.roundId)}
         WHERE session_id = ${p(intent.sessionId)} AND EXISTS (SELECT 1 FROM tx) RETURNING 1
       )`);
    }
    if (
      intent.journalAhead &&
      intent.winMinor !== null &&
      input.operation === 'debit' &&
      outcome.status === 'success'
    ) {
      // Journal first for the credit too: its row (exact bytes) is written before any send.
      const credit = journalEntry(intent, 'credit', intent.winMinor);
      parts.push(`cr AS (
         INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
           transaction_type, amount_minor, currency, request_body, request_hash, attempts)
         VALUES (${p(credit.transactionId)}, ${p(intent.operatorId)}, ${p(intent.sessionId)}, ${p(intent.roundId)},
           ${p(intent.playerId)}, ${p(intent.gameSymbol)}, 'credit', ${p(intent.winMinor)}, ${p(intent.currency)},
           ${p(credit.body)}, ${p(credit.requestHash)}, 1)
         ON CONFLICT (transaction_id) DO NOTHING RETURNING 1
       )`);
    }
    if (intent.freeRound && input.operation === 'credit' && outcome.status === 'success') {
      // Won totals equal credits: the grant's total grows in the statement recording the credit
      // (only when this statement took the row from pending).
      parts.push(`fr AS (
         UPDATE free_round_grants SET won_minor = won_minor + ${p(input.amountMinor)}::bigint
         WHERE operator_id = ${p(intent.operatorId)} AND campaign_id = ${p(intent.freeRound.campaignId)}
           AND external_player_id = ${p(intent.playerId)} AND EXISTS (SELECT 1 FROM tx) RETURNING 1
       )`);
    }
    if (input.jackpotLevel !== undefined && outcome.status === 'success') {
      // The hit is paid in the statement recording its credit; the round (completed already) is
      // no longer stuck if this credit's failed attempts had marked it so.
      parts.push(`jh AS (
         UPDATE jackpot_hits SET status = 'paid', settled_at = now()
         WHERE round_id = ${p(intent.roundId)} AND level = ${p(input.jackpotLevel)} AND status = 'pending'
           AND EXISTS (SELECT 1 FROM tx) RETURNING 1
       )`);
      parts.push(`ju AS (
         UPDATE rounds SET stuck = false, updated_at = now()
         WHERE round_id = ${p(intent.roundId)} AND stuck AND EXISTS (SELECT 1 FROM tx) RETURNING 1
       )`);
    }
    if (intent.journalAhead && input.operation === 'cancel' && outcome.status === 'success') {
      parts.push(`vc AS (
         UPDATE wallet_transactions SET status = 'failed', error_code = 'not_sent_round_cancelled',
                completed_at = now(), updated_at = now()
         WHERE transaction_id = ${p(intent.transactions.credit)} AND status = 'pending' RETURNING 1
       )`);
    }
    const names = parts.map((part) => part.slice(0, part.indexOf(' ')));
    // Named per variant (the parts that apply): a connection plans each variant once.
    await deps.pool.query(
      prepared(
        `WITH ${parts.join(', ')} SELECT ${names.map((n) => `(SELECT count(*) FROM ${n}) AS ${n}`).join(', ')}`,
        params,
      ),
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

  /** One wallet money step: debit, credit, cancel or rollback. */
  async function walletStep(input: WalletStepInput): Promise<WalletStepResult> {
    if (input.operation === 'cancel') await refuseCancelAfterCredit(input.intent);
    const row = journalledAhead(input) ? aheadRow(input) : await claimAttempt(input);
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
      network,
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
        if (deps.announce && input.roundStatusOnSuccess) {
          // What settleRound returns after this step (the round's last).
          deps.announce(
            input.intent.roundId,
            input.roundStatusOnSuccess === 'completed'
              ? { status: 'completed', winMinor: input.amountMinor, balance: outcome.balance }
              : { status: input.roundStatusOnSuccess, balance: outcome.balance },
          );
        }
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
        if (deps.announce && input.roundStatusOnRejection)
          deps.announce(input.intent.roundId, { status: 'rejected', error: outcome.error });
        return { status: 'rejected', error: outcome.error };
      case 'config_fault': {
        walletCache.delete(input.intent.operatorId);
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
            operator_id: input.intent.operatorId,
            transaction_id: row.transaction_id,
            error: outcome.error,
            ...(refused ? { detail: outcome.message ?? null } : {}),
          },
        );
        const what = refused ? `${outcome.error}: ${outcome.message ?? ''}` : `401 ${outcome.error}`;
        await recordUnresolved(input, row, what, outcome.httpStatus);
        throw ApplicationFailure.retryable(
          refused
            ? `wallet not called: ${outcome.message ?? outcome.error}`
            : `wallet answered 401 ${outcome.error}`,
          WALLET_CONFIG_FAULT,
        );
      }
      case 'uncertain':
        await recordUnresolved(input, row, outcome.reason, outcome.httpStatus);
        throw ApplicationFailure.retryable(`uncertain wallet outcome: ${outcome.reason}`, WALLET_UNCERTAIN);
    }
  }

  /**
   * A cancel never follows an applied credit. The workflow decides to cancel once the debit is
   * known, but a workflow task whose completion the server refused (a signal arrived meanwhile)
   * runs again with local activities re-executed: the earlier run may already have sent and
   * recorded the credit, which the new run's decision did not see. The journal did.
   */
  async function refuseCancelAfterCredit(intent: RoundIntent): Promise<void> {
    const { rows } = await deps.pool.query<{ status: string }>(
      `SELECT status FROM wallet_transactions WHERE transaction_id = $1`,
      [intent.transactions.credit],
    );
    if (rows[0]?.status === 'success')
      throw ApplicationFailure.nonRetryable(
        `round ${intent.roundId}: its credit is already applied; no cancel`,
        CREDIT_ALREADY_APPLIED,
      );
  }

  /** A step of the one-step first attempt: never throws (what it cannot settle is `unsettled`). */
  async function firstAttemptStep(input: WalletStepInput): Promise<FirstAttemptStep> {
    try {
      return await walletStep(input);
    } catch (err) {
      return { status: 'unsettled', reason: err instanceof Error ? err.message : String(err) };
    }
  }

  return {
    walletStep,
    /**
     * The one-step first attempt of a single-step journal-ahead round (intent.oneStep): the debit,
     * and after its success the credit, in one local activity (one trip between the workflow and
     * its activities instead of two). It never throws and is never retried: the workflow continues
     * whatever is not settled through walletStep, so budgets, compensation and cancels are as for
     * any round.
     */
    async debitThenCredit(input: {
      intent: RoundIntent;
    }): Promise<{ debit: FirstAttemptStep; credit?: FirstAttemptStep }> {
      const { intent } = input;
      const debit = await firstAttemptStep({
        intent,
        operation: 'debit',
        amountMinor: intent.stakeMinor,
        roundStatusOnRejection: 'rejected',
      });
      if (debit.status !== 'success' || intent.winMinor === null) return { debit };
      const credit = await firstAttemptStep({
        intent,
        operation: 'credit',
        amountMinor: intent.winMinor,
        roundStatusOnSuccess: 'completed',
      });
      return { debit, credit };
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
