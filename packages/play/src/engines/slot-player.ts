import { CryptoRng, SLOT_SYMBOLS, slotConfig, spin } from '@opi/games';

/** What a slot engine answers for one paid play. */
export interface SlotPlayResult {
  /** What the player pays (the bet, a bought feature's price, or bet x level). */
  costMinor: bigint;
  totalWinMinor: bigint;
  /** Everything the page shows and the history keeps (grid, wins, free spins). */
  outcome: unknown;
}
/** A slot engine: the API's dependency (ApiDeps.slots) that the slot runtime's spin plays. */
export type SlotPlayer = (
  symbol: string,
  request: { betMinor: bigint; mode: 'base' | 'buy' | 'special'; betLevel?: number },
) => SlotPlayResult;

/** The real slot engine with the CSPRNG (never the workflow's deterministic random). */
export function createSlotPlayer(): SlotPlayer {
  const rng = new CryptoRng();
  return (symbol, request) => {
    if (!SLOT_SYMBOLS.includes(symbol)) throw new Error(`no slot engine for ${symbol}`);
    const result = spin(slotConfig(symbol), request, rng);
    return { costMinor: result.costMinor, totalWinMinor: result.totalWinMinor, outcome: result };
  };
}
