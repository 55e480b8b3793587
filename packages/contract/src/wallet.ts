import { z } from 'zod';
import { ContractVersion, TransactionType } from './constants.js';
import { DecimalString, ExternalPlayerId, MinorAmount } from './primitives.js';

/*
 * Operator-hosted wallet callbacks: POST {wallet_base_url}/balance|debit|credit|cancel|rollback,
 * signed by the service. Success is HTTP 200 with WalletSuccessResponse; a rejected transaction is
 * HTTP 400 and a bad signature HTTP 401, both with WalletErrorResponse.
 */

/** Body the service sends to the operator wallet. */
export const WalletCallbackRequest = z
  .object({
    contract_version: ContractVersion,
    operator_id: z.string(),
    /** The launch's external_player_id, sent unchanged. */
    player_id: ExternalPlayerId,
    session_id: z.string(),
    game_symbol: z.string(),
    currency: z.string(),
    request_id: z.string(),
    /** Stable idempotency key: a repeated successful transaction_id returns the original result. */
    transaction_id: z.string(),
    /** Stable provider round identity. */
    round_id: z.string(),
    /** The operation; matches the callback path. */
    transaction_type: TransactionType,
    /**
     * E.g. a spin action or `balance`. On a credit it also says what is paid: the round's win (the
     * spin action), `free_round` (a free round's win), `jackpot_win` (a jackpot hit) or `promo_win`
     * (a tournament prize or prize drop). See isJackpotWin and isPromoWin in the operator SDK.
     */
    action_type: z.string(),
    /** Decimal amount (informational). */
    amount: z.number(),
    /** Canonical integer minor-unit amount. */
    amount_minor: MinorAmount,
    /** The reversed transaction; present only on rollback. */
    original_transaction_id: z.string().optional(),
    /**
     * Optional addition (free rounds): on the credit of a free round, the operator's campaign id
     * (`action_type` is then `free_round`; no debit was sent for the round).
     */
    campaign_id: z.string().optional(),
    /** Optional addition (free rounds): true on the credit of the player's last round of the campaign. */
    free_round_last: z.boolean().optional(),
    /**
     * Optional addition (jackpots): on the debit of a spin that fed a jackpot, and on a
     * `jackpot_win` credit, the jackpot's id.
     */
    jackpot_id: z.string().optional(),
    /**
     * Optional addition (jackpots): on the debit of a spin that fed a jackpot, its contribution
     * summed over the jackpot's levels, in millionths of the currency's minor unit, a decimal
     * integer string (exact at any stake; 1000000 is one minor unit). Informational: the debit's
     * amount_minor is the whole stake, contribution included.
     */
    jackpot_contribution_micros: z
      .string()
      .regex(/^[0-9]+$/)
      .optional(),
    /**
     * Optional addition (jackpots): on a `jackpot_win` credit, the level won (its name). The credit
     * is sent after the round's own credit, in the same round_id, with transaction_id
     * `<round_id>:jackpot:<level>`; no debit is paired with it.
     */
    jackpot_level: z.string().optional(),
    /**
     * Optional addition (promotions): on a `promo_win` credit, `tournament` (a tournament prize) or
     * `prize_drop`. Its round_id is the payout id (`pp_t_...`, `pp_d_...`) and its transaction_id
     * `<payout id>:credit`: no debit and no open round, and the player's session may be long over.
     */
    promo_type: z.enum(['tournament', 'prize_drop']).optional(),
    /** Optional addition (promotions): on a `promo_win` credit, the tournament's or prize drop's id. */
    promo_id: z.string().optional(),
    /** Optional addition (promotions): on a tournament's `promo_win` credit, the player's final rank (1 is first). */
    rank: z.number().int().min(1).optional(),
    /**
     * Optional addition (replay links, issue 26): on the round's own credit (the spin action; not
     * a free round's, `jackpot_win` or `promo_win` credit), the round's stable replay page, as
     * `round_details_url` in the audit API: signed, never expiring while the round is retained.
     */
    round_details_url: z.string().optional(),
  })
  .superRefine((body, ctx) => {
    const isRollback = body.transaction_type === 'rollback';
    const hasOriginal = body.original_transaction_id !== undefined;
    if (isRollback && !hasOriginal) {
      ctx.addIssue({
        code: 'custom',
        path: ['original_transaction_id'],
        message: 'a rollback carries original_transaction_id',
      });
    } else if (!isRollback && hasOriginal) {
      ctx.addIssue({
        code: 'custom',
        path: ['original_transaction_id'],
        message: 'original_transaction_id is present only on rollback',
      });
    }
  });
export type WalletCallbackRequest = z.infer<typeof WalletCallbackRequest>;

/** HTTP 200 from the operator wallet. */
export const WalletSuccessResponse = z.object({
  success: z.literal(true),
  /** Player balance after the operation, a decimal string. */
  balance: DecimalString,
  currency: z.string().optional(),
  transaction_id: z.string().optional(),
});
export type WalletSuccessResponse = z.infer<typeof WalletSuccessResponse>;

/** HTTP 400 (rejected transaction) or 401 (invalid signature) from the operator wallet. */
export const WalletErrorResponse = z.object({
  success: z.literal(false),
  /**
   * Error code, e.g. `insufficient_funds` (400) or `invalid_signature` (401). A debit may be refused
   * for player protection with `limit_reached` (that round only), `self_excluded`,
   * `session_time_limit` or `player_blocked` (the session takes no bets until the next launch, as
   * for any code the service does not know): see PLAYER_PROTECTION_CODES.
   */
  error: z.string().min(1),
  message: z.string().optional(),
});
export type WalletErrorResponse = z.infer<typeof WalletErrorResponse>;

/** Wallet error codes named by the spec; the complete list is not specified. */
export const WALLET_ERROR_CODES = ['insufficient_funds', 'invalid_signature'] as const;
