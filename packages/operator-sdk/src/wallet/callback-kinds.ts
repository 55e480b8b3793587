import type { WalletCallbackRequest } from '../types.js';

/*
 * What a wallet callback pays or takes, for the operator's wallet code (issue 25). Every field
 * below is optional on the contract's callbacks; these guards narrow a verified body:
 *
 * - a spin that fed a jackpot: a `debit` with `jackpot_id` and `jackpot_contribution_micros`
 *   (millionths of a minor unit, a decimal string; the debit's amount_minor is the whole stake);
 * - a jackpot win: a `credit` with `action_type: jackpot_win`, `jackpot_id` and `jackpot_level`,
 *   in the round's own round_id, sent after the round's credit, transaction id
 *   `<round_id>:jackpot:<level>`, no debit of its own;
 * - a promotional payout (tournament prize, prize drop): a `credit` with `action_type: promo_win`,
 *   `promo_type`, `promo_id` and, for a tournament, `rank`; its round_id is the payout id and no
 *   debit or open round goes with it (the player's session may be long over): accept it anyway.
 */

/** A debit of a spin that fed a jackpot. */
export type JackpotContributionDebit = WalletCallbackRequest & {
  transaction_type: 'debit';
  jackpot_id: string;
  jackpot_contribution_micros: string;
};

/** A jackpot win's credit. */
export type JackpotWinCredit = WalletCallbackRequest & {
  transaction_type: 'credit';
  action_type: 'jackpot_win';
  jackpot_id: string;
  jackpot_level: string;
};

/** A promotional payout's credit (a tournament prize or a prize drop). */
export type PromoWinCredit = WalletCallbackRequest & {
  transaction_type: 'credit';
  action_type: 'promo_win';
  promo_type: 'tournament' | 'prize_drop';
  promo_id: string;
};

/** A free round's win (no debit in its round; the operator funds it). */
export type FreeRoundCredit = WalletCallbackRequest & {
  transaction_type: 'credit';
  action_type: 'free_round';
  campaign_id: string;
};

/**
 * What a credit pays: `round_win` (a round's win, after its debit), `free_round`, `jackpot_win`
 * or `promo_win`.
 */
export type CreditKind = 'round_win' | 'free_round' | 'jackpot_win' | 'promo_win';

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** A debit that fed a jackpot (`jackpot_id` and `jackpot_contribution_micros` present). */
export function isJackpotContribution(body: WalletCallbackRequest): body is JackpotContributionDebit {
  return (
    body.transaction_type === 'debit' &&
    str(body.jackpot_id) &&
    typeof body.jackpot_contribution_micros === 'string' &&
    /^[0-9]+$/.test(body.jackpot_contribution_micros)
  );
}

/** A jackpot win's credit (`action_type: jackpot_win`). */
export function isJackpotWin(body: WalletCallbackRequest): body is JackpotWinCredit {
  return (
    body.transaction_type === 'credit' &&
    body.action_type === 'jackpot_win' &&
    str(body.jackpot_id) &&
    str(body.jackpot_level)
  );
}

/** A promotional payout's credit (`action_type: promo_win`): no debit, no open round. */
export function isPromoWin(body: WalletCallbackRequest): body is PromoWinCredit {
  return (
    body.transaction_type === 'credit' &&
    body.action_type === 'promo_win' &&
    (body.promo_type === 'tournament' || body.promo_type === 'prize_drop') &&
    str(body.promo_id)
  );
}

/** A free round's win (`action_type: free_round`). */
export function isFreeRoundWin(body: WalletCallbackRequest): body is FreeRoundCredit {
  return body.transaction_type === 'credit' && body.action_type === 'free_round' && str(body.campaign_id);
}

/** What a credit pays, or null for any other callback. */
export function creditKind(body: WalletCallbackRequest): CreditKind | null {
  if (body.transaction_type !== 'credit') return null;
  if (isJackpotWin(body)) return 'jackpot_win';
  if (isPromoWin(body)) return 'promo_win';
  if (isFreeRoundWin(body)) return 'free_round';
  return 'round_win';
}
