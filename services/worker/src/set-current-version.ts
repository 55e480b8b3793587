// The deploy step of Worker Deployment Versioning (docs/operations.md, "Upgrade and rollback"):
// makes WORKER_DEPLOYMENT_NAME/WORKER_BUILD_ID the current version once its workers poll, so new
// rounds, payouts and tournaments go to it. With --adopt (a stop-the-world deploy: no worker of an
// older version is left) it also moves the open workflows pinned to older versions onto it, which
// every workflow change behind patched() makes replay-safe. The compose file's `worker-version`
// job and the cluster stack run it; a rolling deploy runs it without --adopt and lets the old
// version drain.
import { loadConfigOrExit } from '@opi/config';
import { adoptOrphanedWorkflows, setCurrentWorkerVersion } from '@opi/workflows';
import { Connection } from '@temporalio/client';

const config = loadConfigOrExit();
if (!config.TEMPORAL_ADDRESS || !config.WORKER_BUILD_ID) {
  process.stderr.write('set-current-version needs TEMPORAL_ADDRESS and WORKER_BUILD_ID.\n');
  process.exit(2);
}
const version = { deploymentName: config.WORKER_DEPLOYMENT_NAME, buildId: config.WORKER_BUILD_ID };
const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
try {
  // The version's workers may still be starting: wait up to 5 minutes for their first poll.
  await setCurrentWorkerVersion(connection, config.TEMPORAL_NAMESPACE, version, { waitMs: 300_000 });
  const adopted = process.argv.includes('--adopt')
    ? await adoptOrphanedWorkflows(connection, config.TEMPORAL_NAMESPACE, version)
    : [];
  process.stdout.write(
    `${JSON.stringify({ msg: 'current worker version set', ...version, adopted: adopted.length })}\n`,
  );
} finally {
  await connection.close();
}
