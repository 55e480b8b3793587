import type { Pool } from '@opi/db';
import { isSlotTitle, SLOT_SYMBOLS, SYMBOL_NAMES, slotConfig, symbolArtPath, symbolLabel } from '@opi/games';
import { currencyExponent } from '@opi/money';
import { type StakeOptions, stakeOptions } from '@opi/play/engines/stakes';
import { type DisplayFacts, displayFacts } from '@opi/play/sessions/display';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { ladderById, presentLadder } from '@opi/play/sessions/stake-ladders';

/** What the game page needs beyond the session row (added to `GET /api/runtime/session`). */
export interface PageFacts extends StakeOptions {
  /** The title's display name. */
  title: string;
  /** Minor-unit exponent of the session currency (the registry's: EUR 2, BTC 8, ETH 9). */
  currency_exponent: number;
  /** The display unit the page shows amounts in (issue 39; docs/currencies.md). */
  display: DisplayFacts;
  /** The stake ladder the session is frozen with (issue 39: crypto currencies), or null. */
  stake_ladder: ReturnType<typeof presentLadder> | null;
  /** The operator's bet limits in minor units (decimal strings). */
  bet_limits: { min_minor: string; max_minor: string };
  /** Names of the engine's symbol ids as they appear in a spin's `outcome.grid` (slots; else []). */
  symbol_names: string[];
  /** The title's drawn symbols, by the same ids: the SVG's path and the symbol's spoken name (slots; else []). */
  symbol_art: { path: string; label: string }[];
  /** Rows (0..2) per reel of each payline, by a line win's `line` (slots; [] for a ways title or no slot). */
  paylines: number[][];
  /** Whether line wins are ways (`line` -1: the symbol on adjacent reels from the left). */
  ways: boolean;
}

export async function pageFacts(pool: Pool, session: RuntimeSession): Promise<PageFacts> {
  const { rows } = await pool.query<{ title: string; bet_min_minor: bigint; bet_max_minor: bigint }>(
    `SELECT g.title, o.bet_min_minor, o.bet_max_minor
     FROM games g, operators o WHERE g.symbol = $1 AND o.operator_id = $2`,
    [session.symbol, session.operator_id],
  );
  const row = rows[0]!;
  const isSlot = isSlotTitle(session.provider_id) && SLOT_SYMBOLS.includes(session.symbol);
  const ladder = session.stake_ladder_id ? await ladderById(pool, session.stake_ladder_id) : null;
  const stakes = isSlot
    ? stakeOptions({
        ladderMinor: ladder ? ladder.stakes_minor.map(BigInt) : null,
        betMinMinor: row.bet_min_minor,
        // GB: only stakes within the session's cap per spin are offered (the spin refuses others).
        betMaxMinor:
          session.max_stake_minor != null && session.max_stake_minor < row.bet_max_minor
            ? session.max_stake_minor
            : row.bet_max_minor,
        coinMinor: session.coin_minor,
        config: slotConfig(session.symbol),
      })
    : { stakes_minor: [], bet_levels: [] };
  return {
    title: row.title,
    currency_exponent: currencyExponent(session.currency),
    display: displayFacts(session),
    stake_ladder: ladder ? presentLadder(ladder) : null,
    bet_limits: { min_minor: row.bet_min_minor.toString(), max_minor: row.bet_max_minor.toString() },
    ...stakes,
    symbol_names: isSlot ? [...SYMBOL_NAMES] : [],
    symbol_art: isSlot
      ? SYMBOL_NAMES.map((name) => ({
          path: symbolArtPath(session.symbol, name),
          label: symbolLabel(session.symbol, name) ?? name,
        }))
      : [],
    paylines: isSlot ? slotConfig(session.symbol).paylines.map((l) => [...l]) : [],
    ways: isSlot && slotConfig(session.symbol).ways,
  };
}
