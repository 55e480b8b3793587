import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { freePortRange } from './prometheus.js';
import { freeLowPort, TEMPORAL_SERVER_VERSION } from './temporal-cluster.js';
import {
  requestOnce,
  type StackProcess,
  signedHeaders,
  startStackProcess,
  until,
} from './test-support/stack-process.js';
import { freePort, sleep } from './wait.js';

// The cluster stack (`npm run start:cluster`): the real Temporal server on PostgreSQL with four
// history shards, two API processes on one port, two standalone workers, NODE_ENV=production with
// signed requests and HTTPS. It settles rounds; a worker, an API process and the Temporal server
// each killed outright are replaced while rounds keep settling exactly once; Ctrl-C stops it all.
// Issue 34 point 9: the secrets given in its environment stay out of secrets.json; the API, the
// game server, the wallet and the portal (HTTPS with the same certificate) send HSTS; and the
// demo operator and demo staff exist only with STACK_DEMO=on (this test sets it; a second start
// without it makes neither).
let dataDir: string;
let stack: ChildProcess;
let running: StackProcess;
const output = () => running.output();
let key = '';
let ca: Buffer;
let db: pg.Client;
const ports: Record<string, number> = {};
/** Given in the stack's environment: used by every service, written nowhere. */
const ENV_SECRETS = {
  SERVICE_SECRET: 'cluster-test-service-secret-0123456789abcdef',
  PROVIDER_ADMIN_KEY: 'padm_cluster_test_admin_key_0123456789abcdef',
  STAFF_PORTAL_SECRET: 'cluster-test-staff-portal-secret-0123456789',
};

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'opi-cluster-'));
  await chmod(dataDir, 0o755);
  for (const name of [
    'PORT',
    'GAME_SERVER_PORT',
    'PG_PORT',
    'WALLET_PORT',
    'PORTAL_PORT',
    'API_METRICS_PORT',
    'GAME_METRICS_PORT',
  ])
    ports[name] = await freePort();
  // Two consecutive ports (worker i serves metrics on WORKER_METRICS_PORT + i), and the Temporal
  // frontend below 32768 (the server keeps member ports in a smallint).
  ports.WORKER_METRICS_PORT = await freeLowPort();
  ports.TEMPORAL_PORT = await freeLowPort(
    new Set([ports.WORKER_METRICS_PORT, ports.WORKER_METRICS_PORT + 1]),
  );
  // Issue 37: the SDK's metrics (2 workers and 2 game-server processes) and Prometheus (+ 1 its
  // PostgreSQL exporter, + 2 the Temporal server's metrics), on consecutive free ports.
  const taken = new Set([ports.WORKER_METRICS_PORT, ports.WORKER_METRICS_PORT + 1, ports.TEMPORAL_PORT]);
  ports.TEMPORAL_SDK_METRICS_PORT = await freePortRange(4, taken);
  ports.PROMETHEUS_PORT = await freePortRange(3, taken);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    // The portal on HTTPS beside the API (its production build, made by the stack when stale).
    STACK_PORTAL: 'on',
    // Under NODE_ENV=production the demo operator and demo staff are opt-in; this test plays as them.
    STACK_DEMO: 'on',
    LOG_LEVEL: 'info',
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
  };
  for (const k of [
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'PROVIDER_ADMIN_KEY',
    'SERVICE_SECRET',
    'PUBLIC_BASE_URL',
    'GAME_BASE_URL',
    'NODE_EXTRA_CA_CERTS',
    'API_PROCESSES',
    'GAME_PROCESSES',
    'WORKER_PROCESSES',
    'SIGNED_REQUESTS',
    'NODE_ENV',
    'REPLAY_LINK_SECRET',
    'TLS_CERT_FILE',
    'TLS_KEY_FILE',
    'HSTS_MAX_AGE_SECONDS',
  ])
    delete env[k];
  Object.assign(env, ENV_SECRETS);
  running = await startStackProcess(env, ['--cluster']);
  stack = running.child;
  await until('two API processes listening', () => apiListening().size >= 2, 60_000);
  await until('two game-server processes listening', () => gameListening().size >= 2, 60_000);
  key = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')).demoOperatorKey;
  ca = readFileSync(path.join(dataDir, 'tls', 'cert.pem'));
  db = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${ports.PG_PORT}/opi` });
  db.on('error', () => {});
  await db.connect();
});

after(async () => {
  await db?.end().catch(() => {});
  if (stack && stack.exitCode === null) {
    const exited = new Promise((r) => stack.once('exit', r));
    stack.kill('SIGINT');
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

/** One HTTPS request on its own connection (the cluster primary hands each to the next process). */
const request = (
  method: string,
  pathAndQuery: string,
  opts: { body?: string; headers?: Record<string, string>; port?: number } = {},
) => requestOnce(opts.port ?? ports.PORT!, method, pathAndQuery, { ...opts, ca, timeoutMs: 20_000 });

const signed = (method: string, pathAndQuery: string, body = '') =>
  signedHeaders(key, method, pathAndQuery, body);

const apiListening = () => running.apiListening();
const gameListening = () => running.gameListening();

const pidFile = (name: string) => Number(readFileSync(path.join(dataDir, 'run', `${name}.pid`), 'utf8'));

async function launch(player: string): Promise<{ token: string; url: string }> {
  const body = JSON.stringify({ symbol: 'vs20emberfox', external_player_id: player, currency: 'EUR' });
  const res = await request('POST', '/api/provider/v1/launch-url', {
    body,
    headers: signed('POST', '/api/provider/v1/launch-url', body),
  });
  assert.equal(res.status, 200, res.text);
  return { token: new URL(res.json.launch_url).searchParams.get('mgckey')!, url: res.json.launch_url };
}

/** Spins `n` rounds one after another for a player; their round ids. */
async function spins(token: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await request('POST', '/api/runtime/spin', {
      port: ports.GAME_SERVER_PORT!,
      body: JSON.stringify({ bet_minor: 100 }),
      headers: { 'x-session-token': token },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'completed', res.text);
    ids.push(res.json.round_id);
  }
  return ids;
}

/** Every round settled once: one debit and one credit applied, nothing pending. */
async function settledOnce(rounds: string[]) {
  const { rows } = await db.query(
    `SELECT r.round_id, r.status,
            count(*) FILTER (WHERE t.transaction_type = 'debit' AND t.status = 'success') AS debits,
            count(*) FILTER (WHERE t.transaction_type = 'credit' AND t.status = 'success') AS credits,
            count(*) FILTER (WHERE t.status = 'pending') AS pending,
            count(*) FILTER (WHERE t.transaction_type IN ('cancel', 'rollback')) AS reversals
       FROM rounds r JOIN wallet_transactions t ON t.round_id = r.round_id
      WHERE r.round_id = ANY($1) GROUP BY r.round_id, r.status`,
    [rounds],
  );
  assert.equal(rows.length, rounds.length);
  for (const r of rows)
    assert.deepEqual(
      [r.status, Number(r.debits), Number(r.credits), Number(r.pending), Number(r.reversals)],
      ['completed', 1, 1, 0, 0],
      `round ${r.round_id}`,
    );
}

test('the production topology: the real Temporal server with four shards, two API, two game-server and two worker processes, production settings over HTTPS', async () => {
  assert.match(output(), /Processes\s+2 API, 2 game server, 2 workers/);
  assert.match(
    output(),
    new RegExp(
      `Temporal server v${TEMPORAL_SERVER_VERSION.replaceAll('.', '\\.')} on PostgreSQL, 4 history shards`,
    ),
  );
  assert.match(output(), /NODE_ENV=production, signed requests required/);
  // Temporal's own databases, made by its schema tool, beside the platform's.
  const { rows } = await db.query(
    `SELECT datname FROM pg_database WHERE datname IN ('temporal', 'temporal_visibility') ORDER BY 1`,
  );
  assert.deepEqual(
    rows.map((r) => r.datname),
    ['temporal', 'temporal_visibility'],
  );
  const shards = new pg.Client({
    connectionString: `postgres://postgres:postgres@127.0.0.1:${ports.PG_PORT}/temporal`,
  });
  await shards.connect();
  try {
    const n = await shards.query('SELECT count(*)::int AS n FROM shards');
    assert.equal(n.rows[0].n, 4);
  } finally {
    await shards.end();
  }
  // Unsigned keyed requests are refused (production), and plain HTTP is not served.
  const unsigned = await request('GET', '/api/provider/v1/games', { headers: { 'x-provider-api-key': key } });
  assert.equal(unsigned.status, 401, unsigned.text);
  const plain = await fetch(`http://127.0.0.1:${ports.PORT}/health`).then(
    (r) => r.status,
    () => 'refused',
  );
  assert.notEqual(plain, 200);
  const games = await request('GET', '/api/provider/v1/games', {
    headers: signed('GET', '/api/provider/v1/games'),
  });
  assert.equal(games.status, 200, games.text);
  for (const port of [ports.PORT!, ports.GAME_SERVER_PORT!]) {
    const ready = await request('GET', '/ready', { port });
    assert.equal(ready.status, 200, ready.text);
  }
  // The game origin is HTTPS too, and serves no operator route.
  const keyed = await request('GET', '/api/provider/v1/games', {
    port: ports.GAME_SERVER_PORT!,
    headers: signed('GET', '/api/provider/v1/games'),
  });
  assert.equal(keyed.status, 404);
});

test('rounds settle exactly once through the cluster, with HTTPS wallet callbacks', async () => {
  const players = await Promise.all([0, 1, 2, 3].map((i) => launch(`cluster-settle-${i}`)));
  assert.ok(
    players.every((p) => p.url.startsWith(`https://127.0.0.1:${ports.GAME_SERVER_PORT}/`)),
    players[0]!.url,
  );
  const rounds = (await Promise.all(players.map((p) => spins(p.token, 5)))).flat();
  await settledOnce(rounds);
  const { rows } = await db.query(`SELECT wallet_base_url FROM operators WHERE operator_id = 'op_demo'`);
  assert.match(rows[0].wallet_base_url, /^https:\/\/127\.0\.0\.1:/);
  // Worker Deployment Versioning (issue 35): the workers poll as the release (the commit), which
  // the stack made current; every round is pinned to it.
  const release = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
  assert.match(output(), new RegExp(`Workers +version opi-settlement/${release} `));
  assert.match(output(), new RegExp(`worker version opi-settlement/${release} is current`));
  const connection = await Connection.connect({ address: `127.0.0.1:${ports.TEMPORAL_PORT}` });
  try {
    const client = new Client({ connection });
    let eager = 0;
    for (const id of rounds) {
      const handle = client.workflow.getHandle(id);
      const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
      assert.equal(info?.deploymentVersion?.buildId, release, `round ${id}`);
      assert.match(String(info?.behavior), /PINNED|^1$/, `round ${id}`);
      // Started eagerly by a game server's versioned hosted worker: its first task under the
      // starter's identity (game-<pid>-start@...).
      const first = ((await handle.fetchHistory()).events ?? []).find(
        (e) => e.workflowTaskStartedEventAttributes,
      );
      if (/^game-\d+-start@/.test(first?.workflowTaskStartedEventAttributes?.identity ?? '')) eager++;
    }
    assert.ok(
      eager > 0,
      `${eager} of ${rounds.length} rounds started eagerly on the versioned hosted workers`,
    );
  } finally {
    await connection.close();
  }
});

test('a worker, an API process, a game-server process and the Temporal server killed outright are replaced; rounds keep settling once', async () => {
  const player = await launch('cluster-faults');
  const rounds: string[] = [];
  let playing = true;
  let failures = 0;
  // A steady player through the faults: a spin refused while a process is being replaced is
  // retried, and every spin that answered must have settled once.
  const loop = (async () => {
    while (playing) {
      const res = await request('POST', '/api/runtime/spin', {
        port: ports.GAME_SERVER_PORT!,
        body: JSON.stringify({ bet_minor: 100 }),
        headers: { 'x-session-token': player.token },
      }).catch(() => undefined);
      if (res?.status === 200 && res.json.round_id) rounds.push(res.json.round_id);
      else {
        failures++;
        await sleep(300);
      }
    }
  })();

  // A standalone worker: the supervisor restarts it.
  const worker = pidFile('worker-1');
  process.kill(worker, 'SIGKILL');
  await until('worker-1 restarted', async () => pidFile('worker-1') !== worker, 30_000);
  // An API process: the cluster primary replaces it; the port keeps answering meanwhile.
  const before = apiListening();
  process.kill([...before][0]!, 'SIGKILL');
  await sleep(300);
  assert.equal((await request('GET', '/health')).status, 200);
  await until('a replacement API process', () => apiListening().size === before.size + 1, 60_000);
  // A game-server process (with its hosted worker and the eager rounds in hand): replaced likewise.
  const gamesBefore = gameListening();
  process.kill([...gamesBefore][0]!, 'SIGKILL');
  await sleep(300);
  assert.equal((await request('GET', '/health', { port: ports.GAME_SERVER_PORT! })).status, 200);
  await until(
    'a replacement game-server process',
    () => gameListening().size === gamesBefore.size + 1,
    60_000,
  );
  // The Temporal server: restarted on the same ports; the clients reconnect.
  const server = pidFile('temporal-server');
  const settledBefore = rounds.length;
  process.kill(server, 'SIGKILL');
  await until('the Temporal server back', () => output().includes('the Temporal server is back'), 60_000);
  await until('rounds settling after the restart', () => rounds.length >= settledBefore + 3, 60_000);
  playing = false;
  await loop;
  assert.ok(rounds.length >= 5, `${rounds.length} rounds, ${failures} refused`);
  // Every answered round settles once, including any left open when the server died.
  await until(
    'every round completed',
    async () => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM rounds WHERE round_id = ANY($1) AND status = 'completed'`,
        [rounds],
      );
      return rows[0].n === rounds.length;
    },
    120_000,
  );
  await settledOnce(rounds);
});

test('Prometheus scrapes every process of the stack, which runs the built dist/ output; no alert fires', async () => {
  const url = `http://127.0.0.1:${ports.PROMETHEUS_PORT}`;
  const query = async (expr: string) => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { data: { result: Array<{ value: [number, string] }> } };
    return body.data.result;
  };
  type Target = { labels: { job: string }; scrapeUrl: string; health: string; lastError: string };
  let targets: Target[] = [];
  await until(
    'every target scraped and up',
    async () => {
      const body = (await (await fetch(`${url}/api/v1/targets`)).json()) as {
        data: { activeTargets: Target[] };
      };
      targets = body.data.activeTargets;
      return targets.length === 10 && targets.every((t) => t.health === 'up');
    },
    60_000,
  ).catch(() => assert.fail(JSON.stringify(targets.map((t) => [t.scrapeUrl, t.health, t.lastError]))));
  const jobs = targets.map((t) => t.labels.job).sort();
  assert.deepEqual(jobs, [
    'api',
    'game-server',
    'postgres',
    'temporal-sdk',
    'temporal-sdk',
    'temporal-sdk',
    'temporal-sdk',
    'temporal-server',
    'worker',
    'worker',
  ]);
  // The SDK's pollers (workers and hosted workers), the settled rounds' callbacks, PostgreSQL's own.
  await until(
    'the settlement task queue polled by all four processes',
    async () =>
      Number(
        (
          await query('count(temporal_num_pollers{task_queue="settlement", poller_type="workflow_task"} > 0)')
        )[0]?.value[1],
      ) === 4,
    30_000,
  );
  assert.ok(
    Number((await query('sum(opi_wallet_callback_duration_seconds_count{type="debit"})'))[0]?.value[1]) > 0,
  );
  assert.equal((await query('pg_up'))[0]?.value[1], '1');
  assert.equal((await query('max(opi_reconciliation_mismatched_rounds)'))[0]?.value[1], '0');
  const alerts = (await (await fetch(`${url}/api/v1/alerts`)).json()) as {
    data: { alerts: Array<{ labels: { alertname: string }; state: string }> };
  };
  assert.deepEqual(
    alerts.data.alerts.filter((a) => a.state === 'firing').map((a) => a.labels.alertname),
    [],
  );
  // What production runs: node on each service's dist/ entry, as the images' CMD, no tsx.
  for (const name of ['api', 'game-server', 'worker-1', 'worker-2', 'wallet']) {
    const cmdline = readFileSync(`/proc/${pidFile(name)}/cmdline`, 'utf8').split('\0');
    assert.match(cmdline.join(' '), /services\/[a-z-]+\/dist\/(cluster|main)\.js/, name);
    assert.ok(!cmdline.some((a) => a.includes('tsx')), `${name}: ${cmdline.join(' ')}`);
  }
});

test('secrets given in the environment are used and not written to secrets.json', async () => {
  const file = path.join(dataDir, 'secrets.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const text = readFileSync(file, 'utf8');
  const written = JSON.parse(text);
  for (const [name, value] of Object.entries(ENV_SECRETS))
    assert.ok(!text.includes(value), `${name} from the environment is not in secrets.json`);
  for (const k of ['serviceSecret', 'providerAdminKey', 'staffPortalSecret'])
    assert.equal(k in written, false, `${k} is given by the environment, not generated`);
  // What the stack generated is there: the wallet's staff token, the demo operator's secrets.
  assert.match(written.demoOperatorKey, /^opk_/);
  assert.equal(typeof written.walletAdminToken, 'string');
  assert.equal(typeof written.demoStaffPassword, 'string');
  // The environment's admin key is the bootstrap key the API accepts.
  const pathAndQuery = '/api/admin/v1/operators/op_demo';
  const res = await request('GET', pathAndQuery, {
    headers: signedHeaders(ENV_SECRETS.PROVIDER_ADMIN_KEY, 'GET', pathAndQuery),
  });
  assert.equal(res.status, 200, res.text);
  assert.match(output(), /Admin key +from PROVIDER_ADMIN_KEY/);
});

test('HSTS from every HTTPS service: the API, the game server, the sandbox wallet', async () => {
  for (const [name, port, p] of [
    ['API', ports.PORT!, '/health'],
    ['game server', ports.GAME_SERVER_PORT!, '/health'],
    ['sandbox wallet', ports.WALLET_PORT!, '/health'],
    // An error answer carries it too.
    ['API (404)', ports.PORT!, '/no-such-route'],
  ] as const) {
    const res = await request('GET', p, { port });
    assert.equal(res.headers['strict-transport-security'], 'max-age=31536000', `${name}: ${res.status}`);
  }
});

test('the portal is HTTPS with the same certificate, sends HSTS, and a staff login works through it', async () => {
  const port = ports.PORTAL_PORT!;
  const origin = `https://127.0.0.1:${port}`;
  assert.match(output(), new RegExp(`Staff portal +${origin.replaceAll('.', '\\.')}`));
  const page = await request('GET', '/login', { port });
  assert.equal(page.status, 200, page.text.slice(0, 200));
  assert.equal(page.headers['strict-transport-security'], 'max-age=31536000');
  // Plain HTTP on its port is not served.
  const plain = await fetch(`http://127.0.0.1:${port}/login`).then(
    (r) => r.status,
    () => 'refused',
  );
  assert.notEqual(plain, 200);
  // The demo staff account logs in over HTTPS: the session cookie is __Host- and Secure.
  const { demoStaffPassword } = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'));
  const body = new URLSearchParams({ username: 'demo', password: demoStaffPassword }).toString();
  const login = await request('POST', '/auth/login', {
    port,
    body,
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(login.status, 303, login.text.slice(0, 200));
  assert.equal(new URL(String(login.headers.location), origin).pathname, '/');
  const cookie = String(login.headers['set-cookie'] ?? '');
  assert.match(cookie, /^__Host-opi_staff=stf_/);
  assert.match(cookie, /; Secure/i);
  assert.equal(login.headers['strict-transport-security'], 'max-age=31536000');
});

test('Ctrl-C stops every process of the cluster stack', async () => {
  const pids = [
    pidFile('temporal-server'),
    pidFile('worker-1'),
    pidFile('worker-2'),
    ...apiListening(),
    ...gameListening(),
  ];
  await db.end();
  const exited = new Promise<number | null>((r) => stack.once('exit', (code) => r(code)));
  stack.kill('SIGINT');
  assert.equal(await exited, 0);
  await sleep(500);
  const alive = pids.filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  // The killed API process's pid is long gone; every other one must have stopped too.
  assert.deepEqual(alive, []);
});

test('under NODE_ENV=production, without STACK_DEMO=on, the stack makes no demo operator and no demo staff account', async () => {
  // A second cluster stack of its own (data folder and ports), after the first has stopped.
  const dir2 = await mkdtemp(path.join(os.tmpdir(), 'opi-cluster-nodemo-'));
  await chmod(dir2, 0o755);
  const ports2: Record<string, number> = {};
  for (const name of [
    'PORT',
    'GAME_SERVER_PORT',
    'PG_PORT',
    'WALLET_PORT',
    'API_METRICS_PORT',
    'GAME_METRICS_PORT',
  ])
    ports2[name] = await freePort();
  ports2.WORKER_METRICS_PORT = await freeLowPort();
  ports2.TEMPORAL_PORT = await freeLowPort(
    new Set([ports2.WORKER_METRICS_PORT, ports2.WORKER_METRICS_PORT + 1]),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dir2,
    STACK_PORTAL: 'off',
    LOG_LEVEL: 'info',
    ...Object.fromEntries(Object.entries(ports2).map(([k, v]) => [k, String(v)])),
  };
  for (const k of [
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'PROVIDER_ADMIN_KEY',
    'SERVICE_SECRET',
    'STAFF_PORTAL_SECRET',
    'REPLAY_LINK_SECRET',
    'PUBLIC_BASE_URL',
    'GAME_BASE_URL',
    'NODE_EXTRA_CA_CERTS',
    'TLS_CERT_FILE',
    'TLS_KEY_FILE',
    'API_PROCESSES',
    'GAME_PROCESSES',
    'WORKER_PROCESSES',
    'SIGNED_REQUESTS',
    'NODE_ENV',
    'STACK_DEMO',
  ])
    delete env[k];
  const second = await startStackProcess(env, ['--cluster']);
  const db2 = new pg.Client({
    connectionString: `postgres://postgres:postgres@127.0.0.1:${ports2.PG_PORT}/opi`,
  });
  db2.on('error', () => {});
  try {
    // The banner follows the "ready in" line, possibly in a later chunk of the stack's output.
    await until('the banner', () => /Ctrl-C stops everything/.test(second.output()), 10_000);
    assert.match(second.output(), /Demo operator +none \(NODE_ENV=production: STACK_DEMO=on makes/);
    await db2.connect();
    const { rows } = await db2.query(
      `SELECT (SELECT count(*)::int FROM operators WHERE operator_id = 'op_demo') AS operators,
              (SELECT count(*)::int FROM staff_users WHERE username = 'demo') AS staff,
              (SELECT count(*)::int FROM api_keys WHERE kind = 'operator') AS operator_keys`,
    );
    assert.deepEqual(rows[0], { operators: 0, staff: 0, operator_keys: 0 });
    const written = JSON.parse(readFileSync(path.join(dir2, 'secrets.json'), 'utf8'));
    for (const k of ['demoOperatorKey', 'demoStaffPassword', 'demoWalletSecret'])
      assert.equal(k in written, false, `${k} is not made`);
    // The stack itself is up: its generated admin key reads the catalog, and finds no op_demo.
    const ca2 = readFileSync(path.join(dir2, 'tls', 'cert.pem'));
    const admin = (p: string) =>
      requestOnce(ports2.PORT!, 'GET', p, {
        ca: ca2,
        headers: signedHeaders(written.providerAdminKey, 'GET', p),
        timeoutMs: 20_000,
      });
    const games = await admin('/api/admin/v1/games');
    assert.equal(games.status, 200, games.text);
    assert.equal((await admin('/api/admin/v1/operators/op_demo')).status, 404);
  } finally {
    await db2.end().catch(() => {});
    const exited = new Promise<number | null>((r) => second.child.once('exit', (code) => r(code)));
    second.child.kill('SIGINT');
    assert.equal(await exited, 0);
    await rm(dir2, { recursive: true, force: true });
  }
});
