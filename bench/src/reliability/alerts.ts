/**
 * The alert drill (issue 37): `npm run reliability -- --only alerts`. The cluster stack (the real
 * Temporal server, the services' dist/ builds, its Prometheus with deploy/prometheus/rules
 * rendered again with `for: 20s` and reloaded) is driven into the two faults the settlement alerts
 * exist for, then brought back:
 *
 *   - rounds are spun (the dashboard's panels then have data), then the sandbox wallet is frozen
 *     (SIGSTOP) and a spin is taken: its round cannot settle;
 *   - every settlement worker and every game-server process (their hosted workers) is frozen
 *     (SIGSTOP): nothing polls the settlement task queue;
 *   - OpiSettlementNoPollers must fire within its `for` (plus a scrape and an evaluation), and
 *     OpiOldestUnsettledRound once the round is older than 120 s plus its `for`;
 *   - everything is resumed (SIGCONT): both alerts must resolve, the round settle exactly once (one
 *     successful debit, then its credit or rollback, nothing pending) and reconciliation find no
 *     mismatch;
 *   - every query of the Grafana dashboard (deploy/grafana/settlement-dashboard.json) is run with
 *     `promtool query instant` against this Prometheus: each succeeds, and the panels fed by the
 *     spins return series.
 */
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT, sleep } from '@opi/devstack';
import { ensurePrometheus, freePortRange, promtool, renderRules } from '@opi/devstack/prometheus';
import { freeLowPort } from '@opi/devstack/temporal-cluster';
import { requestOnce, signedHeaders, startStackProcess } from '@opi/devstack/test-support/stack-process';
import { freePort } from '@opi/devstack/wait';
import pg from 'pg';
import type { Check } from './invariants.js';
import { emptyReport, type RunReport } from './run.js';

const SHORT_FOR = '20s';
const OLDEST_THRESHOLD_SECONDS = 120;

interface Alert {
  labels: { alertname: string };
  state: string;
}

export async function runAlertDrill(log: (msg: string) => void): Promise<RunReport> {
  const t0 = Date.now();
  const checks: Check[] = [];
  const facts: string[] = [];
  const check = (name: string, ok: boolean, detail: string) => {
    checks.push({ name, ok, detail });
    log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
  };
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'opi-alerts-'));
  await chmod(dataDir, 0o755);
  const report = emptyReport('alerts', dataDir);
  const tools = await ensurePrometheus(log);

  const ports: Record<string, number> = {};
  for (const name of [
    'PORT',
    'GAME_SERVER_PORT',
    'PG_PORT',
    'WALLET_PORT',
    'API_METRICS_PORT',
    'GAME_METRICS_PORT',
  ])
    ports[name] = await freePort();
  const taken = new Set<number>();
  ports.WORKER_METRICS_PORT = await freePortRange(2, taken);
  ports.TEMPORAL_PORT = await freeLowPort(taken);
  taken.add(ports.TEMPORAL_PORT);
  ports.TEMPORAL_SDK_METRICS_PORT = await freePortRange(4, taken);
  ports.PROMETHEUS_PORT = await freePortRange(3, taken);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    STACK_PORTAL: 'off',
    STACK_DEMO: 'on',
    LOG_LEVEL: 'warn',
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
  };
  for (const k of [
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'PUBLIC_BASE_URL',
    'GAME_BASE_URL',
    'NODE_EXTRA_CA_CERTS',
    'NODE_ENV',
    'TLS_CERT_FILE',
    'TLS_KEY_FILE',
  ])
    delete env[k];

  log('starting the cluster stack (npm run start:cluster) with its Prometheus');
  const stack = await startStackProcess(env, ['--cluster']);
  const prom = `http://127.0.0.1:${ports.PROMETHEUS_PORT}`;
  const frozen: number[] = [];
  const signal = (pids: number[], sig: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, sig);
      } catch {}
    }
  };
  let db: pg.Client | undefined;
  try {
    const key = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'))
      .demoOperatorKey as string;
    const ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'));
    db = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${ports.PG_PORT}/opi` });
    await db.connect();
    const pidOf = (name: string) => Number(readFileSync(path.join(dataDir, 'run', `${name}.pid`), 'utf8'));
    const children = (pid: number) =>
      readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);

    // The rules with short waits, as Prometheus reads them from DATA_DIR/prometheus/rules.
    renderRules(path.join(dataDir, 'prometheus', 'rules'), SHORT_FOR);
    const reload = await fetch(`${prom}/-/reload`, { method: 'POST' });
    check('the rules rendered with for: 20s and reloaded', reload.ok, `POST /-/reload: ${reload.status}`);

    const alerts = async () =>
      ((await (await fetch(`${prom}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } }).data.alerts;
    const firing = async (name: string) =>
      (await alerts()).some((a) => a.labels.alertname === name && a.state === 'firing');

    // Traffic: a player's spins, so the dashboard's rate and latency panels have data.
    const launchBody = JSON.stringify({
      symbol: 'vs20emberfox',
      external_player_id: 'alerts-drill',
      currency: 'EUR',
    });
    const launched = await requestOnce(ports.PORT!, 'POST', '/api/provider/v1/launch-url', {
      body: launchBody,
      headers: signedHeaders(key, 'POST', '/api/provider/v1/launch-url', launchBody),
      ca,
      timeoutMs: 20_000,
    });
    const token = new URL(launched.json.launch_url).searchParams.get('mgckey')!;
    const spin = () =>
      requestOnce(ports.GAME_SERVER_PORT!, 'POST', '/api/runtime/spin', {
        body: JSON.stringify({ bet_minor: 100 }),
        headers: { 'x-session-token': token },
        ca,
        timeoutMs: 60_000,
      });
    for (let i = 0; i < 20; i++) await spin();
    await sleep(12_000);
    check(
      'no alert fires before the faults',
      !(await alerts()).some((a) => a.state === 'firing'),
      'none firing',
    );

    // The round that cannot settle: the wallet frozen, then a spin.
    const wallet = pidOf('wallet');
    signal([wallet], 'SIGSTOP');
    frozen.push(wallet);
    const roundStarted = Date.now();
    const pending = await spin();
    const roundId = pending.json?.round_id as string | undefined;
    check(
      'a spin while the wallet does not answer is taken and stays pending (no 5xx)',
      pending.status < 500 && !!roundId,
      `HTTP ${pending.status} ${pending.json?.status ?? pending.text.slice(0, 200)}`,
    );

    // Every worker and every game-server process (their hosted workers) frozen.
    const gamePrimary = pidOf('game-server');
    const workers = [pidOf('worker-1'), pidOf('worker-2')];
    const games = [gamePrimary, ...children(gamePrimary)];
    signal([...workers, ...games], 'SIGSTOP');
    frozen.push(...workers, ...games);
    const stoppedAt = Date.now();
    log(`froze the wallet, ${workers.length} workers and the game server (${games.length} processes)`);

    const waitFor = async (what: string, cond: () => Promise<boolean>, ms: number) => {
      const start = Date.now();
      while (Date.now() - start < ms) {
        if (await cond().catch(() => false)) return (Date.now() - start) / 1000;
        await sleep(1000);
      }
      log(`${what}: not within ${ms / 1000} s`);
      return undefined;
    };
    const noPollers = await waitFor('no pollers', () => firing('OpiSettlementNoPollers'), 120_000);
    check(
      'OpiSettlementNoPollers fires within its for (20 s) plus a scrape and an evaluation',
      noPollers !== undefined && noPollers <= 45,
      noPollers === undefined ? 'not firing after 120 s' : `firing ${noPollers.toFixed(0)} s after the stop`,
    );
    const oldest = await waitFor(
      'oldest unsettled',
      () => firing('OpiOldestUnsettledRound'),
      (OLDEST_THRESHOLD_SECONDS + 120) * 1000,
    );
    const sinceRound = oldest === undefined ? undefined : (Date.now() - roundStarted) / 1000;
    check(
      'OpiOldestUnsettledRound fires once the round is older than 120 s, within its for',
      sinceRound !== undefined && sinceRound <= OLDEST_THRESHOLD_SECONDS + 20 + 30,
      sinceRound === undefined ? 'not firing' : `firing ${sinceRound.toFixed(0)} s after the round started`,
    );
    facts.push(
      `faults held ${((Date.now() - stoppedAt) / 1000).toFixed(0)} s; firing: ${(await alerts())
        .filter((a) => a.state === 'firing')
        .map((a) => a.labels.alertname)
        .join(', ')}`,
    );

    // Back: everything resumed.
    signal(frozen, 'SIGCONT');
    frozen.length = 0;
    const resumedAt = Date.now();
    const resolved = await waitFor(
      'resolved',
      async () => !(await firing('OpiSettlementNoPollers')) && !(await firing('OpiOldestUnsettledRound')),
      180_000,
    );
    check(
      'both alerts resolve once the workers and the wallet are back',
      resolved !== undefined,
      resolved === undefined
        ? 'still firing after 180 s'
        : `resolved ${resolved.toFixed(0)} s after the resume`,
    );
    facts.push(`resumed at +${((resumedAt - t0) / 1000).toFixed(0)} s`);

    // The round settled exactly once; nothing pending; reconciliation balanced.
    await waitFor(
      'settled',
      async () => {
        const { rows } = await db!.query('SELECT status FROM rounds WHERE round_id = $1', [roundId]);
        return ['completed', 'rolled_back', 'rejected', 'cancelled'].includes(rows[0]?.status);
      },
      120_000,
    );
    const { rows } = await db.query(
      `SELECT r.status,
              count(*) FILTER (WHERE t.transaction_type = 'debit' AND t.status = 'success')::int AS debits,
              count(*) FILTER (WHERE t.transaction_type = 'credit' AND t.status = 'success')::int AS credits,
              count(*) FILTER (WHERE t.transaction_type IN ('rollback', 'cancel') AND t.status = 'success')::int AS reversals,
              count(*) FILTER (WHERE t.status = 'pending')::int AS pending
         FROM rounds r LEFT JOIN wallet_transactions t USING (round_id)
        WHERE r.round_id = $1 GROUP BY r.status`,
      [roundId],
    );
    const r = rows[0] as {
      status: string;
      debits: number;
      credits: number;
      reversals: number;
      pending: number;
    };
    check(
      'the frozen round settled exactly once',
      !!r &&
        r.pending === 0 &&
        r.debits <= 1 &&
        r.credits + r.reversals <= 1 &&
        (r.debits === 0 || r.credits + r.reversals === 1),
      JSON.stringify(r),
    );
    const mismatch = await db.query(
      `SELECT count(*)::int AS n FROM round_reconciliation c JOIN rounds d USING (round_id)
        WHERE c.differs AND d.status NOT IN ('open', 'settling')`,
    );
    check(
      'reconciliation finds no mismatch',
      mismatch.rows[0].n === 0,
      `${mismatch.rows[0].n} mismatched rounds`,
    );

    // The dashboard's queries against this Prometheus (after more spins: the rates have data).
    for (let i = 0; i < 10; i++) await spin();
    await sleep(12_000);
    const dashboard = JSON.parse(
      readFileSync(path.join(REPO_ROOT, 'deploy', 'grafana', 'settlement-dashboard.json'), 'utf8'),
    ) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    let queries = 0;
    const empty: string[] = [];
    const failed: string[] = [];
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) {
        queries++;
        const q = promtool(tools.promtool, ['query', 'instant', '-o', 'json', prom, target.expr]);
        if (q.code !== 0) failed.push(`${panel.title}: ${target.expr}: ${q.output.trim()}`);
        else if (/^\s*\[\s*\]\s*$/.test(q.output)) empty.push(`${panel.title}: ${target.expr}`);
      }
    }
    check(
      `every dashboard query runs (promtool query instant, ${queries} queries)`,
      failed.length === 0,
      failed.join('; ') || 'all ran',
    );
    if (empty.length) log(`queries without series now: ${empty.join('; ')}`);
    facts.push(
      `dashboard: ${queries} queries, ${queries - empty.length} with series; without: ${empty.join('; ') || 'none'}`,
    );
    // Native and crash rounds (the drill plays slots only) may have no series here.
    const mustHaveData = [
      'Rounds per second',
      'Spin to outcome',
      'Wallet callback latency',
      'schedule-to-start',
      'pollers',
      'Unsettled rounds',
      'Oldest unsettled',
    ];
    const missing = mustHaveData.filter((t) =>
      dashboard.panels
        .filter((p) => p.title.includes(t))
        .every((p) => p.targets.every((tg) => empty.includes(`${p.title}: ${tg.expr}`))),
    );
    check(
      'the settlement panels return series',
      missing.length === 0,
      missing.length
        ? `no data: ${missing.join(', ')}`
        : `${queries - empty.length} of ${queries} queries returned series`,
    );
  } catch (err) {
    check('the drill ran', false, err instanceof Error ? (err.stack ?? err.message) : String(err));
  } finally {
    signal(frozen, 'SIGCONT');
    await db?.end().catch(() => {});
    if (stack.child.exitCode === null) {
      const exited = new Promise((r) => stack.child.once('exit', r));
      stack.child.kill('SIGINT');
      await exited;
    }
  }
  report.seconds = (Date.now() - t0) / 1000;
  report.scenarios.push({
    name: 'alerts',
    title: 'alerts fire and resolve: every worker and hosted worker stopped, a round unsettled',
    seconds: report.seconds,
    drainSeconds: null,
    load: [],
    checks,
    facts,
  });
  report.ok = checks.every((c) => c.ok);
  // The report is written into dataDir; reliability.ts removes it when every check held.
  return report;
}
