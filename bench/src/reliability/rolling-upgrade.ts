/**
 * The rolling-upgrade drill (issue 35; docs/operations.md "Upgrade and rollback"):
 *
 *   npm run reliability -- --only rolling-upgrade [--cluster]   release N-1 -> N under load
 *   npm run reliability -- --only rollback [--cluster]          N-1 -> N, then back to N-1 while
 *                                                               N's rounds are in flight
 *
 * The stack starts at release N-1 (deploy/previous-release, checked out by prepareRelease): its
 * schema, its seed, its processes, its workflow bundle. Under load (slot spins with free rounds, a
 * network jackpot and a prize drop, native dice and crash rounds, launches, and a tournament that
 * ends after the upgrade), N's migrations are applied while N-1 runs, then each process is
 * replaced by N's one at a time (API, game servers, workers): taken out of the balancer, drained,
 * SIGTERMed, started from this checkout as the worker deployment version `n-<commit>`, which
 * becomes the current version once its first worker polls. Then every invariant of the suite, and:
 * no non-determinism error or failed workflow task in any process log, the tournament paid once
 * with its leaderboard frozen as it stood, every process on N. The report compares the error rate
 * and p99 of spins and launches before, during and after.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { prepareRelease, previousRelease, REPO_ROOT, sleep } from '@opi/devstack';
import { describeWorkerDeployment, setCurrentWorkerVersion } from '@opi/workflows';
import { Connection } from '@temporalio/client';
import { fmt } from '../lib/stats.js';
import { configureFamilies, FamilyLoad } from './family-load.js';
import { closeHttp, signedOk } from './http.js';
import { type Check, checkInvariants } from './invariants.js';
import { closedLoop, type KindSummary, Recorder, RoundLoad } from './load.js';
import type { Profile } from './profile.js';
import { emptyReport, type RunReport, waitForDrain } from './run.js';
import { configure } from './setup.js';
import { ADMIN_KEY, ReliabilityStack, type Service } from './stack.js';

export type DrillMode = 'rolling-upgrade' | 'rollback';

const DEPLOYMENT = 'opi-settlement';

/** This checkout's build id: `n-<short commit>` (`-dirty` with uncommitted changes). */
function currentBuildId(): string {
  const sha = execFileSync('git', ['rev-parse', '--short=10', 'HEAD'], { cwd: REPO_ROOT }).toString().trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: REPO_ROOT })
    .toString()
    .trim();
  return `n-${sha}${dirty ? '-dirty' : ''}`;
}

/** Lines of the process logs that tell of a non-determinism error or a failed workflow task. */
export function workflowTaskFailures(logDir: string): string[] {
  const bad = /nondetermin|DeterminismViolation|TMPRL1100|[Ww]orkflow task failed|Failing workflow task/;
  const out: string[] = [];
  for (const f of readdirSync(logDir)) {
    if (!f.endsWith('.log')) continue;
    for (const line of readFileSync(path.join(logDir, f), 'utf8').split('\n'))
      if (bad.test(line)) out.push(`${f}: ${line.slice(0, 300)}`);
  }
  return out;
}

function phaseLine(name: string, s: KindSummary[]): string {
  return `${name}: ${s
    .filter((k) => ['spin', 'launch', 'native', 'crash'].includes(k.kind))
    .map(
      (k) =>
        `${k.kind} ${k.count} (errors ${fmt(k.errorRate * 100, 2)}%, p50 ${fmt(k.p50, 0)} ms, p99 ${fmt(k.p99, 0)} ms)`,
    )
    .join('; ')}`;
}

/** Runs the drill; the report has one scenario, its checks and the per-phase figures as facts. */
export async function runUpgradeDrill(
  profile: Profile,
  log: (msg: string) => void,
  mode: DrillMode,
): Promise<RunReport> {
  const t0 = Date.now();
  const report = emptyReport(profile.name);
  const previous = previousRelease();
  const oldRoot = await prepareRelease(previous, log);
  const buildId = currentBuildId();
  log(`release N-1 ${previous.slice(0, 10)} (${oldRoot}); release N ${buildId} (this checkout)`);
  const stack = new ReliabilityStack({
    apiProcesses: 2,
    gameProcesses: 2,
    workerProcesses: 2,
    log,
    release: oldRoot,
  });
  const recorder = new Recorder();
  let load: RoundLoad | undefined;
  let families: FamilyLoad | undefined;
  let launching = true;
  let launches: Promise<void> | undefined;
  const checks: Check[] = [];
  const facts: string[] = [];
  let connection: Connection | undefined;
  try {
    await stack.start();
    report.dir = stack.dir;
    connection = await Connection.connect({ address: stack.temporal.address });
    const beforeSeconds = Math.max(20, profile.leadInSeconds * 10);
    const afterSeconds = beforeSeconds;
    // The tournament ends after the upgrade (six replacements, about 10-20 s each here) and, for
    // the rollback, during it.
    const tournamentSeconds = beforeSeconds + 150;
    const world = await configure(stack, tournamentSeconds);
    await configureFamilies(stack, world);
    load = new RoundLoad(
      stack,
      world,
      recorder,
      { players: profile.players, thinkMs: profile.thinkMs, poorEvery: 6 },
      { rounds: profile.freeRoundsPerGrant, playersPerPhase: profile.freeRoundPlayers },
    );
    families = new FamilyLoad(stack, world, recorder, load.openings);
    recorder.begin('before');
    await load.start();
    await load.grantFreeRounds().catch(() => []);
    load.resume();
    await families.start();
    launches = closedLoop(stack, world, recorder, 'launch', 1, () => !launching);

    log(`before: ${beforeSeconds} s of load on N-1`);
    await sleep(beforeSeconds * 1000);
    recorder.end('before');

    // ── the upgrade: N's migrations under N-1, then each process in turn ──────────────────────
    recorder.begin('upgrade');
    const upgradeStarted = Date.now();
    log("upgrade: N's migrations while N-1 runs");
    await stack.upgradeSchema();
    await load.grantFreeRounds().catch(() => []);
    const nEnv = { WORKER_BUILD_ID: buildId, WORKER_DEPLOYMENT_NAME: DEPLOYMENT };
    const order: Service[] = [...stack.apis, ...stack.games, ...stack.workers];
    let current = false;
    for (const s of order) {
      const t = Date.now();
      await s.replace(REPO_ROOT, nEnv);
      log(`  ${s.name} on N (${((Date.now() - t) / 1000).toFixed(1)} s)`);
      if (!current && s.kind !== 'api') {
        // Its (hosted) worker polls as N: new rounds, payouts and tournaments go to N from now on.
        await setCurrentWorkerVersion(connection, 'default', { deploymentName: DEPLOYMENT, buildId });
        current = true;
        log(`  worker version ${DEPLOYMENT}/${buildId} is current`);
      }
      await sleep(2_000);
    }
    const upgradeSeconds = (Date.now() - upgradeStarted) / 1000;
    recorder.end('upgrade');
    log(`upgrade done in ${upgradeSeconds.toFixed(0)} s`);

    recorder.begin('after');
    log(`after: ${afterSeconds} s of load on N`);
    await sleep(afterSeconds * 1000);
    recorder.end('after');

    if (mode === 'rollback') {
      // ── N back to N-1 while N's rounds are in flight ───────────────────────────────────────
      recorder.begin('rollback');
      const rollbackStarted = Date.now();
      log('rollback: new work back to the unversioned (N-1) workers; N drains its pinned rounds');
      const n1Env = { WORKER_BUILD_ID: undefined };
      const keep = stack.workers.at(-1)!;
      for (const s of [...stack.apis, ...stack.games, ...stack.workers.slice(0, -1)]) {
        const t = Date.now();
        await s.replace(oldRoot, n1Env);
        log(`  ${s.name} on N-1 (${((Date.now() - t) / 1000).toFixed(1)} s)`);
        if (s === stack.games[0]) {
          // An unversioned worker polls again: the deployment has no current version from now on.
          await setCurrentWorkerVersion(connection, 'default', { deploymentName: DEPLOYMENT, buildId: '' });
          log('  the deployment has no current version: new work goes to unversioned (N-1) workers');
        }
        await sleep(2_000);
      }
      // The last N worker stays until no workflow pinned to N is open.
      const query = `TemporalWorkerDeploymentVersion='${DEPLOYMENT}:${buildId}' AND ExecutionStatus='Running'`;
      const deadline = Date.now() + 180_000;
      let open = -1;
      while (Date.now() < deadline) {
        open = Number(
          (await connection.workflowService.countWorkflowExecutions({ namespace: 'default', query })).count ??
            0,
        );
        if (open === 0) break;
        await sleep(2_000);
      }
      facts.push(`rollback: N's pinned workflows still open when its last worker stopped: ${open}`);
      checks.push({
        name: 'every workflow pinned to N finished on N before its last worker stopped',
        ok: open === 0,
        detail: `${open} open (${query})`,
      });
      await keep.replace(oldRoot, n1Env);
      log(`  ${keep.name} on N-1; rollback done in ${((Date.now() - rollbackStarted) / 1000).toFixed(0)} s`);
      recorder.end('rollback');
      recorder.begin('after-rollback');
      await sleep(afterSeconds * 1000);
      recorder.end('after-rollback');
    }

    // ── the tournament ends after the upgrade and pays once ───────────────────────────────────
    const origin = () => stack.apiOrigin(stack.apis.find((a) => a.ready) ?? stack.apis[0]!);
    const tid = world.promotions.tournamentId;
    log(`waiting for tournament ${tid} (ends ${world.promotions.tournamentEndsAt.toISOString()}) to pay`);
    let tournament: any;
    const paidBy = world.promotions.tournamentEndsAt.getTime() + 120_000;
    while (Date.now() < paidBy) {
      tournament = (
        await signedOk(origin(), ADMIN_KEY, 'GET', `/api/admin/v1/tournaments/${tid}`).catch(() => ({}))
      ).data;
      if (tournament?.status === 'paid') break;
      await sleep(2_000);
    }
    launching = false;
    await launches;
    await families.stop();
    await load.pause();
    const drain = await waitForDrain(stack, world, Date.now(), profile.drainLimitSeconds + 30, new Set());
    checks.push({
      name: `backlog drained within ${profile.drainLimitSeconds} s`,
      ok: drain.seconds !== null && drain.seconds <= profile.drainLimitSeconds,
      detail: drain.seconds === null ? drain.last : `${drain.seconds.toFixed(1)} s`,
    });
    const inv = await checkInvariants({ stack, world, load, seenStuck: new Set() });
    checks.push(...inv.checks);
    facts.push(...inv.facts);

    // The tournament: ended after the upgrade, paid once, its leaderboard frozen as it stood.
    const { rows: standing } = await stack.pool.query<{
      same: boolean;
      n: number;
      payouts: number;
      credits: number;
    }>(
      `WITH live AS (
         SELECT currency, operator_id, external_player_id, score,
                rank() OVER (PARTITION BY currency ORDER BY score DESC, score_reached_at,
                             external_player_id COLLATE "C", operator_id COLLATE "C") AS rank
           FROM tournament_scores WHERE tournament_id = $1 AND score > 0
       ), frozen AS (
         SELECT currency, operator_id, external_player_id, score, rank FROM tournament_standings WHERE tournament_id = $1
       )
       SELECT NOT EXISTS ((SELECT * FROM live EXCEPT SELECT * FROM frozen) UNION ALL (SELECT * FROM frozen EXCEPT SELECT * FROM live)) AS same,
              (SELECT count(*) FROM frozen)::int AS n,
              (SELECT count(*) FROM promo_payouts WHERE promo_type = 'tournament' AND promo_id = $1 AND status = 'paid')::int AS payouts,
              (SELECT count(*) FROM wallet_transactions t JOIN promo_payouts p ON p.payout_id = t.round_id
                WHERE p.promo_id = $1 AND t.status = 'success')::int AS credits`,
      [tid],
    );
    const s = standing[0]!;
    checks.push({
      name: 'the tournament that ended after the upgrade is paid once, its leaderboard frozen as it stood',
      ok: tournament?.status === 'paid' && s.same && s.n > 0 && s.payouts === s.credits && s.payouts > 0,
      detail: `status ${tournament?.status}, ${s.n} standings (${s.same ? 'equal to the scores at the end' : 'DIFFER from the scores'}), ${s.payouts} payouts paid, ${s.credits} successful credits`,
    });

    // No non-determinism, no failed workflow task, in any process's log.
    const failures = workflowTaskFailures(path.join(stack.dir, 'logs'));
    checks.push({
      name: 'no non-determinism error or failed workflow task in any process log',
      ok: failures.length === 0,
      detail: failures.length ? failures.slice(0, 5).join(' | ') : 'none',
    });
    const want = mode === 'rollback' ? oldRoot : REPO_ROOT;
    checks.push({
      name: `every process runs ${mode === 'rollback' ? 'N-1' : 'N'} at the end`,
      ok: stack.services.filter((x) => x.kind !== 'wallet').every((x) => x.root === want),
      detail: stack.services.map((x) => `${x.name} ${x.root === REPO_ROOT ? 'N' : 'N-1'}`).join(', '),
    });
    const deployment = await describeWorkerDeployment(connection, 'default', DEPLOYMENT).catch(
      () => undefined,
    );
    facts.push(
      `worker deployment ${DEPLOYMENT}: current ${deployment?.currentBuildId ?? '(unversioned)'}; versions ${deployment?.versions
        .map((v) => `${v.buildId} ${v.status}${v.drainage ? ` ${v.drainage}` : ''}`)
        .join(', ')}`,
    );
    facts.push(`upgrade: ${upgradeSeconds.toFixed(0)} s for ${order.length} processes`);
    const phases = [
      'before',
      'upgrade',
      'after',
      ...(mode === 'rollback' ? ['rollback', 'after-rollback'] : []),
    ];
    for (const p of phases) facts.push(phaseLine(p, recorder.summary(p)));
    const during = recorder.summary('upgrade');
    checks.push({
      name: 'spins, launches, native and crash rounds were served through the upgrade (error rate below 1%)',
      ok:
        ['spin', 'launch', 'native', 'crash'].every(
          (k) => (during.find((x) => x.kind === k)?.count ?? 0) > 0,
        ) && during.every((k) => k.errorRate < 0.01),
      detail: phaseLine('upgrade', during),
    });
    // The go-live suite passes on N: the CI subset on a cluster stack of N's checkout (its own
    // data and ports), once the drill's stack is stopped. DRILL_GOLIVE=off leaves it out.
    if (mode === 'rolling-upgrade' && process.env.DRILL_GOLIVE !== 'off') {
      await stack.stop().catch(() => {});
      log('go-live suite on N: npm run golive -- --cluster --ci');
      const golive = await runGolive();
      facts.push(`go-live on N: ${golive.summary} (${golive.seconds.toFixed(0)} s)`);
      checks.push({
        name: '`npm run golive -- --cluster --ci` passes on N',
        ok: golive.ok,
        detail: golive.summary,
      });
    }
    report.scenarios.push({
      name: mode,
      title:
        mode === 'rollback'
          ? `Rolling upgrade from ${previous.slice(0, 10)} to ${buildId}, then back while N's rounds are in flight`
          : `Rolling upgrade from ${previous.slice(0, 10)} to ${buildId} under load`,
      seconds: (Date.now() - t0) / 1000,
      drainSeconds: drain.seconds,
      load: [...recorder.summary('before'), ...recorder.summary('upgrade'), ...recorder.summary('after')],
      checks,
      facts,
    });
    for (const c of checks) log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? '' : `: ${c.detail}`}`);
    report.events = stack.events
      .filter((e) => e.event !== 'started')
      .map(
        (e) =>
          `${new Date(e.at).toISOString().slice(11, 19)} ${e.service} ${e.event}${e.detail ? ` (${e.detail})` : ''}`,
      );
    report.ok = checks.every((c) => c.ok);
    return report;
  } finally {
    launching = false;
    await launches?.catch(() => {});
    await families?.stop().catch(() => {});
    await load?.stop().catch(() => {});
    await connection?.close().catch(() => {});
    await stack.stop().catch(() => {});
    await closeHttp().catch(() => {});
    report.seconds = (Date.now() - t0) / 1000;
  }
}

/** `npm run golive -- --cluster --ci` in N's checkout: whether it passed and its summary line. */
async function runGolive(): Promise<{ ok: boolean; summary: string; seconds: number }> {
  const t0 = Date.now();
  let out = '';
  const child = spawn(process.execPath, ['scripts/golive.mjs', '--cluster', '--ci'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => {
    out = (out + d).slice(-20_000);
  });
  child.stderr.on('data', (d) => {
    out = (out + d).slice(-20_000);
  });
  const timer = setTimeout(() => child.kill('SIGINT'), 20 * 60_000);
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  clearTimeout(timer);
  // The summary table: one line per item (pass, fail, not_checkable), then one per game and device.
  const items = [...out.matchAll(/^ {2}(pass|fail|not_checkable) +(\S+)/gm)];
  const count = (k: string) => items.filter((m) => m[1] === k).length;
  const failed = items.filter((m) => m[1] === 'fail').map((m) => m[2]);
  const runs = [...out.matchAll(/^ {2}(passed|failed) +\S+ on \S+/gm)];
  return {
    ok: code === 0,
    summary:
      `exit ${code}; items: ${count('pass')} pass, ${count('fail')} fail${failed.length ? ` (${failed.slice(0, 6).join(', ')})` : ''}, ` +
      `${count('not_checkable')} not checkable; game/device runs: ${runs.filter((m) => m[1] === 'passed').length} passed, ` +
      `${runs.filter((m) => m[1] === 'failed').length} failed${items.length ? '' : `; ${out.trim().split('\n').slice(-3).join(' / ')}`}`,
    seconds: (Date.now() - t0) / 1000,
  };
}
