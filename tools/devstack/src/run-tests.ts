/**
 * The test command behind `npm test`: lint and typecheck, then one real PostgreSQL (embedded) and
 * one real Temporal dev server for the whole run, a migrated template database each test file
 * clones, the workflow bundle built ahead of time, and every *.test.ts file under Node's test
 * runner. Prints a closing `N passed, N failed` line.
 */

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CHROMIUM } from '@opi/config';
import { ensureDatabase, migrate, withDatabase } from '@opi/db';
import { startEmbeddedPostgres } from '@opi/db/embedded';
import { migrateWallet } from '@opi/wallet-sandbox/migrate';
import { buildWorkflowBundle } from '@opi/workflows';
import { ensureDistBuild } from './dist-build.js';
import { filesUnder } from './files.js';
import { REPO_ROOT } from './paths.js';
import { ensurePortalBuild } from './portal.js';
import { ensurePrometheus } from './prometheus.js';
import { findOrBuildTemporalCli } from './temporal-cli.js';
import { findOrBuildTemporalServer } from './temporal-cluster.js';
import { startTemporalDevServer } from './temporal-server.js';
import { freePort } from './wait.js';

const args = process.argv.slice(2);
// `--only <path>` (repeatable): the test files under these paths only, without lint and typecheck.
const only = args.flatMap((a, i) => (a === '--only' ? [path.resolve(args[i + 1] ?? '.')] : []));
const skipChecks = args.includes('--no-checks') || only.length > 0;
const SEARCH_ROOTS = ['packages', 'tools', 'services', 'workflows', 'bench', 'e2e'];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.next', '.turbo', '.data']);

const say = (msg: string) => process.stdout.write(`[test] ${msg}\n`);

const findTests = (dir: string) => filesUnder(dir, (name) => name.endsWith('.test.ts'), SKIP_DIRS);

function run(command: string, argv: string[], env: NodeJS.ProcessEnv = process.env, capture = false) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    const child = spawn(command, argv, {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      process.stdout.write(chunk);
    });
    // 'exit' can come before the last of the child's stdout has been read (the test runner's
    // closing summary, which the counts below are read from): wait for the stream's end, or at
    // most 10 s (a stray grandchild holding the pipe open must not hang the run).
    child.on('exit', (code) => {
      const done = () => resolve({ code: code ?? 1, output });
      if (!child.stdout || child.stdout.readableEnded) return done();
      const timer = setTimeout(done, 10_000);
      child.stdout.once('end', () => {
        clearTimeout(timer);
        done();
      });
    });
  });
}

const npx = (tool: string, argv: string[]) =>
  run(path.join(REPO_ROOT, 'node_modules', '.bin', tool), argv, {
    ...process.env,
    TURBO_TELEMETRY_DISABLED: '1',
  });

const started = Date.now();
let failedChecks = 0;
if (!skipChecks) {
  say('lint (biome)');
  if ((await npx('biome', ['check', '.'])).code !== 0) failedChecks++;
  say('typecheck (turbo run typecheck)');
  if ((await npx('turbo', ['run', 'typecheck', '--output-logs=errors-only'])).code !== 0) failedChecks++;
}

// Longest first: the runner starts files in this order, two at a time, so a file of several
// minutes started last would leave one slot idle at the end. These take minutes each (the
// reliability and go-live runs 4-5, the cluster and previous-release stacks 2-3); the browser
// suites come next, then the rest in path order.
const LONGEST = [
  'bench/src/reliability/reliability.test.ts',
  'e2e/src/golive.browser.test.ts',
  'e2e/src/golive-crypto.browser.test.ts',
  'tools/devstack/src/cluster.test.ts',
  'tools/devstack/src/previous-release.test.ts',
  'tools/devstack/src/multi-process.test.ts',
  'bench/src/reliability/memory.test.ts',
  'tools/devstack/src/stack.test.ts',
].map((f) => path.join(REPO_ROOT, f));
const rank = (f: string) => {
  const i = LONGEST.indexOf(f);
  return i >= 0 ? i : f.endsWith('.browser.test.ts') ? LONGEST.length : LONGEST.length + 1;
};
const files = SEARCH_ROOTS.flatMap((r) => findTests(path.join(REPO_ROOT, r)))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort((a, b) => rank(a) - rank(b));
say(`${files.length} test files`);

// Browser tests (*.browser.test.ts) drive Debian's chromium through playwright-core (which never
// downloads a browser). When it is missing and we are root with apt, it is installed; a run that
// still has no browser fails here rather than skipping them.
const CHROMIUM = DEFAULT_CHROMIUM;
if (files.some((f) => f.endsWith('.browser.test.ts')) && !existsSync(CHROMIUM)) {
  const apt = '/usr/bin/apt-get';
  if (process.getuid?.() === 0 && existsSync(apt)) {
    const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    say(`${CHROMIUM} is missing; the browser tests need it: apt-get update`);
    await run(apt, ['update'], aptEnv);
    say('apt-get install -y chromium');
    await run(apt, ['install', '-y', 'chromium'], aptEnv);
  }
  if (!existsSync(CHROMIUM)) {
    say(
      `no browser at ${CHROMIUM}: the browser tests (*.browser.test.ts) cannot run. Install Debian's ` +
        'chromium (as root: apt-get update && apt-get install -y chromium) and run the tests again.',
    );
    process.stdout.write('0 passed, 1 failed\n');
    process.exit(1);
  }
}

// The alert rules' tests (prometheus-rules.test.ts) run Debian's promtool: installed with apt-get
// like chromium when missing (tools/devstack/src/prometheus.ts); a run without it fails here.
if (files.some((f) => f.endsWith(`${path.sep}prometheus-rules.test.ts`))) {
  try {
    await ensurePrometheus(say);
  } catch (err) {
    say(`${err instanceof Error ? err.message : String(err)}: the alert rules' tests cannot run`);
    process.stdout.write('0 passed, 1 failed\n');
    process.exit(1);
  }
}

// The staff portal's browser tests (portal*.browser.test.ts) drive its production build: `next build`
// runs (only when the portal's inputs changed) while PostgreSQL and Temporal start.
const portalBuild: Promise<unknown> = files.some((f) => /portal[^/]*\.browser\.test\.ts$/.test(f))
  ? ensurePortalBuild(say).then(
      () => undefined,
      (err: unknown) => err,
    )
  : Promise.resolve(undefined);

// The cluster stack's test (cluster.test.ts) runs the real Temporal server: built once with Go
// into the cache outside the checkout (a few minutes on a fresh machine) while the rest starts.
const serverBuild: Promise<unknown> = files.some((f) => f.endsWith(`${path.sep}cluster.test.ts`))
  ? findOrBuildTemporalServer({ log: say }).then(
      () => undefined,
      (err: unknown) => err,
    )
  : Promise.resolve(undefined);

// The cluster stack runs the services' production build (dist/): built here while the rest
// starts (turbo: a no-op when nothing changed), so the test's stack start does not wait for it.
const distBuild: Promise<unknown> = files.some((f) => f.endsWith(`${path.sep}cluster.test.ts`))
  ? ensureDistBuild(say).then(
      () => undefined,
      (err: unknown) => err,
    )
  : Promise.resolve(undefined);

const pgDir = await mkdtemp(path.join(os.tmpdir(), 'opi-test-pg-'));
const pgPort = await freePort();
say(`starting embedded PostgreSQL on ${pgPort}`);
const pg = await startEmbeddedPostgres({ dataDir: pgDir, port: pgPort });
let temporal: Awaited<ReturnType<typeof startTemporalDevServer>> | undefined;
let code = 1;
try {
  await ensureDatabase(pg.url, 'opi_template');
  await migrate(withDatabase(pg.url, 'opi_template'));
  await migrateWallet(withDatabase(pg.url, 'opi_template'));
  const cliPath = await findOrBuildTemporalCli({
    ...(process.env.TEMPORAL_CLI_PATH ? { explicitPath: process.env.TEMPORAL_CLI_PATH } : {}),
    log: say,
  });
  const temporalPort = await freePort();
  say(`starting the Temporal dev server (${cliPath}) on ${temporalPort}`);
  temporal = await startTemporalDevServer({ cliPath, port: temporalPort, headless: true });
  say('building the workflow bundle');
  await buildWorkflowBundle();
  const serverError = await serverBuild;
  if (serverError) {
    say(`the Temporal server build failed: ${String(serverError)}`);
    failedChecks++;
  }
  const distError = await distBuild;
  if (distError) {
    say(`the production build failed: ${String(distError)}`);
    failedChecks++;
  }
  const portalError = await portalBuild;
  if (portalError) {
    say(`the staff portal build failed: ${String(portalError)}`);
    failedChecks++;
  }

  const env = {
    ...process.env,
    NODE_ENV: 'test',
    OPI_TEST_PG_URL: pg.url,
    OPI_TEST_TEMPLATE_DB: 'opi_template',
    OPI_TEST_TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_CLI_PATH: cliPath,
    OPI_TEST_CHROMIUM: CHROMIUM,
  };
  const result = await run(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      '--test',
      '--test-reporter=spec',
      `--test-concurrency=${Math.max(2, os.availableParallelism())}`,
      // Per test and per test file (each file runs as a test of its own): the reliability CI run
      // and the go-live suite's file take 4-5 minutes beside the other files on 2 cores.
      '--test-timeout=600000',
      ...files,
    ],
    env,
    true,
  );
  const count = (label: string) =>
    Number(new RegExp(`^ℹ ${label} (\\d+)$`, 'm').exec(result.output)?.[1] ?? 0);
  const passed = count('pass');
  const failed = count('fail') + count('cancelled') + failedChecks;
  code = result.code === 0 && failed === 0 && passed > 0 ? 0 : 1;
  say(`finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (failedChecks) say(`${failedChecks} check step(s) (lint/typecheck) failed`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
} finally {
  await temporal?.stop();
  await pg.stop();
  await rm(pgDir, { recursive: true, force: true });
}
process.exit(code);
