import { STORED_RTP } from '../catalog.js';
import { type Ratio, ratio } from './rational.js';

/**
 * A title's return factor (1 - edge) as an exact ratio, read from the catalog's stored RTP (a
 * two-decimal string such as '97.00'), so the catalog and the mathematics cannot drift apart.
 */
export function returnFactor(symbol: keyof typeof STORED_RTP): Ratio {
  const m = /^([0-9]{1,3})\.([0-9]{2})$/.exec(STORED_RTP[symbol]);
  if (!m) throw new Error(`stored RTP of ${symbol} is not a two-decimal figure`);
  return ratio(BigInt(m[1]!) * 100n + BigInt(m[2]!), 10_000n);
}

/**
 * The largest multiplier a multi-stage round may reach: a reveal or guess that would pass it is
 * not offered (the player cashes out instead). Stopping early never changes the expected return,
 * so the cap keeps the RTP exact while bounding the largest win to 10,000 x the stake.
 */
export const MAX_MULTIPLIER: Ratio = ratio(10_000);

/** Thrown for a move the rules do not allow (the runtime answers 409/422 with its message). */
export class NativeMoveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NativeMoveError';
  }
}
