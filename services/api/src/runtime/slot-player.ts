import { CryptoRng, SLOT_SYMBOLS, slotConfig, spin } from '@opi/games';
import type { SlotPlayer } from './spin.js';

/** The real slot engine with the CSPRNG (never the workflow's deterministic random). */
export function createSlotPlayer(): SlotPlayer {
  const rng = new CryptoRng();
  return (symbol, request) => {
    if (!SLOT_SYMBOLS.includes(symbol)) throw new Error(`no slot engine for ${symbol}`);
    const result = spin(slotConfig(symbol), request, rng);
    return { costMinor: result.costMinor, totalWinMinor: result.totalWinMinor, outcome: result };
  };
}
