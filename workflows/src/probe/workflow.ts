import { proxyActivities } from '@temporalio/workflow';
import type { ProbeActivities } from './activities.js';

const { recordProbe } = proxyActivities<ProbeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 5, initialInterval: '200 milliseconds' },
});

/**
 * End-to-end probe: proves that the bundle was loaded by a worker, that the worker reaches
 * PostgreSQL through an activity, and that the client sees the result. Used by readiness checks
 * and by the stack's integration test.
 */
export async function probeWorkflow(
  probeId: string,
): Promise<{ probeId: string; worker: string; completedAt: string }> {
  return recordProbe(probeId);
}
