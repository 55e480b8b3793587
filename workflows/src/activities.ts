import type { Pool, SecretBox } from '@opi/db';
import { createFloorActivities } from './floor/activities.js';
import { createProbeActivities } from './probe/activities.js';
import { createPromotionActivities } from './promotions/activities.js';
import { createSettlementActivities, type SettlementDeps } from './settle-round/activities.js';

export interface ActivityDeps {
  pool: Pool;
  /** Needed by settlement (wallet secrets are sealed at rest). */
  box?: SecretBox;
  settlement?: Partial<Omit<SettlementDeps, 'pool' | 'box'>>;
}

/** Every activity the worker registers, built from real dependencies (tests pass their own). */
export function createActivities(deps: ActivityDeps) {
  // The floor's no-op steps (floorRound) are registered everywhere: benchmarks run them on any worker.
  // Both announce a round's end in this process the same way (the game server's settlement/local-outcomes.ts).
  const base = {
    ...createProbeActivities(deps),
    ...createFloorActivities(deps.settlement?.announce),
  };
  if (!deps.box) return { ...base };
  const settlement = {
    pool: deps.pool,
    box: deps.box,
    walletTimeoutMs: 10_000,
    stuckAfterAttempts: 3,
    requireHttps: false,
    ...deps.settlement,
  };
  return {
    ...base,
    ...createSettlementActivities(settlement),
    // Promotional payouts and tournaments (issue 25): the same wallet settings.
    ...createPromotionActivities(settlement),
  };
}

export type Activities = ReturnType<typeof createActivities>;
