import { createHash } from 'node:crypto';
import { CONTRACT_VERSION } from '@opi/contract';
import { type Pool, type PoolClient, prepared } from '@opi/db';
import { minorToDecimalNumber } from '@opi/money';
import { jackpotWinTransactionId, type RoundIntent } from './intent.js';

/*
 * The wallet journal (`wallet_transactions`, docs/settlement.md "Journal first"): the callback
 * bodies, byte for byte, and every statement that writes a journal row. Nothing else in the
 * product inserts or updates a row of it: a statement that writes the journal together with its
 * own tables (the spin's round, an outcome's round status) takes its journal part from here.
 */

export type MoneyOperation = 'debit' | 'credit' | 'cancel' | 'rollback';

/** A journal row as the wallet step reads it. */
export interface JournalRow {
  transaction_id: string;
  status: 'pending' | 'success' | 'failed';
  request_body: string;
  attempts: number;
  error_code: string | null;
  wallet_balance: string | null;
}

/** A step's journal entry as first written: its id, its exact body and the body's SHA-256. */
export interface JournalEntry {
  transactionId: string;
  body: string;
  requestHash: string;
}

export function transactionIdOf(intent: RoundIntent, op: MoneyOperation, jackpotLevel?: string): string {
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

/** The callback body of a round's step: deterministic, journalled before the first send, resent unchanged. */
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

/** A round step's journal entry as first written: its id, its exact body and the body's SHA-256. */
export function journalEntry(
  intent: RoundIntent,
  op: MoneyOperation,
  amountMinor: string,
  jackpotLevel?: string,
): JournalEntry {
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
    requestHash: requestHashOf(body),
  };
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
  entries.set(key, entry);
  return entry;
}
const MAX_ENTRIES = 2048;
const entries = new Map<string, JournalEntry>();

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

function requestHashOf(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

/*
 * Promotional payouts (issue 25, docs/jackpots-and-promotions.md): a tournament prize or a prize
 * drop, owed on a promo_payouts row, paid by one `credit` with `action_type: promo_win`. No
 * session, no token, no round: the payout id is the credit's round reference.
 */

export interface PromoPayoutRow {
  payout_id: string;
  promo_type: 'tournament' | 'prize_drop';
  promo_id: string;
  operator_id: string;
  external_player_id: string;
  currency: string;
  amount_minor: string;
  rank: number | null;
  session_id: string;
  game_symbol: string;
  status: 'pending' | 'paid';
}

/** The credit's transaction id: the payout id and `:credit`. */
export function promoTransactionId(payoutId: string): string {
  return `${payoutId}:credit`;
}

/**
 * The credit body of a payout: the contract's fields (round_id = payout id), then the optional
 * `promo_type`, `promo_id` and, for a tournament, `rank`. Deterministic: it follows from the
 * payout row, which never changes.
 */
export function buildPromoCallbackBody(p: PromoPayoutRow): string {
  const minor = BigInt(p.amount_minor);
  const transactionId = promoTransactionId(p.payout_id);
  const body: Record<string, unknown> = {
    contract_version: CONTRACT_VERSION,
    operator_id: p.operator_id,
    player_id: p.external_player_id,
    session_id: p.session_id,
    game_symbol: p.game_symbol,
    currency: p.currency,
    request_id: callbackRequestId(transactionId),
    transaction_id: transactionId,
    round_id: p.payout_id,
    transaction_type: 'credit',
    action_type: 'promo_win',
    amount: minorToDecimalNumber(minor, p.currency),
    amount_minor: Number(minor),
    promo_type: p.promo_type,
    promo_id: p.promo_id,
  };
  if (p.rank !== null) body.rank = p.rank;
  return JSON.stringify(body);
}

/** Every column a journal row is written with (its status starts `pending`). */
export interface JournalRowValues {
  transactionId: string;
  operatorId: string;
  sessionId: string;
  /** The round, or a promotional payout's id. */
  roundId: string;
  /** The operator's external player id. */
  playerId: string;
  gameSymbol: string;
  type: MoneyOperation;
  amountMinor: string;
  currency: string;
  /** A rollback's or cancel's debit; null otherwise. */
  originalTransactionId: string | null;
  body: string;
  requestHash: string;
}

/** A round step's row as first written. */
export function roundJournalRow(
  intent: RoundIntent,
  op: MoneyOperation,
  amountMinor: string,
  jackpotLevel?: string,
): JournalRowValues {
  const entry = journalEntry(intent, op, amountMinor, jackpotLevel);
  return {
    transactionId: entry.transactionId,
    operatorId: intent.operatorId,
    sessionId: intent.sessionId,
    roundId: intent.roundId,
    playerId: intent.playerId,
    gameSymbol: intent.gameSymbol,
    type: op,
    amountMinor,
    currency: intent.currency,
    originalTransactionId: op === 'rollback' || op === 'cancel' ? intent.transactions.debit : null,
    body: entry.body,
    requestHash: entry.requestHash,
  };
}

/** A promotional payout's credit row as first written. */
export function promoJournalRow(p: PromoPayoutRow): JournalRowValues {
  const body = buildPromoCallbackBody(p);
  return {
    transactionId: promoTransactionId(p.payout_id),
    operatorId: p.operator_id,
    sessionId: p.session_id,
    roundId: p.payout_id,
    playerId: p.external_player_id,
    gameSymbol: p.game_symbol,
    type: 'credit',
    amountMinor: p.amount_minor,
    currency: p.currency,
    originalTransactionId: null,
    body,
    requestHash: requestHashOf(body),
  };
}

type Db = Pool | PoolClient;

/**
 * A row's values in the order of the journal's first nine columns (transaction_id .. currency),
 * which every INSERT of it names first.
 */
const LEADING_COLUMNS = [
  'transactionId',
  'operatorId',
  'sessionId',
  'roundId',
  'playerId',
  'gameSymbol',
  'type',
  'amountMinor',
  'currency',
] as const satisfies readonly (keyof JournalRowValues)[];

/**
 * The journal part of a statement that writes a pending row together with rows of its own (the
 * spin's round, recordRound's round, an outcome's next step): an `INSERT ... RETURNING 1` to put
 * in a CTE. Each value is an SQL expression (a parameter such as `$11`, or a column of `from`);
 * `from` names the CTE the row depends on (`SELECT ... FROM ins`: no round, no row); `createdAt`
 * an expression for its created_at (default now(): the transaction's start).
 */
export function journalInsertSql(
  v: Record<Exclude<keyof JournalRowValues, 'originalTransactionId'>, string>,
  options: { from?: string; onConflictDoNothing?: boolean; createdAt?: string } = {},
): string {
  const values = [
    ...LEADING_COLUMNS.map((k) => v[k]),
    v.body,
    v.requestHash,
    '1',
    ...(options.createdAt ? [options.createdAt] : []),
  ].join(', ');
  return `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
                                        transaction_type, amount_minor, currency, request_body, request_hash, attempts${
                                          options.createdAt ? ', created_at' : ''
                                        })
       ${options.from ? `SELECT ${values} FROM ${options.from}` : `VALUES (${values})`}${
         options.onConflictDoNothing ? ' ON CONFLICT (transaction_id) DO NOTHING' : ''
       } RETURNING 1`;
}

/** A row's values as the parameters $1..$12 of the journal's INSERTs (their column order). */
function rowParams(v: JournalRowValues): unknown[] {
  return [...LEADING_COLUMNS.map((k) => v[k]), v.originalTransactionId, v.body, v.requestHash];
}

/**
 * Journal first: the step's pending row with its exact body is written (once) before any send;
 * each later claim counts an attempt on a pending row. Answers the row (a terminal one is answered
 * from the journal without calling the wallet again).
 */
export async function claimJournalRow(db: Db, v: JournalRowValues): Promise<JournalRow> {
  const { rows } = await db.query<JournalRow>(
    prepared(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, original_transaction_id, request_body, request_hash, attempts)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 1)
       ON CONFLICT (transaction_id) DO UPDATE
         SET attempts = CASE WHEN wallet_transactions.status = 'pending'
                             THEN wallet_transactions.attempts + 1 ELSE wallet_transactions.attempts END,
             updated_at = now()
       RETURNING transaction_id, status, request_body, attempts, error_code, wallet_balance`,
      rowParams(v),
    ),
  );
  return rows[0]!;
}

/**
 * A row written but never attempted (attempts 0), unless one exists: a rollback's or cancel's
 * debit that no attempt journalled (see the settlement activities' journalOriginalDebit).
 */
export async function journalUnattempted(db: Db, v: JournalRowValues): Promise<void> {
  await db.query(
    `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
       transaction_type, amount_minor, currency, original_transaction_id, request_body, request_hash, attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 0)
     ON CONFLICT (transaction_id) DO NOTHING`,
    rowParams(v),
  );
}

/**
 * The outcome part of a statement recording a step's outcome: the pending row takes its status,
 * balance, error code and HTTP status (each an SQL expression). `UPDATE ... RETURNING 1`, for a CTE
 * (conventionally `tx`, which the statement's other parts test with `EXISTS (SELECT 1 FROM tx)`).
 */
export function journalOutcomeSql(
  transactionId: string,
  o: { status: string; balance: string; error: string; httpStatus: string },
): string {
  return `UPDATE wallet_transactions SET status = ${o.status}, wallet_balance = ${o.balance}, error_code = ${o.error}, http_status = ${o.httpStatus},
                last_error = NULL, completed_at = now(), updated_at = now()
         WHERE transaction_id = ${transactionId} AND status = 'pending' RETURNING 1`;
}

/** Why a pending row was closed without a wallet answer of its own (its error_code). */
export type UnsentReason =
  | 'reversed_by_rollback'
  | 'not_sent_round_cancelled'
  | 'not_sent_debit_rejected'
  | 'not_sent_round_rolled_back';

/**
 * A pending row closed without a wallet answer of its own, for a CTE: a debit reversed by its
 * rollback (`reversed_by_rollback`: its outcome is unknown and now irrelevant), a journal-ahead
 * credit of a cancelled round (`not_sent_round_cancelled`: never sent), a credit written ahead with
 * the round (intent.creditAhead) whose debit was refused (`not_sent_debit_rejected`) or rolled back
 * (`not_sent_round_rolled_back`): never sent either.
 */
export function journalCloseUnsentSql(transactionId: string, reason: UnsentReason): string {
  return `UPDATE wallet_transactions SET status = 'failed', error_code = '${reason}',
                completed_at = now(), updated_at = now()
         WHERE transaction_id = ${transactionId} AND status = 'pending' RETURNING 1`;
}

/** An unresolved attempt: the row stays pending with the reason (500 characters at most). */
export async function recordJournalUnresolved(
  db: Db,
  transactionId: string,
  reason: string,
  httpStatus?: number,
): Promise<void> {
  await db.query(
    `UPDATE wallet_transactions SET last_error = $2, http_status = $3, updated_at = now()
     WHERE transaction_id = $1 AND status = 'pending'`,
    [transactionId, reason.slice(0, 500), httpStatus ?? null],
  );
}

/** A journal row's status (undefined: no row). */
export async function journalStatus(
  db: Db,
  transactionId: string,
): Promise<JournalRow['status'] | undefined> {
  const { rows } = await db.query<{ status: JournalRow['status'] }>(
    `SELECT status FROM wallet_transactions WHERE transaction_id = $1`,
    [transactionId],
  );
  return rows[0]?.status;
}
