/**
 * `npm start`: the whole stack on embedded defaults. Embedded PostgreSQL (or DATABASE_URL), the
 * Temporal dev server (or TEMPORAL_ADDRESS), migrations, the demo operator, then every service
 * as a supervised child process. Ctrl-C (or SIGTERM) stops everything in reverse order.
 *
 * `npm run start:cluster` (this file with --cluster): the production topology on one machine.
 * The real Temporal server (built once into a cache outside the checkout) on PostgreSQL with
 * TEMPORAL_HISTORY_SHARDS shards, its schema made by its own schema tool, configured by
 * deploy/temporal/config.yaml as docker-compose.yml is; two API processes on one port and two
 * standalone workers; NODE_ENV=production with signed requests required, HTTPS for the API and
 * the sandbox wallet (a local certificate), its own data folder and ports (CLUSTER_DEFAULTS), so
 * it runs beside `npm start`. docs/deployment-and-scaling.md.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { assignAllTitles, createApiKey, ensureDemoStaff, seedCatalog } from '@opi/api';
import { loadConfigOrExit } from '@opi/config';
import {
  createPool,
  createSecretBox,
  ensureBootstrapAdminKey,
  ensureDatabase,
  migrate,
  REVOKED_BOOTSTRAP_KEY_MESSAGE,
  seedDemoOperator,
  seedDemoRates,
  withDatabase,
} from '@opi/db';
import { startEmbeddedPostgres } from '@opi/db/embedded';
import { CATALOG } from '@opi/games';
import { createWalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { migrateWallet } from '@opi/wallet-sandbox/migrate';
import { adoptOrphanedWorkflows, buildWorkflowBundle, setCurrentWorkerVersion } from '@opi/workflows';
import { Connection } from '@temporalio/client';
import { distEntry, ensureDistBuild } from './dist-build.js';
import { dataDir, REPO_ROOT } from './paths.js';
import { ensurePortalBuild, portalStartCommand } from './portal.js';
import { type Supervised, startProcess, stopLeftovers } from './processes.js';
import { checkoutRelease } from './release.js';
import { ensureSdkTarball } from './sdk-tarball.js';
import { loadOrCreateSecrets, saveSecrets } from './secrets.js';
import { startStackPrometheus } from './stack-prometheus.js';
import { findOrBuildTemporalCli } from './temporal-cli.js';
import {
  findOrBuildTemporalServer,
  setupTemporalSchema,
  startTemporalClusterServer,
  TEMPORAL_SERVER_VERSION,
  temporalPostgresFromUrl,
} from './temporal-cluster.js';
import { startTemporalDevServer, type TemporalDevServer } from './temporal-server.js';
import { ensureLocalTls } from './tls.js';
import { portFree, waitForPort } from './wait.js';

/** The demo operator's protection test player (the sandbox wallet refuses its debits: self_excluded). */
const DEMO_PROTECTION_PLAYER = 'op_demo-protection-test';

const t0 = Date.now();
const clusterMode = process.argv.includes('--cluster');
/** The cluster stack's defaults: its own data folder and ports; any variable set in the environment wins. */
const CLUSTER_DEFAULTS: Record<string, string> = {
  DATA_DIR: '.data/cluster',
  PORT: '8180',
  GAME_SERVER_PORT: '8181',
  WALLET_PORT: '8190',
  PORTAL_PORT: '3100',
  PG_PORT: '54339',
  TEMPORAL_PORT: '7333',
  API_METRICS_PORT: '9564',
  GAME_METRICS_PORT: '9565',
  WORKER_METRICS_PORT: '9570',
  // Issue 37: the SDK's own metrics (worker i: + i; game-server process j: + WORKER_PROCESSES + j)
  // and Prometheus (the PostgreSQL exporter on + 1, the Temporal server's metrics on + 2).
  TEMPORAL_SDK_METRICS_PORT: '9580',
  PROMETHEUS_PORT: '9590',
  API_PROCESSES: '2',
  GAME_PROCESSES: '2',
  WORKER_PROCESSES: '2',
  SIGNED_REQUESTS: 'required',
  // Issue 23 point 5: production refuses wallets on loopback and private networks; the sandbox
  // wallet here is on 127.0.0.1 (docs/deployment-and-scaling.md). Link-local stays refused.
  WALLET_ALLOW_PRIVATE_NETWORKS: '1',
};
// The stack reads its own settings in development mode (it makes the secrets production asks for);
// the services of the cluster stack run with NODE_ENV=production.
const config = clusterMode
  ? loadConfigOrExit({ ...CLUSTER_DEFAULTS, ...process.env, NODE_ENV: 'development' })
  : loadConfigOrExit();
const serviceNodeEnv = clusterMode ? 'production' : config.NODE_ENV;
/**
 * Worker Deployment Versioning (issue 35): the cluster stack's settlement workers poll as the
 * version WORKER_DEPLOYMENT_NAME/WORKER_BUILD_ID, the build id being the release (the checkout's
 * commit) unless set. `npm start` stays unversioned. Not a git checkout: unversioned too.
 */
const workerBuildId = config.WORKER_BUILD_ID ?? (clusterMode ? checkoutRelease() : undefined);
// The demo operator and demo admin staff account (issue 34 point 9): made unless the services run
// in production, where only STACK_DEMO=on makes them (a production start creates no known account).
const demoWanted = config.STACK_DEMO ? config.STACK_DEMO === 'on' : serviceNodeEnv !== 'production';
const say = (msg: string) => process.stdout.write(`[stack] ${msg}\n`);
const dir = dataDir(config.DATA_DIR);
const runDir = path.join(dir, 'run');
await mkdir(dir, { recursive: true });

// The cluster stack serves the API and the wallet over HTTPS (production refuses HTTP wallets and
// page addresses) with a local certificate unless TLS_CERT_FILE/TLS_KEY_FILE name one. Node reads
// NODE_EXTRA_CA_CERTS only at start, so this process runs itself again trusting it (its own calls
// to the wallet's staff API go over HTTPS too).
const tls = clusterMode
  ? config.TLS_CERT_FILE && config.TLS_KEY_FILE
    ? { certFile: config.TLS_CERT_FILE, keyFile: config.TLS_KEY_FILE }
    : ensureLocalTls(path.join(dir, 'tls'))
  : undefined;
if (tls && process.env.NODE_EXTRA_CA_CERTS !== tls.certFile) {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.certFile },
  });
  // Signals are forwarded: a terminal's Ctrl-C reaches the child twice (its process group, then
  // from here), which the child takes as one (see shutdown).
  process.on('SIGINT', () => child.kill('SIGINT'));
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const code = await new Promise<number>((resolve) =>
    child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))),
  );
  process.exit(code);
}
await stopLeftovers(runDir, say);

const stoppers: Array<() => Promise<void>> = [];
const services: Supervised[] = [];
let shuttingDown = false;

let shutdownStarted = 0;
async function shutdown(code: number): Promise<never> {
  if (shuttingDown) {
    // The same Ctrl-C can arrive twice (terminal group, launcher); a signal a few seconds later
    // means "stop now".
    if (Date.now() - shutdownStarted > 3000) process.exit(code);
    return new Promise<never>(() => {});
  }
  shuttingDown = true;
  shutdownStarted = Date.now();
  say('stopping...');
  for (const s of [...services].reverse()) await s.stop().catch(() => {});
  for (const stop of [...stoppers].reverse())
    await stop().catch((e: unknown) => say(`stop failed: ${String(e)}`));
  say('stopped');
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

// `npm start` stops when a service exits unexpectedly (a developer sees why at once). The cluster
// stack restarts it after a second, as production's process manager does (compose's
// `restart: unless-stopped`), and stops only on a crash loop: more than 5 exits of one service
// within a minute.
const exits = new Map<string, number[]>();
const crashLoop = (name: string): boolean => {
  const now = Date.now();
  const recent = (exits.get(name) ?? []).filter((t) => t > now - 60_000);
  recent.push(now);
  exits.set(name, recent);
  return recent.length > 5;
};

async function requirePort(name: string, port: number) {
  if (!(await portFree(config.HOST, port))) {
    say(`port ${port} (${name}) is in use: stop what holds it or set ${name} to another port`);
    await shutdown(1);
  }
}

try {
  const secrets = await loadOrCreateSecrets(dir, config, { demo: demoWanted });
  // The staff portal's production build (`next build`, only when its inputs changed) runs while
  // the rest starts; the portal itself starts after the API. STACK_PORTAL=off leaves it out.
  const withPortal = config.STACK_PORTAL === 'on';
  if (withPortal) await requirePort('PORTAL_PORT', config.PORTAL_PORT);
  // Prometheus, PostgreSQL's exporter (+ 1), the Temporal server's metrics (+ 2); the SDK's ports.
  if (config.PROMETHEUS_PORT)
    for (const i of [0, 1, 2]) await requirePort('PROMETHEUS_PORT', config.PROMETHEUS_PORT + i);
  if (config.TEMPORAL_SDK_METRICS_PORT)
    for (let i = 0; i < config.WORKER_PROCESSES + config.GAME_PROCESSES; i++)
      await requirePort('TEMPORAL_SDK_METRICS_PORT', config.TEMPORAL_SDK_METRICS_PORT + i);
  const portalBuild = withPortal ? ensurePortalBuild(say) : Promise.resolve(false);
  portalBuild.catch(() => {});
  // The cluster stack runs the services' production build (dist/, as the images do): turbo run
  // build while the rest starts (a no-op when nothing changed).
  const distBuild = clusterMode ? ensureDistBuild(say) : undefined;
  distBuild?.catch(() => {});
  // The operator SDK's tarball, which the API offers at /docs/sdk/ (linked from /docs): built in a
  // child process (only when the SDK's inputs changed) while the rest starts, waited for by
  // nothing; the API picks the file up when it appears.
  const sdkTarballDir = config.SDK_TARBALL_DIR ? path.resolve(config.SDK_TARBALL_DIR) : path.join(dir, 'sdk');
  ensureSdkTarball(sdkTarballDir, say).then(
    (r) => {
      if (r.built) say(`operator SDK tarball ${r.name} built in ${r.seconds} s (${sdkTarballDir})`);
    },
    (err: unknown) => say(`WARNING: ${String(err)}: GET /docs/sdk/ answers 404 until it is`),
  );

  // PostgreSQL
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    await requirePort('PG_PORT', config.PG_PORT);
    say(`starting embedded PostgreSQL on 127.0.0.1:${config.PG_PORT} (data in ${path.join(dir, 'pg')})`);
    const pg = await startEmbeddedPostgres({
      dataDir: path.join(dir, 'pg'),
      port: config.PG_PORT,
      // The Temporal server's pools (persistence and visibility per service) beside the platform's.
      ...(clusterMode ? { settings: ['max_connections=300'] } : {}),
    });
    stoppers.push(() => pg.stop());
    await ensureDatabase(pg.url, 'opi');
    databaseUrl = withDatabase(pg.url, 'opi');
  }
  const applied = [...(await migrate(databaseUrl)), ...(await migrateWallet(databaseUrl))];
  say(applied.length ? `migrations applied: ${applied.join(', ')}` : 'database schema is up to date');

  // Temporal
  let temporalAddress = config.TEMPORAL_ADDRESS;
  let temporal: TemporalDevServer | undefined;
  let temporalDescription = '';
  if (!temporalAddress && clusterMode) {
    await requirePort('TEMPORAL_PORT', config.TEMPORAL_PORT);
    const binaries = await findOrBuildTemporalServer({ log: say });
    const temporalPg = temporalPostgresFromUrl(databaseUrl);
    say(`Temporal schema (temporal-sql-tool, v${TEMPORAL_SERVER_VERSION})`);
    await setupTemporalSchema({ sqlTool: binaries.sqlTool, pg: temporalPg, log: say });
    say(
      `starting the Temporal server v${TEMPORAL_SERVER_VERSION} on 127.0.0.1:${config.TEMPORAL_PORT} (` +
        `${config.TEMPORAL_HISTORY_SHARDS} history shards; log in ${path.join(dir, 'logs', 'temporal-server.log')})`,
    );
    const serverOptions = {
      binaries,
      pg: temporalPg,
      numHistoryShards: config.TEMPORAL_HISTORY_SHARDS,
      port: config.TEMPORAL_PORT,
      namespace: config.TEMPORAL_NAMESPACE,
      runDir,
      logFile: path.join(dir, 'logs', 'temporal-server.log'),
      log: say,
      ...(config.PROMETHEUS_PORT ? { metricsPort: config.PROMETHEUS_PORT + 2 } : {}),
    };
    const server = await startTemporalClusterServer(serverOptions);
    // Restarted on the same ports when it exits unexpectedly (the clients reconnect), as above.
    let current = server;
    const watch = (srv: typeof server) =>
      srv.process.child.on('exit', (code, signal) => {
        if (shuttingDown) return;
        if (crashLoop('temporal-server')) {
          say(`the Temporal server exited (code ${code}, signal ${signal}) again; stopping the stack`);
          void shutdown(1);
          return;
        }
        say(`the Temporal server exited unexpectedly (code ${code}, signal ${signal}); restarting it`);
        setTimeout(() => {
          if (shuttingDown) return;
          startTemporalClusterServer({ ...serverOptions, env: srv.env }).then(
            (next) => {
              current = next;
              watch(next);
              say('the Temporal server is back');
            },
            (err: unknown) => {
              say(`the Temporal server did not restart: ${String(err)}; stopping the stack`);
              void shutdown(1);
            },
          );
        }, 1000);
      });
    watch(server);
    stoppers.push(() => current.stop());
    temporalAddress = server.address;
    temporalDescription = `   (Temporal server v${TEMPORAL_SERVER_VERSION} on PostgreSQL, ${config.TEMPORAL_HISTORY_SHARDS} history shards; no web UI: temporal workflow list --address ${server.address})`;
  } else if (!temporalAddress) {
    await requirePort('TEMPORAL_PORT', config.TEMPORAL_PORT);
    await requirePort('TEMPORAL_UI_PORT', config.TEMPORAL_UI_PORT);
    const cliPath = await findOrBuildTemporalCli({
      ...(config.TEMPORAL_CLI_PATH ? { explicitPath: config.TEMPORAL_CLI_PATH } : {}),
      ...(config.TEMPORAL_CLI_CACHE ? { cacheDir: config.TEMPORAL_CLI_CACHE } : {}),
      log: say,
    });
    say(`starting the Temporal dev server on 127.0.0.1:${config.TEMPORAL_PORT} (${cliPath})`);
    temporal = await startTemporalDevServer({
      cliPath,
      port: config.TEMPORAL_PORT,
      uiPort: config.TEMPORAL_UI_PORT,
      dbFile: path.join(dir, 'temporal.db'),
      namespace: config.TEMPORAL_NAMESPACE,
      runDir,
    });
    stoppers.push(() => temporal!.stop());
    temporalAddress = temporal.address;
  }

  // Bootstrap data
  const pool = createPool(databaseUrl, { max: 2, applicationName: 'opi-stack' });
  const box = createSecretBox(secrets.serviceSecret);
  if ((await ensureBootstrapAdminKey(pool, box, secrets.providerAdminKey)) === 'revoked')
    say(`WARNING: ${REVOKED_BOOTSTRAP_KEY_MESSAGE}`);
  // The cluster stack's processes trust the local certificate through NODE_EXTRA_CA_CERTS.
  const scheme = tls ? 'https' : 'http';
  const walletBaseUrl = `${scheme}://127.0.0.1:${config.WALLET_PORT}/wallet`;
  await seedCatalog(pool);
  if (demoWanted) await seedDemo();
  else {
    const { rows } = await pool.query<{ operator: boolean; staff: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM operators WHERE operator_id = 'op_demo') AS operator,
              EXISTS (SELECT 1 FROM staff_users WHERE username = 'demo' AND NOT disabled) AS staff`,
    );
    say(
      `no demo operator or demo staff account (NODE_ENV=${serviceNodeEnv}${config.STACK_DEMO ? `, STACK_DEMO=${config.STACK_DEMO}` : ''}; STACK_DEMO=on makes them)`,
    );
    if (rows[0]?.operator || rows[0]?.staff)
      say(
        'WARNING: op_demo or the staff account `demo` exists from an earlier start and is left as it is: suspend op_demo (PUT /api/admin/v1/operators/op_demo, status inactive) and disable `demo` (npm run admin -- staff:disable demo) if this data is to stay',
      );
  }
  await pool.end();

  async function seedDemo() {
    const demoWalletSecret = secrets.demoWalletSecret!;
    const demo = await seedDemoOperator(pool, {
      walletBaseUrl,
      walletSecretEnc: box.encrypt(demoWalletSecret),
    });
    // The demo operator's crypto currencies need an EUR rate for their stake ladders (issue 39).
    await seedDemoRates(pool, new Date().toISOString().slice(0, 10));
    if (demo.created) {
      // First start only (staff changes made later stand): every title assigned to the demo
      // operator, the prov_c titles marked for the demo opted in, and an operator key.
      await assignAllTitles(pool, demo.operatorId);
      const demoTitles = CATALOG.filter((e) => e.demo_enable).map((e) => e.symbol);
      await pool.query('UPDATE games SET operator_wallet_enabled = true WHERE symbol = ANY($1)', [
        demoTitles,
      ]);
      secrets.demoOperatorKey = (await createApiKey(pool, box, 'operator', demo.operatorId, 'demo')).api_key;
      await saveSecrets(secrets);
      // The wallet diagnostics' protection test player: the sandbox wallet refuses its debits
      // (self_excluded, set below on every start), so the protection refusal check passes.
      await pool.query('UPDATE operators SET diagnostics_protection_player_id = $2 WHERE operator_id = $1', [
        demo.operatorId,
        DEMO_PROTECTION_PLAYER,
      ]);
    }
    // The staff portal's demo account: `demo`, admin of op_demo; its password is demoStaffPassword
    // in the secrets file (set again only when that file had none).
    await ensureDemoStaff(pool, {
      username: 'demo',
      password: secrets.demoStaffPassword!,
      operatorId: demo.operatorId,
      resetPassword: secrets.demoStaffPasswordGenerated,
    });
  }

  say('building the workflow bundle');
  await buildWorkflowBundle();

  // Services
  const env: NodeJS.ProcessEnv = {
    ...(clusterMode ? CLUSTER_DEFAULTS : {}),
    ...process.env,
    NODE_ENV: serviceNodeEnv,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    SERVICE_SECRET: secrets.serviceSecret,
    PROVIDER_ADMIN_KEY: secrets.providerAdminKey,
    STAFF_PORTAL_SECRET: secrets.staffPortalSecret,
    REPLAY_LINK_SECRET: secrets.replayLinkSecret,
    SDK_TARBALL_DIR: sdkTarballDir,
    ...(workerBuildId ? { WORKER_BUILD_ID: workerBuildId } : {}),
    ...(tls
      ? {
          TLS_CERT_FILE: tls.certFile,
          TLS_KEY_FILE: tls.keyFile,
          NODE_EXTRA_CA_CERTS: tls.certFile,
          SIGNED_REQUESTS: config.SIGNED_REQUESTS ?? 'required',
          PUBLIC_BASE_URL: config.PUBLIC_BASE_URL ?? `https://${config.HOST}:${config.PORT}`,
          GAME_BASE_URL: config.GAME_BASE_URL ?? `https://${config.HOST}:${config.GAME_SERVER_PORT}`,
          API_PROCESSES: String(config.API_PROCESSES),
          GAME_PROCESSES: String(config.GAME_PROCESSES),
          WORKER_PROCESSES: String(config.WORKER_PROCESSES),
        }
      : {}),
  };
  if (distBuild) await distBuild;
  // The cluster stack's services run their dist/ under plain node: a `--conditions=source` in
  // NODE_OPTIONS (the go-live suite sets one for its own TypeScript) would send their imports to
  // the packages' src/*.ts, which plain node cannot load.
  if (clusterMode && env.NODE_OPTIONS) {
    const rest = env.NODE_OPTIONS.replace(/--conditions[= ]source/g, '').trim();
    if (rest) env.NODE_OPTIONS = rest;
    else delete env.NODE_OPTIONS;
  }
  const tsx = ['--conditions=source', '--import', 'tsx'];
  // `npm start`: the TypeScript through tsx; the cluster stack: the built dist/ entry, plain node.
  const service = (name: string, entry: string, extraEnv: NodeJS.ProcessEnv = {}) => {
    const file = path.join(REPO_ROOT, clusterMode ? distEntry(entry) : entry);
    if (!existsSync(file)) return undefined;
    const proc = startProcess(name, process.execPath, clusterMode ? [file] : [...tsx, file], {
      env: { ...env, ...extraEnv },
      runDir,
    });
    proc.child.on('exit', (code, signal) => {
      if (shuttingDown) return;
      if (clusterMode && !crashLoop(name)) {
        say(`${name} exited unexpectedly (code ${code}, signal ${signal}); restarting it`);
        setTimeout(() => {
          if (shuttingDown) return;
          services.splice(services.indexOf(proc), 1);
          service(name, entry, extraEnv);
        }, 1000);
        return;
      }
      say(`${name} exited unexpectedly (code ${code}, signal ${signal}); stopping the stack`);
      void shutdown(1);
    });
    services.push(proc);
    return proc;
  };

  await requirePort('WALLET_PORT', config.WALLET_PORT);
  service('wallet', 'services/wallet-sandbox/src/main.ts', {
    WALLET_ADMIN_TOKEN: secrets.walletAdminToken,
    // Demo and QA: a player id the wallet has not seen opens with 1,000.00 (100000 minor units).
    WALLET_AUTO_CREATE_PLAYERS_MINOR: '100000',
  });
  await waitForPort(config.HOST, config.WALLET_PORT, 60_000);
  const walletAdmin = createWalletAdminClient({
    baseUrl: `${scheme}://${config.HOST}:${config.WALLET_PORT}`,
    token: secrets.walletAdminToken,
  });
  if (demoWanted) {
    await walletAdmin.setSecret('op_demo', secrets.demoWalletSecret!);
    // A known self-excluded test account, as operators keep for certification: the demo operator's
    // wallet diagnostics debit it and expect a player-protection refusal.
    await walletAdmin.setProtection({
      operatorId: 'op_demo',
      playerId: DEMO_PROTECTION_PLAYER,
      refuseDebitsWith: 'self_excluded',
    });
  }

  await requirePort('PORT', config.PORT);
  await requirePort('GAME_SERVER_PORT', config.GAME_SERVER_PORT);
  // API_PROCESSES > 1: a cluster primary and N processes sharing PORT (services/api/src/cluster.ts).
  service('api', 'services/api/src/cluster.ts', {
    PORT: String(config.PORT),
    API_PROCESSES: String(config.API_PROCESSES),
  });
  // The players' side, scaled on its own: GAME_PROCESSES game-server processes sharing
  // GAME_SERVER_PORT (services/game-server/src/cluster.ts), each hosting a settlement worker.
  service('game-server', 'services/game-server/src/cluster.ts', {
    GAME_SERVER_PORT: String(config.GAME_SERVER_PORT),
    GAME_PROCESSES: String(config.GAME_PROCESSES),
    TEMPORAL_SDK_METRICS_PORT: String(
      config.TEMPORAL_SDK_METRICS_PORT ? config.TEMPORAL_SDK_METRICS_PORT + config.WORKER_PROCESSES : 0,
    ),
  });
  // WORKER_PROCESSES settlement workers on the one task queue; worker i serves its metrics on
  // WORKER_METRICS_PORT + i.
  for (let i = 0; i < config.WORKER_PROCESSES; i++) {
    service(config.WORKER_PROCESSES > 1 ? `worker-${i + 1}` : 'worker', 'services/worker/src/main.ts', {
      WORKER_METRICS_PORT: String(config.WORKER_METRICS_PORT ? config.WORKER_METRICS_PORT + i : 0),
      TEMPORAL_SDK_METRICS_PORT: String(
        config.TEMPORAL_SDK_METRICS_PORT ? config.TEMPORAL_SDK_METRICS_PORT + i : 0,
      ),
    });
  }
  await waitForPort(config.HOST, config.PORT, 60_000);
  await waitForPort(config.HOST, config.GAME_SERVER_PORT, 60_000);
  if (workerBuildId) {
    // The whole stack restarts at once (no worker of an earlier release is left): this release's
    // version becomes current as soon as its workers poll, and open workflows pinned to an earlier
    // release move to it (replay-safe because workflow changes ship behind patched(); a rolling
    // deploy lets the old version drain instead: docs/operations.md).
    const version = { deploymentName: config.WORKER_DEPLOYMENT_NAME, buildId: workerBuildId };
    const connection = await Connection.connect({ address: temporalAddress });
    try {
      await setCurrentWorkerVersion(connection, config.TEMPORAL_NAMESPACE, version, { waitMs: 120_000 });
      const adopted = await adoptOrphanedWorkflows(connection, config.TEMPORAL_NAMESPACE, version);
      say(
        `worker version ${version.deploymentName}/${version.buildId} is current` +
          (adopted.length ? `; ${adopted.length} open workflow(s) of earlier releases moved to it` : ''),
      );
    } finally {
      await connection.close();
    }
  }

  // The staff portal: `next start` of the production build, reading through the API (it gets
  // neither the database nor the service secret).
  if (withPortal) {
    await portalBuild;
    const portal = portalStartCommand(config.HOST, config.PORTAL_PORT);
    const {
      SERVICE_SECRET: _s,
      PROVIDER_ADMIN_KEY: _k,
      DATABASE_URL: _d,
      REPLAY_LINK_SECRET: _r,
      TLS_CERT_FILE: _c,
      TLS_KEY_FILE: _t,
      ...portalEnv
    } = process.env;
    const portalProc = startProcess('portal', portal.command, portal.args, {
      cwd: portal.cwd,
      runDir,
      env: {
        ...portalEnv,
        NODE_ENV: 'production',
        NEXT_TELEMETRY_DISABLED: '1',
        OPI_API_URL: `${scheme}://${config.HOST}:${config.PORT}`,
        STAFF_PORTAL_SECRET: secrets.staffPortalSecret,
        // The cluster stack's portal is HTTPS with the same certificate as the API (and HSTS).
        ...(tls
          ? { NODE_EXTRA_CA_CERTS: tls.certFile, TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile }
          : {}),
      },
    });
    portalProc.child.on('exit', (code, signal) => {
      if (!shuttingDown) {
        say(`portal exited unexpectedly (code ${code}, signal ${signal}); stopping the stack`);
        void shutdown(1);
      }
    });
    services.push(portalProc);
    await waitForPort(config.HOST, config.PORTAL_PORT, 60_000);
  }

  // Prometheus scraping every process, with the alert rules (PROMETHEUS_PORT; the cluster stack's).
  const prometheus = config.PROMETHEUS_PORT
    ? await startStackPrometheus({
        config,
        dir,
        runDir,
        databaseUrl,
        ...(clusterMode && !config.TEMPORAL_ADDRESS
          ? { temporalServerMetricsPort: config.PROMETHEUS_PORT + 2 }
          : {}),
        say,
      })
    : undefined;
  if (prometheus) stoppers.push(() => prometheus.stop());

  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  const gameBase = config.GAME_BASE_URL ?? `${scheme}://${config.HOST}:${config.GAME_SERVER_PORT}`;
  say(`ready in ${seconds} s`);
  process.stdout.write(
    [
      '',
      `  API            ${scheme}://${config.HOST}:${config.PORT}   (operators' servers, admins, portal; health: /health, readiness: /ready, reference and SDK download: /docs)`,
      `  Game server    ${gameBase}   (players' browsers: every launch URL points here)`,
      ...(workerBuildId
        ? [
            `  Workers        version ${config.WORKER_DEPLOYMENT_NAME}/${workerBuildId} (WORKER_DEPLOYMENT_NAME, WORKER_BUILD_ID)`,
          ]
        : []),
      `  Processes      ${config.API_PROCESSES} API, ${config.GAME_PROCESSES} game server, ${config.WORKER_PROCESSES} worker${config.WORKER_PROCESSES > 1 ? 's' : ''} (API_PROCESSES, GAME_PROCESSES, WORKER_PROCESSES)`,
      `  Metrics        API http://${config.HOST}:${config.API_METRICS_PORT}/metrics; game server http://${config.HOST}:${config.GAME_METRICS_PORT}/metrics; workers from port ${config.WORKER_METRICS_PORT}`,
      ...(prometheus
        ? [
            `  Prometheus     ${prometheus.prometheus.url}   (alerts: /alerts; rules from deploy/prometheus/rules; scrapes ${prometheus.jobs.map((j) => j.job).join(', ')})`,
          ]
        : []),
      `  Wallet sandbox ${scheme}://${config.HOST}:${config.WALLET_PORT}/wallet   (staff API: /admin)`,
      demoWanted
        ? `  Demo operator  op_demo; its API key is demoOperatorKey in ${secrets.file}`
        : `  Demo operator  none (NODE_ENV=${serviceNodeEnv}: STACK_DEMO=on makes op_demo and the staff account demo)`,
      withPortal
        ? `  Staff portal   ${scheme}://${config.HOST}:${config.PORTAL_PORT}   (${demoWanted ? `log in as demo, admin of op_demo; password: demoStaffPassword in ${secrets.file}` : 'staff accounts: npm run admin -- staff:create'})`
        : '  Staff portal   not started (STACK_PORTAL=off)',
      `  Temporal       ${temporalAddress}${temporal?.uiUrl ? `   (UI: ${temporal.uiUrl})` : temporalDescription}`,
      ...(tls
        ? [
            `  Mode           NODE_ENV=production, signed requests required, HTTPS with ${tls.certFile} (curl --cacert)`,
          ]
        : []),
      `  PostgreSQL     ${databaseUrl.replace(/:[^:@/]*@/, ':***@')}`,
      `  Data           ${dir}`,
      `  Admin key      ${config.PROVIDER_ADMIN_KEY ? 'from PROVIDER_ADMIN_KEY' : `in ${secrets.file} (mode 600)`}`,
      '',
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
} catch (err) {
  say(`start failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await shutdown(1);
}
