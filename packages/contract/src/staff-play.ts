import { z } from 'zod';
import { OperatorRound, OperatorSession } from './audit.js';
import { AuditTransaction } from './operator.js';
import { MinorAmount } from './primitives.js';
import { StaffAuditEntry } from './staff-audit.js';

/*
 * The staff API's sessions and rounds (/api/staff/v1/operators/{operator_id}: `GET /sessions`,
 * `/sessions/{session_id}`, `/rounds`, `/rounds/{round_id}`, `/stuck`, and an admin's
 * `POST /rounds/{round_id}/cancel`). Int64 amounts arrive as JSON integers (MinorAmount).
 */

/** A keyset page, newest first: pass `next_cursor` as `cursor` for the next one (null: the last). */
export function staffPage<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), limit: z.number().int(), next_cursor: z.string().nullable() });
}
export interface StaffPage<T> {
  items: T[];
  limit: number;
  next_cursor: string | null;
}

/** A session as the staff search lists it (the operator's external player id, never a token). */
export const StaffSessionItem = z.object({
  session_id: z.string(),
  player_id: z.string(),
  game_symbol: z.string(),
  provider_id: z.string(),
  currency: z.string(),
  status: z.string(),
  device: z.string().nullable(),
  created_at: z.string(),
  last_activity_at: z.string(),
});
export type StaffSessionItem = z.infer<typeof StaffSessionItem>;

/** `GET /sessions`. */
export const StaffSessionPage = staffPage(StaffSessionItem);
export type StaffSessionPage = z.infer<typeof StaffSessionPage>;

/** `GET /rounds` and `GET /stuck`: the operator audit API's round search. */
export const StaffRoundPage = staffPage(OperatorRound);
export type StaffRoundPage = z.infer<typeof StaffRoundPage>;

/** `GET /sessions/{session_id}`: the audit API's session and a page of its rounds. */
export const StaffSessionDetail = OperatorSession.extend({ round_page: StaffRoundPage });
export type StaffSessionDetail = z.infer<typeof StaffSessionDetail>;

/** A wallet call on the round's timeline: the journal's timing and attempts beside the transaction. */
export const StaffTimelineEntry = z.object({
  transaction_id: z.string(),
  transaction_type: z.string(),
  status: z.string(),
  amount_minor: MinorAmount,
  attempts: z.number().int(),
  http_status: z.number().int().nullable(),
  error_code: z.string().nullable(),
  wallet_balance: z.string().nullable(),
  original_transaction_id: z.string().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});
export type StaffTimelineEntry = z.infer<typeof StaffTimelineEntry>;

/** One stage of a multi-step round (native, crash), shown once the round's wager stands. */
export const StaffStageEntry = z.object({
  seq: z.number().int(),
  action: z.string(),
  inputs: z.record(z.string(), z.unknown()),
  outcome: z.record(z.string(), z.unknown()),
  multiplier: z.string().nullable(),
  created_at: z.string(),
});
export type StaffStageEntry = z.infer<typeof StaffStageEntry>;

/** `GET /rounds/{round_id}`: the audit API's round with its wallet timeline and stages. */
export const StaffRoundDetail = OperatorRound.extend({
  transactions: z.array(AuditTransaction),
  game_title: z.string().nullable(),
  stored_rtp: z.string().nullable(),
  updated_at: z.string().nullable(),
  /** A multi-step title's round (its stages replay one by one). */
  multi_step: z.boolean(),
  timeline: z.array(StaffTimelineEntry),
  stages: z.array(StaffStageEntry),
});
export type StaffRoundDetail = z.infer<typeof StaffRoundDetail>;

/** `POST /rounds/{round_id}/cancel`: what became of the cancel, and its audit row. */
export const StaffCancelResult = z.object({
  /**
   * cancelled: settled as cancelled at the wallet; accepted: the workflow has the cancel and
   * applies it once the debit's outcome is known; refused: not cancellable (settled, crediting,
   * reversing, or no workflow); ended: the round settled otherwise while we watched.
   */
  result: z.enum(['cancelled', 'accepted', 'refused', 'ended']),
  message: z.string(),
  audit: StaffAuditEntry,
});
export type StaffCancelResult = z.infer<typeof StaffCancelResult>;
