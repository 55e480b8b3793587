import type { Pool, SecretBox } from '@opi/db';
import { createProbeActivities } from './probe/activities.js';
import { createSettlementActivities, type SettlementDeps } from './settle-round/activities.js';

export interface ActivityDeps {
  pool: Pool;
  /** Needed by settlement (wallet secrets are sealed at rest). */
  box?: SecretBox;
  settlement?: Partial<Omit<SettlementDeps, 'pool' | 'box'>>;
}

/** Every activity the worker registers, built from real dependencies (tests pass their own). */
export function createActivities(deps: ActivityDeps) {
  const probe = createProbeActivities(deps);
  if (!deps.box) return { ...probe };
  return {
    ...probe,
    ...createSettlementActivities({
      pool: deps.pool,
      box: deps.box,
      walletTimeoutMs: 10_000,
      stuckAfterAttempts: 3,
      requireHttps: false,
      ...deps.settlement,
    }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
