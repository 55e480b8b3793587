import { z } from 'zod';
import { firstMirrorMismatch } from './mirror.js';
import { CurrencyCode, ExternalPlayerId } from './primitives.js';

/*
 * POST /api/provider/v1/player-balance-refresh: signals matching open game pages (`prov_a` only) to
 * run a balance refresh through the wallet balance callback. It carries no balance and sets none.
 *
 * The request is a plain (non-strict) `z.object`: unknown fields are ignored and stripped.
 */

export const BalanceRefreshRequest = z.object({
  external_player_id: ExternalPlayerId,
  /** Only for provider master keys. */
  operator_id: z.string().min(1).optional(),
  /** Filter by session currency (3 characters; validated as an upper-case code like launch). */
  currency: CurrencyCode.optional(),
  /** Filter by game symbol or slug; naming an unsupported provider's game returns 409. */
  game_symbol: z.string().min(1).optional(),
  /** Filter by session. */
  session_id: z.string().min(1).optional(),
  /**
   * Operator correlation id, echoed to the caller and to the game page. At most 128 characters
   * (the spec sets no limit; the signal travels in a size-limited NOTIFY payload).
   */
  request_id: z.string().max(128).optional(),
  /** Why, e.g. a deposit or a manual adjustment; echoed like request_id. At most 256 characters. */
  reason: z.string().max(256).optional(),
});
export type BalanceRefreshRequest = z.infer<typeof BalanceRefreshRequest>;

/** One matching open session. */
export const BalanceRefreshSession = z.object({
  session_id: z.string(),
  game_symbol: z.string(),
  currency: z.string(),
  /** Open game pages subscribed to the session. */
  active_subscribers: z.int().nonnegative(),
  /** A signal was sent (not an acknowledged refresh). */
  notified: z.boolean(),
});
export type BalanceRefreshSession = z.infer<typeof BalanceRefreshSession>;

/** The response fields, without `success` (the `data` object). */
export const BalanceRefreshData = z.object({
  operator_id: z.string(),
  external_player_id: ExternalPlayerId,
  /** Echo of the request's request_id; null when none was sent. */
  request_id: z.string().nullable(),
  /** Echo of the request's reason; null when none was sent. */
  reason: z.string().nullable(),
  sessions_found: z.int().nonnegative(),
  /** Signals sent, not acknowledged refreshes; check subscribers_notified too. */
  sessions_notified: z.int().nonnegative(),
  subscribers_notified: z.int().nonnegative(),
  sessions: z.array(BalanceRefreshSession),
});
export type BalanceRefreshData = z.infer<typeof BalanceRefreshData>;

/** 200: the fields at top level plus `success: true`, and the same fields again under `data`. */
export const BalanceRefreshResponse = BalanceRefreshData.extend({
  success: z.literal(true),
  data: BalanceRefreshData,
}).superRefine((value, ctx) => {
  const key = firstMirrorMismatch(BalanceRefreshData.shape, value);
  if (key !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['data', key],
      message: `data.${key} must repeat the top-level ${key}`,
    });
  }
});
export type BalanceRefreshResponse = z.infer<typeof BalanceRefreshResponse>;
