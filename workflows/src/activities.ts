import type { Pool } from '@opi/db';
import { createProbeActivities } from './probe/activities.js';

export interface ActivityDeps {
  pool: Pool;
}

/** Every activity the worker registers, built from real dependencies (tests pass their own). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createProbeActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
