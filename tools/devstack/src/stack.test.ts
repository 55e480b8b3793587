import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { REPO_ROOT } from './paths.js';
import { freePort, sleep } from './wait.js';

// Runs the real default stack (what `npm start` runs) twice on one data folder.
let dataDir: string;
let env: NodeJS.ProcessEnv;
let ports: {
  api: number;
  pg: number;
  temporal: number;
  ui: number;
  wallet: number;
  portal: number;
  apiMetrics: number;
  workerMetrics: number;
};

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'opi-stack-'));
  await chmod(dataDir, 0o755); // the embedded server runs as the postgres user when we are root
  ports = {
    api: await freePort(),
    pg: await freePort(),
    temporal: await freePort(),
    ui: await freePort(),
    wallet: await freePort(),
    portal: await freePort(),
    apiMetrics: await freePort(),
    workerMetrics: await freePort(),
  };
  env = {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    PORT: String(ports.api),
    PG_PORT: String(ports.pg),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    WALLET_PORT: String(ports.wallet),
    PORTAL_PORT: String(ports.portal),
    // The metrics listeners too: every port free, so the test runs beside `npm start` on the defaults.
    API_METRICS_PORT: String(ports.apiMetrics),
    WORKER_METRICS_PORT: String(ports.workerMetrics),
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  delete env.PROVIDER_ADMIN_KEY;
  delete env.SERVICE_SECRET;
});
after(() => rm(dataDir, { recursive: true, force: true }));

function startStack(): { child: ChildProcess; output: () => string; ready: Promise<void> } {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', path.join(REPO_ROOT, 'tools/devstack/src/stack.ts')],
    {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('[stack] ready in')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`stack exited with ${code} before it was ready:\n${out}`)));
  });
  return { child, output: () => out, ready };
}

function pidsOf(): number[] {
  const runDir = path.join(dataDir, 'run');
  const pids = existsSync(runDir)
    ? readdirSync(runDir).map((f) => Number(readFileSync(path.join(runDir, f), 'utf8')))
    : [];
  const pgPid = path.join(dataDir, 'pg', 'postmaster.pid');
  if (existsSync(pgPid)) pids.push(Number(readFileSync(pgPid, 'utf8').split('\n')[0]));
  return pids;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function stopWithCtrlC(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGINT');
  return exited;
}

test('npm start brings the stack up, Ctrl-C stops it cleanly, a second start reuses the data', async () => {
  const probeId = `stack-probe-${randomUUID()}`;

  // First start: fresh data folder.
  const first = startStack();
  await first.ready;
  assert.match(first.output(), /migrations applied: 1700000000001_initial/);
  const health = await fetch(`http://127.0.0.1:${ports.api}/health`);
  assert.equal(health.status, 200);
  const secretsFile = path.join(dataDir, 'secrets.json');
  assert.equal(statSync(secretsFile).mode & 0o777, 0o600, 'generated secrets are mode 600');
  const secrets = JSON.parse(readFileSync(secretsFile, 'utf8'));
  assert.match(secrets.providerAdminKey, /^padm_/);
  // The demo operator's key reads its catalog; the sandbox wallet answers.
  assert.match(secrets.demoOperatorKey, /^opk_/);
  const catalog = await fetch(`http://127.0.0.1:${ports.api}/api/provider/v1/games`, {
    headers: { 'x-provider-api-key': secrets.demoOperatorKey },
  });
  assert.equal(catalog.status, 200);
  const items = ((await catalog.json()) as { data: { items: { provider_id: string }[] } }).data.items;
  assert.deepEqual([...new Set(items.map((g) => g.provider_id))].sort(), ['prov_a', 'prov_c', 'prov_d']);
  const wallet = await fetch(`http://127.0.0.1:${ports.wallet}/wallet/balance`, {
    method: 'POST',
    body: '{}',
  });
  assert.equal(wallet.status, 401, 'the sandbox wallet is up and refuses unsigned callbacks');
  // The staff portal is up; the demo staff account logs in with its password from the secrets file.
  const portal = `http://127.0.0.1:${ports.portal}`;
  assert.match(first.output(), new RegExp(`Staff portal +${portal}`));
  const staffLogin = await fetch(`${portal}/auth/login`, {
    method: 'POST',
    headers: { origin: portal, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'demo', password: secrets.demoStaffPassword }),
    redirect: 'manual',
  });
  assert.equal(staffLogin.status, 303);
  assert.equal(new URL(staffLogin.headers.get('location')!).pathname, '/', 'logged in (not back to /login)');
  const setCookie = staffLogin.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /^opi_staff=stf_/);
  assert.match(setCookie, /; HttpOnly/i);
  assert.match(setCookie, /; SameSite=strict/i);

  // The stack's own worker runs a workflow whose activity writes to the stack's PostgreSQL.
  const connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
  const client = new Client({ connection });
  const result = await client.workflow.execute('probeWorkflow', {
    taskQueue: 'settlement',
    workflowId: probeId,
    args: [probeId],
  });
  assert.equal(result.probeId, probeId);
  await connection.close();

  const pids = pidsOf();
  assert.ok(pids.length >= 4, `api, worker, temporal and postgres pids recorded: ${pids}`);
  assert.equal(await stopWithCtrlC(first.child), 0);
  await sleep(200);
  assert.deepEqual(pids.filter(alive), [], 'no orphaned process after Ctrl-C');

  // Second start: same data folder; nothing to migrate, the history and the rows are still there.
  const second = startStack();
  await second.ready;
  assert.match(second.output(), /database schema is up to date/);
  assert.deepEqual(JSON.parse(readFileSync(secretsFile, 'utf8')), secrets, 'secrets are reused');
  const conn2 = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
  const described = await new Client({ connection: conn2 }).workflow.getHandle(probeId).describe();
  assert.equal(described.status.name, 'COMPLETED', 'Temporal history survived the restart (SQLite file)');
  await conn2.close();
  const db = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${ports.pg}/opi` });
  await db.connect();
  const { rowCount } = await db.query('SELECT 1 FROM system_probes WHERE probe_id = $1', [probeId]);
  const { rows: ops } = await db.query(`SELECT operator_id FROM operators`);
  await db.end();
  assert.equal(rowCount, 1, 'PostgreSQL data survived the restart');
  assert.deepEqual(
    ops.map((o) => o.operator_id),
    ['op_demo'],
    'the demo operator is seeded once',
  );
  const pids2 = pidsOf();
  assert.equal(await stopWithCtrlC(second.child), 0);
  await sleep(200);
  assert.deepEqual(pids2.filter(alive), []);
});
