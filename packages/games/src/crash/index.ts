export {
  type CrashPhase,
  cashoutAt,
  centsAt,
  crashMs,
  decidedAtMs,
  GROWTH_PER_MS,
  MAX_ROUND_MS,
  msToReach,
  phaseAt,
} from './curve.js';
export * from './fairness.js';
export { type CrashSimulation, DEFAULT_TARGETS, type StrategyResult, simulateCrash } from './simulate.js';
export {
  CRASH_REVEALED_STATES,
  type CrashFairnessRow,
  type FairnessRecord,
  type PublicFairnessRecord,
  presentFairnessRecord,
  type SeedClaim,
  type Verification,
  type VerificationCheck,
  verifyFairness,
  verifySeed,
} from './verify.js';
