export { ART_GAME_SYMBOLS, ART_SYMBOL_NAMES, symbolArtPath, symbolLabel, symbolSvg } from './art.js';
export { SLOT_SYMBOLS, STANDARD_PAYLINES, SYMBOL_NAMES, slotConfig, slotConfigs } from './configs.js';
export {
  costFactor,
  type FreeSpinResult,
  type FreeSpinRules,
  type LineWin,
  SCATTER,
  type SlotConfig,
  SlotRequestError,
  type SpecialLevel,
  type SpinMode,
  type SpinRequest,
  type SpinResult,
  spin,
  WILD,
} from './engine.js';
export { theoreticalRtp } from './math.js';
export { CryptoRng, type Rng } from './rng.js';
