// Worker Deployment Versioning, the deploy side (docs/settlement.md "Changing workflow code",
// docs/operations.md "Upgrade and rollback"): which version of the settlement workers new
// workflows go to, and what a version still runs. Node code; not in the workflow bundle.
import type { Connection } from '@temporalio/client';

export interface WorkerVersion {
  deploymentName: string;
  buildId: string;
}

/**
 * Makes `version` the deployment's current version: new rounds, payouts and tournaments start on
 * it, and auto-upgrade workflows (tournaments) move to it at their next workflow task; pinned
 * ones stay where they started. The version must have polled the task queue once (its workers
 * started): until then the server refuses, so this retries for up to `waitMs`.
 */
export async function setCurrentWorkerVersion(
  connection: Connection,
  namespace: string,
  version: WorkerVersion,
  options: { identity?: string; waitMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.waitMs ?? 30_000);
  for (;;) {
    try {
      await connection.workflowService.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity: options.identity ?? 'opi-deploy',
      });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export interface VersionState {
  /** The deployment's current version's build id (null: none set, new work goes to unversioned workers). */
  currentBuildId: string | null;
  /** Each version's build id and drainage (`DRAINING`: pinned workflows still open; `DRAINED`: none). */
  versions: { buildId: string; status: string; drainage: string | null }[];
}

/** What the deployment runs: its current version and each version's drainage. */
export async function describeWorkerDeployment(
  connection: Connection,
  namespace: string,
  deploymentName: string,
): Promise<VersionState> {
  const res = await connection.workflowService.describeWorkerDeployment({ namespace, deploymentName });
  const info = res.workerDeploymentInfo;
  // The proto enums arrive as numbers (temporal.api.enums.v1).
  const STATUS = ['UNSPECIFIED', 'INACTIVE', 'CURRENT', 'RAMPING', 'DRAINING', 'DRAINED'];
  const DRAINAGE = ['UNSPECIFIED', 'DRAINING', 'DRAINED'];
  const name = (v: unknown, names: string[]) =>
    v === null || v === undefined ? null : typeof v === 'number' ? (names[v] ?? String(v)) : String(v);
  return {
    currentBuildId: info?.routingConfig?.currentDeploymentVersion?.buildId || null,
    versions: (info?.versionSummaries ?? []).map((v) => ({
      buildId: v.deploymentVersion?.buildId ?? '',
      status: name(v.status, STATUS) ?? '',
      drainage: name(v.drainageInfo?.status ?? v.drainageStatus, DRAINAGE),
    })),
  };
}

/**
 * A stop-the-world deploy (the cluster stack's restart: every process stopped, then every
 * process started on the new release) leaves no worker of the old versions, so a round or payout
 * pinned to one would wait forever. This moves every open workflow of the deployment that is on
 * another version than `version` onto it (a pinned versioning override). It is replay-safe only
 * because every workflow change ships behind `patched()` with a recorded history (the corpus
 * guard, docs/settlement.md): the new code replays the old code's history. A rolling deploy never
 * calls it: the old version's workers stay until it is drained. Answers the workflow ids moved.
 */
export async function adoptOrphanedWorkflows(
  connection: Connection,
  namespace: string,
  version: WorkerVersion,
  options: { identity?: string } = {},
): Promise<string[]> {
  const query =
    `TemporalWorkerDeployment = '${version.deploymentName}' AND ExecutionStatus = 'Running'` +
    ` AND TemporalWorkerDeploymentVersion != '${version.deploymentName}:${version.buildId}'`;
  const moved: string[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await connection.workflowService.listWorkflowExecutions({
      namespace,
      query,
      pageSize: 500,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const e of page.executions ?? []) {
      const workflowId = e.execution?.workflowId;
      if (!workflowId) continue;
      try {
        await connection.workflowService.updateWorkflowExecutionOptions({
          namespace,
          workflowExecution: { workflowId, runId: e.execution?.runId ?? '' },
          workflowExecutionOptions: {
            versioningOverride: {
              pinned: {
                behavior: 1, // PINNED_OVERRIDE_BEHAVIOR_PINNED
                version: { deploymentName: version.deploymentName, buildId: version.buildId },
              },
            },
          },
          updateMask: { paths: ['versioning_override'] },
          identity: options.identity ?? 'opi-deploy',
        });
        moved.push(workflowId);
      } catch (err) {
        // Closed meanwhile: nothing to move.
        if (!/not found|completed|already/i.test(String(err))) throw err;
      }
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return moved;
}
