import { z } from 'zod';

/*
 * Player protection from the operator's wallet. A debit the operator's wallet refuses (HTTP 400,
 * `{success: false, error: <code>}`) is a definite rejection: the round is rejected, the debit is
 * never sent again, and no credit, cancel or rollback follows. What the game does next depends on
 * the code:
 *
 * - a round-only code (`insufficient_funds`, `limit_reached`, and the request faults of the
 *   reference wallet) rejects that round; the next bet is sent to the wallet as usual;
 * - any other code (`self_excluded`, `session_time_limit`, `player_blocked`, and every code this
 *   list does not know) also stops the session taking bets: every wager route answers 409
 *   `{detail, error: <code>, bets_blocked}` until the operator launches the game again (a new
 *   launch URL for the same player, game and currency resumes the session and clears it).
 */

/** Player-protection codes an operator wallet may refuse a debit with (HTTP 400, `error`). */
export const PLAYER_PROTECTION_CODES = [
  'limit_reached',
  'self_excluded',
  'session_time_limit',
  'player_blocked',
] as const;
export const PlayerProtectionCode = z.enum(PLAYER_PROTECTION_CODES);
export type PlayerProtectionCode = z.infer<typeof PlayerProtectionCode>;

/**
 * Wallet refusals that reject only the round they answer: not enough money, a limit the next bet
 * may be within, and faults of one request (the reference wallet's codes). Every other code a
 * debit is refused with blocks the session's bets until the operator relaunches.
 */
export const ROUND_ONLY_REJECTION_CODES = [
  'insufficient_funds',
  'limit_reached',
  'unknown_player',
  'invalid_request',
  'amount_mismatch',
  'transaction_conflict',
  'transaction_reversed',
  'round_cancelled',
  'round_settled',
  'original_mismatch',
] as const;

/** Protection codes that stop the session taking bets until relaunch. */
export const BETS_BLOCKING_CODES = ['self_excluded', 'session_time_limit', 'player_blocked'] as const;

/** HTTP status of a wager refused because the session's bets are blocked (body: BetsBlockedError). */
export const BETS_BLOCKED_STATUS = 409 as const;

const ROUND_ONLY = new Set<string>(ROUND_ONLY_REJECTION_CODES);

/**
 * Whether a debit refused with `code` stops the session taking bets until relaunch: the blocking
 * protection codes and every code the service does not know (fail safe).
 */
export function blocksBets(code: string): boolean {
  return !ROUND_ONLY.has(code);
}

/** What a player is told when the operator's wallet refuses a bet with a known code. */
export const WALLET_REFUSAL_MESSAGES: Readonly<Record<string, string>> = {
  insufficient_funds:
    'Insufficient funds: your balance does not cover this bet. Lower the stake or add funds with your operator.',
  limit_reached:
    'You have reached a limit set with your operator. This bet was not placed; a smaller bet or a later one may be accepted.',
  self_excluded:
    'You have excluded yourself from play with your operator. No further bets can be placed in this game.',
  session_time_limit:
    'You have reached the session time limit set with your operator. Bets are paused: open the game again from your operator when you may play again.',
  player_blocked:
    'Your account with your operator does not allow play right now. Please contact your operator.',
  unknown_player: 'Your operator does not know this account (unknown_player). Please contact your operator.',
};

/** The player-facing text for a refusal code; unknown codes get the generic text with the code. */
export function walletRefusalMessage(code: string): string {
  return Object.hasOwn(WALLET_REFUSAL_MESSAGES, code)
    ? WALLET_REFUSAL_MESSAGES[code]!
    : `Your operator declined this bet (${code}).`;
}

/** A session that stopped taking bets after a blocking refusal, until the operator relaunches. */
export const BetsBlocked = z.object({
  /** The operator wallet's refusal code that blocked the session's bets. */
  code: z.string(),
  /** What the game page shows the player. */
  message: z.string(),
  /** When the refusal was recorded (ISO 8601). */
  since: z.string(),
  /** The round whose debit was refused. */
  round_id: z.string().nullable(),
});
export type BetsBlocked = z.infer<typeof BetsBlocked>;

/** The 409 body of a wager while the session's bets are blocked. */
export const BetsBlockedError = z.object({
  /** The message for the player (as in `bets_blocked.message`). */
  detail: z.string(),
  /** The refusal code (as in `bets_blocked.code`). */
  error: z.string(),
  bets_blocked: BetsBlocked,
});
export type BetsBlockedError = z.infer<typeof BetsBlockedError>;
