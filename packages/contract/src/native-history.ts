import { z } from 'zod';
import { NativeHistoryMode } from './constants.js';
import { OpaqueObject, successEnvelope } from './primitives.js';

/*
 * Native (`prov_c`) stage history. The entries of `stages`, `ledger` and `wallet` and the `intent`
 * object are not specified; they are kept as opaque objects.
 */

/** 200 of `GET /api/provider/v1/native/history`, at top level with no success/data wrapper. */
export const NativeSessionHistory = z.object({
  /** The session id returned by launch. */
  session_id: z.string(),
  currency: z.string(),
  stages: z.array(OpaqueObject),
  mode: NativeHistoryMode,
});
export type NativeSessionHistory = z.infer<typeof NativeSessionHistory>;

/** `data` of `GET /api/provider/v1/native/history/{round_id}`. */
export const NativeRoundHistory = z.object({
  /** Recorded round id (not a transaction id). */
  round_id: z.string(),
  session_id: z.string(),
  operator_id: z.string(),
  currency: z.string(),
  mode: NativeHistoryMode,
  status: z.string(),
  /** Durable settlement intent. */
  intent: OpaqueObject,
  stages: z.array(OpaqueObject),
  ledger: z.array(OpaqueObject),
  wallet: z.array(OpaqueObject),
});
export type NativeRoundHistory = z.infer<typeof NativeRoundHistory>;

export const NativeRoundHistoryResponse = successEnvelope(NativeRoundHistory);
export type NativeRoundHistoryResponse = z.infer<typeof NativeRoundHistoryResponse>;
