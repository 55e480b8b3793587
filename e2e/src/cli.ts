/**
 * `npm run golive -- [options] [playwright options]`: the go-live run. Options become the GOLIVE_*
 * variables (src/settings.ts); anything else goes to `playwright test` (e.g. --project desktop,
 * --workers 1, --headed). Without --base-url the suite starts the default stack and checks it
 * (--cluster: the cluster stack).
 *
 *   --base-url <url>      the environment (GOLIVE_BASE_URL)
 *   --api-key <key>       the operator API key (GOLIVE_API_KEY; prefer the variable: argv is visible)
 *   --return-url <url>    the return URL given at launch, intercepted (GOLIVE_RETURN_URL)
 *   --games <list>        the expected catalog, exactly: symbol[:CUR],... (GOLIVE_GAMES)
 *   --play <list>         the games to play, default all expected (GOLIVE_PLAY)
 *   --player <template>   player ids: {operator} {run} {device} {game} (GOLIVE_PLAYER)
 *   --currency <CUR>      launch currency (GOLIVE_CURRENCY); --lang <code> (GOLIVE_LANG)
 *   --output <dir>        report folder (GOLIVE_OUTPUT, default e2e/golive-report)
 *   --chromium <path>     the browser (GOLIVE_CHROMIUM, default /usr/bin/chromium when present)
 *   --wallet-admin-url <url>  the sandbox wallet's staff API, when the wallet is the sandbox
 *                         (GOLIVE_WALLET_ADMIN_URL; its token only as GOLIVE_WALLET_ADMIN_TOKEN)
 *   --staff-username <name>  an admin staff account of the operator, to run the wallet diagnostics
 *                         (GOLIVE_STAFF_USERNAME; its password only as GOLIVE_STAFF_PASSWORD)
 *   --diagnostics-player <id>  the diagnostics' test player (GOLIVE_DIAGNOSTICS_PLAYER)
 *   --ca-file <pem>       certificates to trust besides the public roots, e.g. a private CA
 *                         (GOLIVE_CA_FILE): NODE_EXTRA_CA_CERTS for Playwright, and Chromium's
 *                         --ignore-certificate-errors-spki-list for its public keys
 *   --cluster             start the cluster stack (npm run start:cluster: production topology,
 *                         HTTPS) instead of the default stack, and check it (GOLIVE_STACK=cluster)
 *   --ci                  the CI subset: one game per family on desktop and phone-portrait
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { CI_PLAY, E2E_ROOT } from './settings.js';

const FLAGS: Record<string, string> = {
  '--base-url': 'GOLIVE_BASE_URL',
  '--api-key': 'GOLIVE_API_KEY',
  '--return-url': 'GOLIVE_RETURN_URL',
  '--games': 'GOLIVE_GAMES',
  '--play': 'GOLIVE_PLAY',
  '--player': 'GOLIVE_PLAYER',
  '--currency': 'GOLIVE_CURRENCY',
  '--lang': 'GOLIVE_LANG',
  '--output': 'GOLIVE_OUTPUT',
  '--chromium': 'GOLIVE_CHROMIUM',
  '--round-timeout-ms': 'GOLIVE_ROUND_TIMEOUT_MS',
  '--wallet-admin-url': 'GOLIVE_WALLET_ADMIN_URL',
  '--ca-file': 'GOLIVE_CA_FILE',
  '--staff-username': 'GOLIVE_STAFF_USERNAME',
  '--diagnostics-player': 'GOLIVE_DIAGNOSTICS_PLAYER',
};

const env: NodeJS.ProcessEnv = { ...process.env };
const rest: string[] = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i]!;
  const [flag, inline] = arg.includes('=')
    ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
    : [arg];
  const name = FLAGS[flag!];
  if (name) {
    const value = inline ?? argv[++i];
    if (value === undefined) {
      process.stderr.write(`${flag} needs a value\n`);
      process.exit(2);
    }
    env[name] = flag === '--output' || flag === '--ca-file' ? path.resolve(value) : value;
  } else if (arg === '--cluster') {
    env.GOLIVE_STACK = 'cluster';
  } else if (arg === '--ci') {
    env.GOLIVE_PLAY ??= CI_PLAY;
    rest.push('--project', 'desktop', '--project', 'phone-portrait');
  } else {
    rest.push(arg);
  }
}
// A device selection still runs the operator's API checks (start and finish come as dependencies).
const projects = rest.flatMap((a, i) =>
  a === '--project' ? [rest[i + 1]] : a.startsWith('--project=') ? [a.slice(10)] : [],
);
if (projects.length && !projects.includes('operator')) rest.push('--project', 'operator');
const fail = (message: string) => {
  process.stderr.write(`${message}\n`);
  process.exit(2);
};
if (env.GOLIVE_STACK && !['default', 'cluster'].includes(env.GOLIVE_STACK))
  fail(`GOLIVE_STACK is default or cluster, not ${env.GOLIVE_STACK}`);
if (env.GOLIVE_STACK === 'cluster' && env.GOLIVE_BASE_URL)
  fail('--cluster (GOLIVE_STACK=cluster) starts a stack to check: it takes no --base-url (GOLIVE_BASE_URL)');
if (env.GOLIVE_BASE_URL && !env.GOLIVE_GAMES) {
  process.stderr.write(
    '--games (GOLIVE_GAMES) is required with --base-url: the catalog must hold exactly them\n',
  );
  process.exit(2);
}
env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --conditions=source`.trim();
// Node reads NODE_EXTRA_CA_CERTS only when a process starts: set for Playwright's runner here
// (its workers inherit it). It names one file: a bundle goes into GOLIVE_CA_FILE whole. The cluster
// stack's certificate is made when the stack starts: global setup sets it for the workers.
if (env.GOLIVE_CA_FILE) {
  env.GOLIVE_CA_FILE = path.resolve(env.GOLIVE_CA_FILE);
  if (!existsSync(env.GOLIVE_CA_FILE)) fail(`--ca-file (GOLIVE_CA_FILE): no such file ${env.GOLIVE_CA_FILE}`);
  if (env.GOLIVE_STACK !== 'cluster') env.NODE_EXTRA_CA_CERTS = env.GOLIVE_CA_FILE;
}

const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
const child = spawn(
  process.execPath,
  [cli, 'test', '-c', path.join(E2E_ROOT, 'playwright.config.ts'), ...rest],
  {
    cwd: E2E_ROOT,
    env,
    stdio: 'inherit',
  },
);
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {
  if (child.exitCode === null) child.kill('SIGTERM');
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
