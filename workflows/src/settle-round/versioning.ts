// Deterministic workflow code (imported by the workflow bundle): a workflow's versioning behavior,
// declared only when the worker running it has a deployment version (WORKER_BUILD_ID). An
// unversioned worker (the default stack) fails any activation whose workflow declares one.
import { workflowInfo } from '@temporalio/workflow';

type Behavior = 'PINNED' | 'AUTO_UPGRADE';

/** setWorkflowOptions' options getter: `behavior` on a versioned worker, nothing otherwise. */
export function versioned(behavior: Behavior): () => { versioningBehavior?: Behavior } {
  // An unversioned worker still reports its build id, with no deployment name.
  return () =>
    workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: behavior } : {};
}
