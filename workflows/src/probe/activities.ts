import { hostname } from 'node:os';
import type { Pool } from '@opi/db';

export interface ProbeDeps {
  pool: Pool;
}

/** Activities of the probe workflow, built from their dependencies. */
export function createProbeActivities({ pool }: ProbeDeps) {
  return {
    async recordProbe(probeId: string): Promise<{ probeId: string; worker: string; completedAt: string }> {
      const worker = `${hostname()}:${process.pid}`;
      const { rows } = await pool.query<{ completed_at: Date }>(
        `INSERT INTO system_probes (probe_id, completed_at, worker) VALUES ($1, now(), $2)
         ON CONFLICT (probe_id) DO UPDATE SET completed_at = now(), worker = EXCLUDED.worker
         RETURNING completed_at`,
        [probeId, worker],
      );
      return { probeId, worker, completedAt: rows[0]!.completed_at.toISOString() };
    },
  };
}

export type ProbeActivities = ReturnType<typeof createProbeActivities>;
