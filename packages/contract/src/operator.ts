import { z } from 'zod';
import {
  AmountUnit,
  ContractVersion,
  IdempotencyKey,
  TransactionStatus,
  TransactionType,
  WalletCallback,
} from './constants.js';
import { CurrencyCode, MinorAmount, MinorAmountString, RequestHash, successEnvelope } from './primitives.js';

/* Operator audit reads under /api/operator/v1/ (signed operator requests). */

/** Bet limits in integer minor units, written as decimal strings. */
export const BetLimits = z.object({
  min: MinorAmountString.optional(),
  max: MinorAmountString.optional(),
});
export type BetLimits = z.infer<typeof BetLimits>;

/** `data` of `GET /api/operator/v1/contract`: the operator's contract and limits. */
export const OperatorContract = z.object({
  operator_id: z.string(),
  /** Contract version, constant `2026-09-01`. */
  version: ContractVersion,
  /** Constant `minor`. */
  amount_unit: AmountUnit,
  allowed_currencies: z.array(CurrencyCode),
  bet_limits: BetLimits,
  /** Wallet endpoints the operator hosts. */
  wallet_callbacks: z.array(WalletCallback),
  /** Constant `transaction_id`. */
  idempotency_key: IdempotencyKey.optional(),
});
export type OperatorContract = z.infer<typeof OperatorContract>;

/** A wallet-transaction journal record of the operator. */
export const OperatorTransaction = z.object({
  /** Idempotency key of the wallet call. */
  transaction_id: z.string(),
  operator_id: z.string(),
  session_id: z.string(),
  /** Stable provider round identity. */
  round_id: z.string(),
  player_id: z.string(),
  game_symbol: z.string(),
  transaction_type: TransactionType,
  /** Signed int64 minor units. */
  amount_minor: MinorAmount,
  currency: CurrencyCode,
  status: TransactionStatus,
  /**
   * A failed transaction's code: the operator wallet's HTTP 400 `error` (e.g. `insufficient_funds`,
   * or a player-protection code such as `self_excluded`), or `reversed_by_rollback` for a debit its
   * rollback made moot; null otherwise.
   */
  error_code: z.string().nullable(),
  contract_version: ContractVersion,
  /** SHA-256 of the wallet request, lower-case hex. */
  request_hash: RequestHash,
});
export type OperatorTransaction = z.infer<typeof OperatorTransaction>;

/** A wallet-transaction record as the operator audit API answers it (issue 26): with its round's replay link. */
export const AuditTransaction = OperatorTransaction.extend({
  /**
   * The replay page of the transaction's round (the round's `round_details_url`): stable, signed,
   * not guessable; null when its round reference is not a game round (a `promo_win` credit's payout id).
   */
  round_details_url: z.string().nullable(),
});
export type AuditTransaction = z.infer<typeof AuditTransaction>;

/** 200 of `GET /api/operator/v1/contract`. */
export const OperatorContractResponse = successEnvelope(OperatorContract);
export type OperatorContractResponse = z.infer<typeof OperatorContractResponse>;

/** 200 of `GET /api/operator/v1/transactions/{transaction_id}`. */
export const OperatorTransactionResponse = successEnvelope(AuditTransaction);
export type OperatorTransactionResponse = z.infer<typeof OperatorTransactionResponse>;
