import { z } from 'zod';

/*
 * The staff API's player protection view (`GET /api/staff/v1/operators/{operator_id}/protection`;
 * issue 18): refused debits by code and the latest ones, the sessions whose bets are blocked now,
 * and the reality checks. Amounts are strings of minor units.
 */

export const StaffProtectionRefusal = z.object({
  transaction_id: z.string(),
  code: z.string(),
  player_id: z.string(),
  session_id: z.string(),
  round_id: z.string(),
  game_symbol: z.string(),
  amount_minor: z.string(),
  currency: z.string(),
  at: z.string(),
});

export const StaffBlockedSession = z.object({
  session_id: z.string(),
  player_id: z.string(),
  symbol: z.string(),
  code: z.string(),
  since: z.string(),
  round_id: z.string().nullable(),
});

export const StaffRealityCheck = z.object({
  session_id: z.string(),
  player_id: z.string(),
  due_at: z.string(),
  acknowledged_at: z.string(),
  action: z.string(),
  elapsed_ms: z.number(),
  net_minor: z.string(),
  currency: z.string(),
});

export const StaffProtectionView = z.object({
  /** The player-protection codes counted (PLAYER_PROTECTION_CODES). */
  codes: z.array(z.string()),
  refusals_by_code: z.array(z.object({ code: z.string(), count: z.number().int(), last_at: z.string() })),
  recent_refusals: z.array(StaffProtectionRefusal),
  blocked_sessions: z.array(StaffBlockedSession),
  reality_checks: z.object({
    by_action: z.array(z.object({ action: z.string(), count: z.number().int() })),
    due_unanswered: z.number().int(),
    recent: z.array(StaffRealityCheck),
  }),
});
export type StaffProtectionView = z.infer<typeof StaffProtectionView>;
