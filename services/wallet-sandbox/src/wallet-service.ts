import { type Pool, type PoolClient, withTransaction } from '@opi/db';
import { minorToDecimalString } from '@opi/money';
import type { CallbackRequest, MoneyOperation } from './callback.js';
import { errorBody } from './http.js';
import {
  createPlayerAccount,
  type LockedPlayer,
  lockNames,
  lockPlayer,
  type PlayerKey,
  postEntries,
} from './ledger.js';

/**
 * The wallet's decisions. Every debit, credit, cancel and rollback is decided in ONE database
 * transaction that (1) takes advisory locks on the transaction ids and round it touches, (2) looks
 * up the idempotency record, (3) locks the player's account row FOR UPDATE, (4) moves money through
 * the ledger, (5) stores the decision with its exact response, and (6) appends the request record.
 * Either all of it commits or none of it does.
 */

/** Wallet error codes (HTTP 400 unless noted). */
export const WALLET_ERRORS = {
  /** 401: missing or wrong signature, unknown operator, stale timestamp, malformed or reused nonce. */
  invalid_signature: 'invalid_signature',
  /** Malformed body, schema failure, or the path's operation differs from transaction_type. */
  invalid_request: 'invalid_request',
  /** Fault injection (`refuseActionTypes`): a money callback whose action_type the wallet refuses. */
  unsupported_action_type: 'unsupported_action_type',
  /** `amount` is not `amount_minor` at the currency exponent; a cancel or rollback amount differs. */
  amount_mismatch: 'amount_mismatch',
  unknown_player: 'unknown_player',
  insufficient_funds: 'insufficient_funds',
  /** The transaction_id was used before with different material fields. */
  transaction_conflict: 'transaction_conflict',
  /** A debit or credit whose transaction_id an earlier rollback already reversed (tombstone). */
  transaction_reversed: 'transaction_reversed',
  /** A debit or credit in a round that was cancelled. */
  round_cancelled: 'round_cancelled',
  /** A cancel for a round whose win was already credited. */
  round_settled: 'round_settled',
  /** A rollback whose original is not a debit or credit of the same player and currency. */
  original_mismatch: 'original_mismatch',
  /**
   * Player protection, debits only, set per player through PUT /admin/protection (any code of
   * `[a-z][a-z0-9_]*` can be configured; these are the ones the game service names).
   */
  limit_reached: 'limit_reached',
  self_excluded: 'self_excluded',
  session_time_limit: 'session_time_limit',
  player_blocked: 'player_blocked',
  /** 500: unexpected failure, nothing committed; retry with the same transaction_id. */
  internal_error: 'internal_error',
} as const;

export type Outcome = 'applied' | 'replayed' | 'conflict' | 'invalid' | 'balance' | 'error';

/** What the wallet answers: the status and the exact body bytes. */
export interface Answer {
  status: number;
  body: string;
  outcome: Outcome;
  errorCode: string | null;
}

export interface RequestMeta {
  pathOperation: string;
  operatorId: string;
  nonce: string;
  requestHash: string;
  receivedAt: Date;
}

export interface WalletServiceOptions {
  /** Demo/QA: create unknown players with this opening balance; null (default) rejects them. */
  autoCreatePlayersWithMinor?: bigint | null;
}

interface StoredTransaction {
  transaction_type: MoneyOperation;
  player_id: string;
  currency: string;
  amount_minor: bigint;
  round_id: string;
  original_transaction_id: string | null;
  status: 'success' | 'rejected';
  error_code: string | null;
  player_delta_minor: bigint;
  response_status: number;
  response_body: string;
  reversed_by: string | null;
}

/** A decision about to be stored: success with its balance effect, or a rejection. */
type Decision =
  | { kind: 'success'; deltaMinor: bigint; balanceAfterMinor: bigint }
  | { kind: 'rejected'; code: string; message: string };

const lockName = (kind: string, operatorId: string, id: string) => JSON.stringify([kind, operatorId, id]);

export function successBody(balanceMinor: bigint, currency: string, transactionId: string): string {
  return JSON.stringify({
    success: true,
    balance: minorToDecimalString(balanceMinor, currency),
    currency,
    transaction_id: transactionId,
  });
}

export class WalletService {
  private readonly autoCreate: bigint | null;

  constructor(
    private readonly pool: Pool,
    options: WalletServiceOptions = {},
  ) {
    this.autoCreate = options.autoCreatePlayersWithMinor ?? null;
  }

  /** The operator's callback secret, or undefined for an unknown operator. */
  async secretOf(operatorId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ secret: string }>(
      'SELECT secret FROM wallet.operator_secrets WHERE operator_id = $1',
      [operatorId],
    );
    return rows[0]?.secret;
  }

  /** Claims a callback nonce for single use: false when it was seen before. */
  async claimNonce(operatorId: string, nonce: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'INSERT INTO wallet.seen_nonces (operator_id, nonce) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [operatorId, nonce],
    );
    return rowCount === 1;
  }

  /**
   * Forgets nonces older than twice the skew window: a timestamp accepted up to `skew` seconds in
   * the future can be replayed at most `2 × skew` seconds after it was first seen.
   */
  async purgeNonces(maxSkewSeconds: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      'DELETE FROM wallet.seen_nonces WHERE seen_at < now() - make_interval(secs => $1)',
      [maxSkewSeconds * 2],
    );
    return rowCount ?? 0;
  }

  /** Appends a request record outside a money transaction (invalid requests, failures). */
  async recordRequest(meta: RequestMeta, body: unknown, answer: Answer): Promise<void> {
    await insertRequest(this.pool, meta, body, answer);
  }

  /** Decides a verified, validated callback and records it, in one database transaction. */
  async handle(req: CallbackRequest, meta: RequestMeta): Promise<Answer> {
    return withTransaction(this.pool, async (client) => {
      const answer =
        req.transaction_type === 'balance'
          ? await this.balance(client, req)
          : await this.money(client, req, meta);
      await insertRequest(client, meta, req, answer);
      return answer;
    });
  }

  private async player(client: PoolClient, req: CallbackRequest): Promise<LockedPlayer | undefined> {
    const key: PlayerKey = { operatorId: req.operator_id, playerId: req.player_id, currency: req.currency };
    const locked = await lockPlayer(client, key);
    if (locked || this.autoCreate === null) return locked;
    await createPlayerAccount(client, key, this.autoCreate);
    return lockPlayer(client, key);
  }

  private async balance(client: PoolClient, req: CallbackRequest): Promise<Answer> {
    // A read: not journalled, no money movement. The row lock is only taken when auto-creating.
    const { rows } = await client.query<{ balance_minor: bigint }>(
      `SELECT balance_minor FROM wallet.accounts WHERE kind = 'player' AND operator_id = $1 AND player_id = $2 AND currency = $3`,
      [req.operator_id, req.player_id, req.currency],
    );
    let balance = rows[0]?.balance_minor;
    if (balance === undefined && this.autoCreate !== null)
      balance = (await this.player(client, req))?.balanceMinor;
    if (balance === undefined) {
      return {
        status: 400,
        body: errorBody('unknown_player', 'unknown player for this operator and currency'),
        outcome: 'balance',
        errorCode: 'unknown_player',
      };
    }
    return {
      status: 200,
      body: successBody(balance, req.currency, req.transaction_id),
      outcome: 'balance',
      errorCode: null,
    };
  }

  private async money(client: PoolClient, req: CallbackRequest, meta: RequestMeta): Promise<Answer> {
    const op = req.transaction_type as MoneyOperation;
    const names = [lockName('tx', req.operator_id, req.transaction_id)];
    if (op === 'rollback') names.push(lockName('tx', req.operator_id, req.original_transaction_id!));
    else names.push(lockName('round', req.operator_id, req.round_id));
    await lockNames(client, names);

    // Idempotency: the transaction_id was decided before.
    const existing = await client.query<StoredTransaction>(
      `SELECT transaction_type, player_id, currency, amount_minor, round_id, original_transaction_id, status, error_code,
              player_delta_minor, response_status, response_body, reversed_by
       FROM wallet.transactions WHERE operator_id = $1 AND transaction_id = $2`,
      [req.operator_id, req.transaction_id],
    );
    const stored = existing.rows[0];
    if (stored) {
      if (sameMaterialFields(stored, req)) {
        return {
          status: stored.response_status,
          body: stored.response_body,
          outcome: 'replayed',
          errorCode: stored.error_code,
        };
      }
      return {
        status: 400,
        body: errorBody(
          'transaction_conflict',
          `transaction_id ${req.transaction_id} was already used with different fields; nothing was applied`,
        ),
        outcome: 'conflict',
        errorCode: 'transaction_conflict',
      };
    }

    const account = await this.player(client, req);
    let decision: Decision;
    if (!account) {
      decision = {
        kind: 'rejected',
        code: 'unknown_player',
        message: 'unknown player for this operator and currency',
      };
    } else if (op === 'debit' || op === 'credit') {
      decision = await this.debitOrCredit(client, req, op, account);
    } else if (op === 'rollback') {
      decision = await this.rollback(client, req, account);
    } else {
      decision = await this.cancel(client, req, account);
    }
    return this.store(client, req, meta, decision);
  }

  private async debitOrCredit(
    client: PoolClient,
    req: CallbackRequest,
    op: 'debit' | 'credit',
    account: LockedPlayer,
  ): Promise<Decision> {
    const { rows } = await client.query<{ reversed_by: string | null; cancelled_by: string | null }>(
      `SELECT (SELECT reversed_by FROM wallet.transaction_tombstones WHERE operator_id = $1 AND transaction_id = $2) AS reversed_by,
              (SELECT cancelled_by FROM wallet.round_tombstones WHERE operator_id = $1 AND round_id = $3) AS cancelled_by`,
      [req.operator_id, req.transaction_id, req.round_id],
    );
    const tomb = rows[0]!;
    if (tomb.reversed_by !== null) {
      return {
        kind: 'rejected',
        code: 'transaction_reversed',
        message: `transaction ${req.transaction_id} was already rolled back by ${tomb.reversed_by}`,
      };
    }
    if (tomb.cancelled_by !== null) {
      return {
        kind: 'rejected',
        code: 'round_cancelled',
        message: `round ${req.round_id} was cancelled by ${tomb.cancelled_by}`,
      };
    }
    if (op === 'debit') {
      const refusal = await takeProtectionRefusal(client, req.operator_id, req.player_id);
      if (refusal) {
        return {
          kind: 'rejected',
          code: refusal,
          message: `player protection: the operator refuses this player's debits (${refusal})`,
        };
      }
    }
    const amount = BigInt(req.amount_minor);
    if (op === 'debit' && account.balanceMinor < amount) {
      return { kind: 'rejected', code: 'insufficient_funds', message: 'insufficient funds' };
    }
    const delta = op === 'debit' ? -amount : amount;
    await postEntries(client, req.operator_id, `cb:${req.transaction_id}`, req.currency, [
      { accountId: account.accountId, amountMinor: delta },
      { accountId: account.houseAccountId, amountMinor: -delta },
    ]);
    return { kind: 'success', deltaMinor: delta, balanceAfterMinor: account.balanceMinor + delta };
  }

  private async rollback(client: PoolClient, req: CallbackRequest, account: LockedPlayer): Promise<Decision> {
    const originalId = req.original_transaction_id!;
    const noChange: Decision = { kind: 'success', deltaMinor: 0n, balanceAfterMinor: account.balanceMinor };
    const { rows } = await client.query<StoredTransaction>(
      `SELECT transaction_type, player_id, currency, amount_minor, status, reversed_by, player_delta_minor
       FROM wallet.transactions WHERE operator_id = $1 AND transaction_id = $2`,
      [req.operator_id, originalId],
    );
    const original = rows[0];
    if (!original) {
      // Unknown original: nothing to reverse. Tombstone its id so a late-arriving debit or credit
      // with it is refused rather than applied after its own rollback.
      await client.query(
        `INSERT INTO wallet.transaction_tombstones (operator_id, transaction_id, reversed_by) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING`,
        [req.operator_id, originalId, req.transaction_id],
      );
      return noChange;
    }
    if (
      (original.transaction_type !== 'debit' && original.transaction_type !== 'credit') ||
      original.player_id !== req.player_id ||
      original.currency !== req.currency
    ) {
      return {
        kind: 'rejected',
        code: 'original_mismatch',
        message: `transaction ${originalId} is not a debit or credit of this player and currency`,
      };
    }
    if (original.amount_minor !== BigInt(req.amount_minor)) {
      return {
        kind: 'rejected',
        code: 'amount_mismatch',
        message: `amount_minor ${req.amount_minor} differs from the original transaction's ${original.amount_minor}`,
      };
    }
    // A rejected original moved no money; an already reversed one is not reversed twice.
    if (original.status !== 'success' || original.reversed_by !== null) return noChange;
    const delta = -original.player_delta_minor;
    if (account.balanceMinor + delta < 0n) {
      return {
        kind: 'rejected',
        code: 'insufficient_funds',
        message: 'insufficient funds to reverse the credit',
      };
    }
    await postEntries(client, req.operator_id, `cb:${req.transaction_id}`, req.currency, [
      { accountId: account.accountId, amountMinor: delta },
      { accountId: account.houseAccountId, amountMinor: -delta },
    ]);
    await client.query(
      'UPDATE wallet.transactions SET reversed_by = $3 WHERE operator_id = $1 AND transaction_id = $2',
      [req.operator_id, originalId, req.transaction_id],
    );
    return { kind: 'success', deltaMinor: delta, balanceAfterMinor: account.balanceMinor + delta };
  }

  private async cancel(client: PoolClient, req: CallbackRequest, account: LockedPlayer): Promise<Decision> {
    const noChange: Decision = { kind: 'success', deltaMinor: 0n, balanceAfterMinor: account.balanceMinor };
    const tomb = await client.query(
      'SELECT 1 FROM wallet.round_tombstones WHERE operator_id = $1 AND round_id = $2',
      [req.operator_id, req.round_id],
    );
    if (tomb.rowCount) return noChange; // already cancelled: no further change
    const { rows } = await client.query<{
      transaction_id: string;
      transaction_type: string;
      amount_minor: bigint;
    }>(
      `SELECT transaction_id, transaction_type, amount_minor FROM wallet.transactions
       WHERE operator_id = $1 AND round_id = $2 AND player_id = $3 AND currency = $4
         AND transaction_type IN ('debit', 'credit') AND status = 'success' AND reversed_by IS NULL
       ORDER BY created_at, transaction_id`,
      [req.operator_id, req.round_id, req.player_id, req.currency],
    );
    if (rows.some((r) => r.transaction_type === 'credit')) {
      return {
        kind: 'rejected',
        code: 'round_settled',
        message: `round ${req.round_id} already has a win credited; it can no longer be cancelled`,
      };
    }
    const sum = rows.reduce((s, r) => s + r.amount_minor, 0n);
    if (sum !== 0n && sum !== BigInt(req.amount_minor)) {
      return {
        kind: 'rejected',
        code: 'amount_mismatch',
        message: `amount_minor ${req.amount_minor} differs from the round's unreversed wager ${sum}`,
      };
    }
    if (sum !== 0n) {
      await postEntries(client, req.operator_id, `cb:${req.transaction_id}`, req.currency, [
        { accountId: account.accountId, amountMinor: sum },
        { accountId: account.houseAccountId, amountMinor: -sum },
      ]);
    }
    if (rows.length > 0) {
      await client.query(
        `UPDATE wallet.transactions SET reversed_by = $3 WHERE operator_id = $1 AND transaction_id = ANY($2::text[])`,
        [req.operator_id, rows.map((r) => r.transaction_id), req.transaction_id],
      );
    }
    // The round is closed: a later debit or credit in it is refused.
    await client.query(
      `INSERT INTO wallet.round_tombstones (operator_id, round_id, cancelled_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [req.operator_id, req.round_id, req.transaction_id],
    );
    return { kind: 'success', deltaMinor: sum, balanceAfterMinor: account.balanceMinor + sum };
  }

  /** Stores the decision as the idempotency record with its exact response bytes. */
  private async store(
    client: PoolClient,
    req: CallbackRequest,
    meta: RequestMeta,
    d: Decision,
  ): Promise<Answer> {
    const answer: Answer =
      d.kind === 'success'
        ? {
            status: 200,
            body: successBody(d.balanceAfterMinor, req.currency, req.transaction_id),
            outcome: 'applied',
            errorCode: null,
          }
        : { status: 400, body: errorBody(d.code, d.message), outcome: 'applied', errorCode: d.code };
    await client.query(
      `INSERT INTO wallet.transactions
         (operator_id, transaction_id, transaction_type, player_id, currency, amount_minor, round_id,
          original_transaction_id, request_hash, status, error_code, player_delta_minor, balance_after_minor,
          response_status, response_body)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        req.operator_id,
        req.transaction_id,
        req.transaction_type,
        req.player_id,
        req.currency,
        req.amount_minor,
        req.round_id,
        req.original_transaction_id ?? null,
        meta.requestHash,
        d.kind === 'success' ? 'success' : 'rejected',
        d.kind === 'success' ? null : d.code,
        d.kind === 'success' ? d.deltaMinor.toString() : '0',
        d.kind === 'success' ? d.balanceAfterMinor.toString() : null,
        answer.status,
        answer.body,
      ],
    );
    return answer;
  }
}

/**
 * The player's protection setting (PUT /admin/protection), if any: the code the debit is refused
 * with. A setting for a number of debits counts this one down (and goes at zero), in the same
 * transaction as the stored refusal, so a repeat of this transaction_id is answered from the
 * idempotency record and does not count again.
 */
async function takeProtectionRefusal(
  client: PoolClient,
  operatorId: string,
  playerId: string,
): Promise<string | undefined> {
  const { rows } = await client.query<{ refuse_debits_with: string; remaining: number | null }>(
    `SELECT refuse_debits_with, remaining FROM wallet.player_protection
     WHERE operator_id = $1 AND player_id = $2 FOR UPDATE`,
    [operatorId, playerId],
  );
  const p = rows[0];
  if (!p) return undefined;
  if (p.remaining === 1) {
    await client.query('DELETE FROM wallet.player_protection WHERE operator_id = $1 AND player_id = $2', [
      operatorId,
      playerId,
    ]);
  } else if (p.remaining !== null) {
    await client.query(
      'UPDATE wallet.player_protection SET remaining = remaining - 1, updated_at = now() WHERE operator_id = $1 AND player_id = $2',
      [operatorId, playerId],
    );
  }
  return p.refuse_debits_with;
}

/** Material fields of an idempotent repeat: everything that decides what money moves. */
function sameMaterialFields(stored: StoredTransaction, req: CallbackRequest): boolean {
  return (
    stored.transaction_type === req.transaction_type &&
    stored.player_id === req.player_id &&
    stored.currency === req.currency &&
    stored.amount_minor === BigInt(req.amount_minor) &&
    stored.round_id === req.round_id &&
    (stored.original_transaction_id ?? null) === (req.original_transaction_id ?? null)
  );
}

async function insertRequest(
  db: Pool | PoolClient,
  meta: RequestMeta,
  parsed: unknown,
  answer: Answer,
): Promise<void> {
  const body = (parsed !== null && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const amount = body.amount_minor;
  await db.query(
    `INSERT INTO wallet.requests
       (operator_id, path_operation, transaction_id, transaction_type, round_id, player_id, currency, amount_minor,
        original_transaction_id, nonce, request_hash, outcome, response_status, error_code, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      meta.operatorId,
      meta.pathOperation,
      str(body.transaction_id),
      str(body.transaction_type),
      str(body.round_id),
      str(body.player_id),
      str(body.currency),
      typeof amount === 'number' && Number.isSafeInteger(amount) ? amount : null,
      str(body.original_transaction_id),
      meta.nonce,
      meta.requestHash,
      answer.outcome,
      answer.status,
      answer.errorCode,
      meta.receivedAt,
    ],
  );
}
