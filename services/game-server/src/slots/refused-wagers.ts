import type { HttpError } from '@opi/service-kit/http/errors';
import { tooManyRequests } from '@opi/service-kit/http/named-errors';
import type { GameDeps } from '../deps.js';

/**
 * The refusal limit of paid spins (issue 34, docs/jackpots-and-promotions.md): once the operator's
 * wallet has refused `limit` of a player's wagers within `windowSeconds` (insufficient funds, a
 * limit, any refusal code), that player's next paid spin is 429 with Retry-After until the oldest
 * of those refusals leaves the window. Counted per player of the operator, across sessions (a
 * relaunch does not reset it), by the spin's own statement from the journal (the partial index
 * wallet_transactions_debits_refused): no round trip, no counter to keep.
 */
export interface SpinRefusalLimit {
  limit: number;
  windowSeconds: number;
}

/** SPIN_REFUSALS_LIMIT and SPIN_REFUSALS_WINDOW_SECONDS (packages/config) defaults. */
export const DEFAULT_SPIN_REFUSALS: SpinRefusalLimit = { limit: 20, windowSeconds: 60 };

export const refusalLimitOf = (deps: Pick<GameDeps, 'spinRefusals'>): SpinRefusalLimit =>
  deps.spinRefusals ?? DEFAULT_SPIN_REFUSALS;

export function wagersRefusedError(retryAfterMs: number, limit: SpinRefusalLimit): HttpError {
  const ms = Math.max(1, Math.ceil(retryAfterMs));
  return tooManyRequests(
    `The wallet refused ${limit.limit} wagers of this player within ${limit.windowSeconds} s: try again in ${Math.ceil(ms / 1000)} s`,
    { error: 'wagers_refused', retry_after_ms: ms },
    { 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) },
  );
}
