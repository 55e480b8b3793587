/**
 * The reliability suite: faults, load and hostile input, with nothing lost. Starts its own stack
 * (every part a separate process), drives real rounds through the game runtime, runs each fault
 * scenario and checks the invariants after it, then the hostile input and a load run. Prints the
 * report and exits 1 when any invariant broke (docs/reliability.md).
 *
 *   npm run reliability                 the default profile (about 10 minutes)
 *   npm run reliability -- --ci         the CI-sized run (part of npm test, a few minutes)
 *   npm run reliability -- --long       the long run (10-minute load run, minute-long faults)
 *   npm run reliability -- --cluster    (with any of the above) on the production topology's
 *                                       Temporal: the real Temporal server on the platform's
 *                                       PostgreSQL instead of the dev server (RELIABILITY_CLUSTER=1
 *                                       does the same; RELIABILITY_HISTORY_SHARDS, default 4)
 *   options: --only <name,...> (scenarios: baseline, worker-kills, commit-then-kill, api-kill, game-kill,
 *            temporal-restart, postgres-restart, wallet-faults, wrong-secret, hostile-input,
 *            load-run), --report <file>, --keep (keep the run directory even when all passed)
 *   npm run reliability -- --only rolling-upgrade [--cluster]   the upgrade drill: release N-1
 *                                       (deploy/previous-release) to this checkout under load
 *   npm run reliability -- --only rollback [--cluster]          the same, then back to N-1 while
 *                                       N's rounds are in flight (rolling-upgrade.ts)
 *   npm run reliability -- --only alerts    the alert drill on the cluster stack and its Prometheus:
 *                                       every worker and hosted worker stopped, a round unsettled,
 *                                       the alerts fire and resolve; the dashboard's queries
 *                                       (alerts.ts)
 */
import { rmSync } from 'node:fs';
import { TEMPORAL_SERVER_VERSION } from '@opi/devstack';
import { runAlertDrill } from './reliability/alerts.js';
import { profileFromArgs } from './reliability/profile.js';
import { runUpgradeDrill } from './reliability/rolling-upgrade.js';
import { runReliability, writeReport } from './reliability/run.js';

const args = process.argv.slice(2);
const flagValue = (flag: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};
const profile = profileFromArgs(args);
// The stack reads it (ReliabilityStack's `cluster` option defaults to it).
if (args.includes('--cluster')) process.env.RELIABILITY_CLUSTER = '1';
const cluster = process.env.RELIABILITY_CLUSTER === '1';
const only = flagValue('--only') ? new Set(flagValue('--only')!.split(',')) : undefined;
const t0 = Date.now();
const log = (msg: string) =>
  process.stdout.write(`[reliability ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${msg}\n`);

log(
  `profile ${profile.name}${cluster ? ', cluster (the real Temporal server on PostgreSQL)' : ''}${only ? `, only ${[...only].join(', ')}` : ''}`,
);
let code = 1;
try {
  const drill = only?.has('rollback')
    ? 'rollback'
    : only?.has('rolling-upgrade')
      ? 'rolling-upgrade'
      : undefined;
  if (drill && only!.size > 1)
    throw new Error(`--only ${drill} runs alone (it starts its own stack at release N-1)`);
  if (only?.has('alerts') && only.size > 1)
    throw new Error('--only alerts runs alone (it starts its own cluster stack)');
  const report = only?.has('alerts')
    ? await runAlertDrill(log)
    : drill
      ? await runUpgradeDrill(profile, log, drill)
      : await runReliability(profile, log, only);
  if (cluster)
    report.profile = `${report.profile}, cluster (Temporal server v${TEMPORAL_SERVER_VERSION} on PostgreSQL, ${process.env.RELIABILITY_HISTORY_SHARDS || 4} history shards)`;
  process.stdout.write(`\n${writeReport(report, flagValue('--report'))}\n`);
  code = report.ok ? 0 : 1;
  if (report.ok && !args.includes('--keep') && report.dir)
    rmSync(report.dir, { recursive: true, force: true });
} catch (err) {
  process.stderr.write(
    `reliability run failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
}
process.exit(code);
