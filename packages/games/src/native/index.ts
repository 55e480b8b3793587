export * from './dice.js';
export * from './hilo.js';
export * from './mines.js';
export {
  applyTo as applyRatio,
  type Ratio,
  ratio,
  toDecimal as ratioToDecimal,
  toFractionString as ratioToFraction,
  toNumber as ratioToNumber,
} from './rational.js';
export { nativeCryptoRng } from './rng.js';
export { MAX_MULTIPLIER, NativeMoveError, returnFactor } from './rules.js';
export {
  NATIVE_STRATEGIES,
  type NativeSimulationResult,
  type NativeStrategy,
  type NativeSymbol,
  simulateNative,
} from './simulate.js';
export type { RoundStage } from './stage.js';
