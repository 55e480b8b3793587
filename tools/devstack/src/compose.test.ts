import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { EnvSchema, loadConfig } from '@opi/config';
import { loadWalletConfig, WalletEnvSchema } from '@opi/wallet-sandbox';
import YAML from 'yaml';
import { REPO_ROOT } from './paths.js';
import {
  TEMPORAL_CONFIG_FILE,
  TEMPORAL_DYNAMIC_CONFIG_FILE,
  TEMPORAL_SERVER_VERSION,
} from './temporal-cluster.js';

/*
 * docker-compose.yml and the Dockerfile, checked without a Docker engine: the services and their
 * images, health checks and dependencies, every variable against the schemas the services parse
 * their environment with (and parsed by them), the Dockerfile's stages and entry points. Where a
 * `docker compose` CLI exists, `docker compose config` must accept the file too.
 */

const file = (p: string) => readFileSync(path.join(REPO_ROOT, p), 'utf8');
const SECRETS: Record<string, string> = {
  SERVICE_SECRET: 'compose-service-secret-0123456789abcdef',
  REPLAY_LINK_SECRET: 'compose-replay-link-secret-0123456789abcdef',
  PROVIDER_ADMIN_KEY: 'padm_compose_admin_key_0123456789abcdef',
  STAFF_PORTAL_SECRET: 'compose-staff-portal-secret-0123456789',
  WALLET_ADMIN_TOKEN: 'compose-wallet-admin-token',
  WORKER_BUILD_ID: 'compose-release-1',
};

/** Compose interpolation (`${X}`, `${X:-default}`, `${X:?error}`, `$$`) against `env`. */
function interpolate(value: unknown, env: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value
      .replace(/\$\{([A-Z0-9_]+)(?:(:?[-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
        const v = env[name];
        if (v !== undefined && v !== '') return v;
        if (op?.endsWith('?')) throw new Error(`compose requires ${name}: ${arg}`);
        return op?.endsWith('-') ? (arg ?? '') : '';
      })
      .replaceAll('$$', '$');
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  }
  return value;
}

interface Service {
  image?: string;
  build?: { context: string; target: string };
  environment?: Record<string, string | number>;
  healthcheck?: { test: string[] | string };
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  volumes?: string[];
  command?: string[];
  entrypoint?: string[];
  ports?: string[];
}

const raw = YAML.parse(file('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const compose = interpolate(raw, SECRETS) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const dockerfile = file('Dockerfile');
const stages = new Set([...dockerfile.matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gim)].map((m) => m[1]!));
const envOf = (name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(services[name]!.environment ?? {}).map(([k, v]) => [k, String(v)]));

/** One-shot jobs (they exit; the services after them wait for `service_completed_successfully`). */
const JOBS = ['temporal-schema', 'temporal-namespace', 'bootstrap', 'worker-version'];

describe('docker-compose.yml', () => {
  test('every part of the platform is there, the API, the game server and the worker twice', () => {
    assert.deepEqual(Object.keys(services).sort(), [
      'api-1',
      'api-2',
      'bootstrap',
      'game-1',
      'game-2',
      'game-lb',
      'lb',
      'portal',
      'postgres',
      'postgres-exporter',
      'prometheus',
      'temporal',
      'temporal-namespace',
      'temporal-schema',
      'temporal-ui',
      'wallet-sandbox',
      'worker-1',
      'worker-2',
      'worker-version',
    ]);
    assert.match(services.temporal!.image!, /^temporalio\/server:/);
    assert.equal(services.temporal!.environment!.DB, 'postgres12', 'Temporal persists in PostgreSQL');
    assert.equal(services.temporal!.environment!.POSTGRES_SEEDS, 'postgres');
    assert.match(services['temporal-ui']!.image!, /^temporalio\/ui:/);
    assert.deepEqual(
      services.lb!.command!.filter((_a, i, all) => all[i - 1] === '--to'),
      ['api-1:8080', 'api-2:8080'],
    );
    // The game origin has its own balancer over the game servers only (issue 24).
    assert.deepEqual(
      services['game-lb']!.command!.filter((_a, i, all) => all[i - 1] === '--to'),
      ['game-1:8081', 'game-2:8081'],
    );
    assert.equal(services['game-1']!.build!.target, 'game-server');
    assert.equal(services['api-1']!.build!.target, 'api');
  });

  test('published ports: only the API, the game origin and the portal beyond loopback; the Temporal UI read-only', () => {
    // Issue 23, point 8: the Temporal Web UI was published on every interface with its write
    // actions on (terminate, reset, signal: around the staff cancel's role check and audit log).
    const published: Record<string, string[]> = {};
    for (const [name, svc] of Object.entries(services))
      if (svc.ports?.length) published[name] = svc.ports.map(String);
    const open = Object.entries(published)
      .filter(([, ports]) => ports.some((p) => !p.startsWith('127.0.0.1:')))
      .map(([name]) => name)
      .sort();
    assert.deepEqual(open, ['game-lb', 'lb', 'portal'], JSON.stringify(published));
    assert.deepEqual(published['temporal-ui'], ['127.0.0.1:8233:8080']);
    assert.deepEqual(published['wallet-sandbox'], ['127.0.0.1:8090:8090']);
    assert.equal(String(services['temporal-ui']!.environment!.TEMPORAL_DISABLE_WRITE_ACTIONS), 'true');
    for (const name of ['temporal', 'postgres', 'api-1', 'api-2', 'game-1', 'game-2', 'worker-1', 'worker-2'])
      assert.equal(published[name], undefined, `${name} publishes no port`);
  });

  test('Temporal: the version, configuration and dynamic config the native cluster stack runs and tests', () => {
    // `npm run start:cluster` (and cluster.test.ts) run TEMPORAL_SERVER_VERSION with
    // deploy/temporal/config.yaml and dynamicconfig.yaml: compose deploys exactly those.
    for (const name of ['temporal', 'temporal-schema', 'temporal-namespace'])
      assert.equal(services[name]!.image!.split(':')[1], TEMPORAL_SERVER_VERSION, `${name} image version`);
    const t = services.temporal!;
    const mounts = Object.fromEntries(
      (t.volumes ?? []).map((v) => {
        const [from, to] = v.split(':');
        return [to!, path.resolve(REPO_ROOT, from!)];
      }),
    );
    const env = envOf('temporal');
    assert.equal(mounts[env.TEMPORAL_SERVER_CONFIG_FILE_PATH!], TEMPORAL_CONFIG_FILE);
    assert.equal(mounts[env.DYNAMIC_CONFIG_FILE_PATH!], TEMPORAL_DYNAMIC_CONFIG_FILE);
    // Every variable the shared configuration reads without a default is set for the server.
    const config = file('deploy/temporal/config.yaml');
    const all = new Set([...config.matchAll(/env "([A-Z0-9_]+)"/g)].map((m) => m[1]!));
    const optional = new Set(
      [
        ...config.matchAll(
          /(?:default (?:"[^"]*"|\(env "[A-Z0-9_]+"\)|\(default [^)]*\)\)) \(|if )env "([A-Z0-9_]+)"/g,
        ),
      ].map((m) => m[1]!),
    );
    const required = [...all].filter((name) => !optional.has(name));
    assert.deepEqual(required.sort(), ['POSTGRES_PWD', 'POSTGRES_SEEDS', 'POSTGRES_USER']);
    for (const name of required) assert.ok(env[name], `temporal sets ${name}`);
    assert.equal(env.NUM_HISTORY_SHARDS, '4');
  });

  test('every image of the platform is a stage of the multi-stage Dockerfile, built from this repository', () => {
    for (const [name, s] of Object.entries(services)) {
      if (!s.build) continue;
      assert.equal(s.build.context, '.', name);
      assert.ok(stages.has(s.build.target), `${name}: no stage ${s.build.target} in the Dockerfile`);
    }
    for (const stage of [
      'deps',
      'build',
      'runtime',
      'bootstrap',
      'api',
      'game-server',
      'worker',
      'wallet-sandbox',
      'portal',
    ]) {
      assert.ok(stages.has(stage), `stage ${stage}`);
    }
    // The entry points exist (dist/x.js is built from src/x.ts).
    for (const m of dockerfile.matchAll(/"((?:services|packages|workflows)\/[^"]+)\/dist\/([^"]+)\.js"/g)) {
      assert.ok(existsSync(path.join(REPO_ROOT, m[1]!, 'src', `${m[2]}.ts`)), `${m[1]}/src/${m[2]}.ts`);
    }
    // The dependency layer gets every workspace's manifest (found, not listed) and the lockfile.
    assert.match(dockerfile, /find \. -mindepth 2 -name package\.json -not -path '\*\/node_modules\/\*'/);
    assert.match(dockerfile, /RUN npm ci /);
    const ignored = file('.dockerignore').split('\n');
    for (const p of ['node_modules', '**/node_modules', '**/dist', '.data', '.git']) {
      assert.ok(ignored.includes(p), `.dockerignore: ${p}`);
    }
  });

  test('health checks on every long-running service; dependencies exist and wait for health or completion', () => {
    for (const [name, s] of Object.entries(services)) {
      const job = JOBS.includes(name);
      // The Temporal UI is an operator's tool without a health endpoint of its own.
      if (!job && name !== 'temporal-ui') assert.ok(s.healthcheck, `${name} has a health check`);
      if (job) assert.match(s.restart ?? '', /^on-failure/, `${name} is a job that retries, then stops`);
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        assert.ok(services[dep], `${name} depends on ${dep}, which exists`);
        assert.equal(
          condition,
          JOBS.includes(dep) ? 'service_completed_successfully' : 'service_healthy',
          `${name} -> ${dep}`,
        );
        if (!JOBS.includes(dep))
          assert.ok(services[dep]!.healthcheck, `${dep} has a health check to wait for`);
      }
    }
    for (const name of ['api-1', 'api-2', 'game-1', 'game-2', 'worker-1', 'worker-2']) {
      assert.equal(services[name]!.depends_on!.bootstrap!.condition, 'service_completed_successfully');
      assert.equal(
        services[name]!.depends_on!['temporal-namespace']!.condition,
        'service_completed_successfully',
      );
    }
    for (const s of Object.values(services)) {
      for (const v of s.volumes ?? []) {
        const [source] = v.split(':');
        if (source!.startsWith('./')) assert.ok(existsSync(path.join(REPO_ROOT, source!)), source);
      }
    }
  });

  test('Worker Deployment Versioning: every settlement worker polls as the release; a job makes it current once a worker polls', () => {
    for (const name of ['game-1', 'game-2', 'worker-1', 'worker-2', 'worker-version']) {
      const config = loadConfig(envOf(name));
      assert.equal(config.WORKER_BUILD_ID, 'compose-release-1', name);
      assert.equal(config.WORKER_DEPLOYMENT_NAME, 'opi-settlement', name);
    }
    const job = services['worker-version']!;
    assert.equal(job.build?.target, 'worker');
    assert.equal(job.depends_on?.['worker-1']?.condition, 'service_healthy');
    const [, entry, flag] = job.command ?? [];
    const m = /^(services\/[^/]+)\/dist\/(.+)\.js$/.exec(entry ?? '');
    assert.ok(
      m && existsSync(path.join(REPO_ROOT, m[1]!, 'src', `${m[2]}.ts`)),
      `${entry} is built from a source`,
    );
    assert.equal(flag, '--adopt');
    // Something waits for it (compose up --wait counts a job nothing waits for as a failure).
    assert.equal(
      services['game-lb']!.depends_on?.['worker-version']?.condition,
      'service_completed_successfully',
    );
  });

  test('the platform services get the default stack’s variables, and parse them', () => {
    const known = new Set(Object.keys(EnvSchema.shape));
    for (const name of ['bootstrap', 'api-1', 'api-2', 'game-1', 'game-2', 'worker-1', 'worker-2']) {
      const env = envOf(name);
      for (const k of Object.keys(env)) assert.ok(known.has(k), `${name}: ${k} is not a platform variable`);
      const config = loadConfig(env);
      assert.equal(config.isProduction, true);
      assert.equal(config.signedRequestsRequired, true);
      assert.equal(config.TEMPORAL_ADDRESS, 'temporal:7233');
      assert.equal(config.DATABASE_URL, 'postgres://opi:opi@postgres:5432/opi');
      assert.match(config.PUBLIC_BASE_URL ?? '', /^https:\/\//);
      assert.match(config.GAME_BASE_URL ?? '', /^https:\/\//);
      assert.equal(config.SERVICE_SECRET, SECRETS.SERVICE_SECRET);
      assert.equal(config.REPLAY_LINK_SECRET, SECRETS.REPLAY_LINK_SECRET);
      assert.equal(config.HOST, '0.0.0.0');
    }
    assert.equal(loadConfig(envOf('api-1')).PORT, 8080);
    assert.equal(loadConfig(envOf('game-1')).GAME_SERVER_PORT, 8081);
    assert.equal(loadConfig(envOf('game-1')).GAME_SETTLEMENT_WORKER, 'on');
    assert.equal(loadConfig(envOf('worker-1')).WORKER_METRICS_PORT, 9470);

    const walletEnv = envOf('wallet-sandbox');
    const walletKnown = new Set([...known, ...Object.keys(WalletEnvSchema.shape)]);
    for (const k of Object.keys(walletEnv)) assert.ok(walletKnown.has(k), `wallet-sandbox: ${k}`);
    const wallet = loadWalletConfig(walletEnv);
    assert.equal(wallet.port, 8090);
    assert.equal(wallet.databaseUrl, 'postgres://opi:opi@postgres:5432/opi');

    // The portal's own variables (portal/src/lib/env.ts) and the platform's PORTAL_PORT.
    const portalKnown = new Set([
      'NODE_ENV',
      'PORTAL_PORT',
      ...[...file('portal/src/lib/env.ts').matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!),
    ]);
    const portalEnv = envOf('portal');
    for (const k of Object.keys(portalEnv)) assert.ok(portalKnown.has(k), `portal: ${k}`);
    assert.equal(
      portalEnv.STAFF_PORTAL_SECRET,
      envOf('api-1').STAFF_PORTAL_SECRET,
      'portal and API share the secret',
    );
    assert.equal(portalEnv.OPI_API_URL, 'http://lb:8080');
  });

  test('secrets have no default: compose refuses to start without them', () => {
    for (const name of Object.keys(SECRETS)) {
      const { [name]: _omitted, ...rest } = SECRETS;
      assert.throws(() => interpolate(raw, rest), new RegExp(`compose requires ${name}`));
    }
  });

  test('Prometheus scrapes every process and evaluates the alert rules (issue 37)', () => {
    const prom = services.prometheus!;
    assert.match(prom.image!, /^prom\/prometheus:v2\./);
    assert.ok(prom.volumes!.includes('./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro'));
    assert.ok(prom.volumes!.includes('./deploy/prometheus/rules:/etc/prometheus/rules:ro'));
    assert.deepEqual(prom.ports, ['127.0.0.1:9090:9090'], 'Prometheus on loopback only');
    const config = YAML.parse(file('deploy/prometheus/prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
    };
    assert.deepEqual(config.rule_files, ['/etc/prometheus/rules/*.yml']);
    const targets = new Map(
      config.scrape_configs.map((j) => [j.job_name, j.static_configs.flatMap((s) => s.targets)]),
    );
    const port = (service: string, variable: string) => `${service}:${envOf(service)[variable]}`;
    assert.deepEqual(
      targets.get('api'),
      ['api-1', 'api-2'].map((s) => port(s, 'API_METRICS_PORT')),
    );
    assert.deepEqual(
      targets.get('game-server'),
      ['game-1', 'game-2'].map((s) => port(s, 'GAME_METRICS_PORT')),
    );
    assert.deepEqual(
      targets.get('worker'),
      ['worker-1', 'worker-2'].map((s) => port(s, 'WORKER_METRICS_PORT')),
    );
    assert.deepEqual(targets.get('temporal-sdk'), [
      ...['worker-1', 'worker-2', 'game-1', 'game-2'].map((s) => port(s, 'TEMPORAL_SDK_METRICS_PORT')),
    ]);
    assert.deepEqual(targets.get('temporal-server'), [
      `temporal:${envOf('temporal').PROMETHEUS_ENDPOINT!.split(':')[1]}`,
    ]);
    assert.deepEqual(targets.get('postgres'), ['postgres-exporter:9187']);
    // Each scraped port is one the service exposes on the compose network.
    for (const [service, s] of Object.entries(services))
      for (const t of [...targets.values()].flat().filter((t) => t.startsWith(`${service}:`)))
        assert.ok(
          service === 'temporal' || (s as { expose?: string[] }).expose?.includes(t.split(':')[1]!),
          `${service} exposes ${t}`,
        );
  });

  test('compose:local: the override names only services of the file and replaces every public image with a local build', () => {
    // deploy/compose-local/docker-compose.local.yml (npm run compose:local); `!override` replaces a list.
    const override = YAML.parse(
      file('deploy/compose-local/docker-compose.local.yml').replaceAll('!override ', ''),
      {
        merge: true,
      },
    ) as { services: Record<string, Service> };
    for (const name of Object.keys(override.services))
      assert.ok(services[name], `${name} is a service of the file`);
    for (const [name, s] of Object.entries(services)) {
      if (s.build) {
        assert.equal(
          override.services[name]?.image,
          undefined,
          `${name}: built from the Dockerfile as written`,
        );
        continue;
      }
      const local = override.services[name]?.image ?? '';
      assert.match(local, /^localhost\/opi-local\//, `${name}: ${s.image} has a local stand-in`);
      const dir = local.replace(/^localhost\/opi-local\//, '').replace(/:.*$/, '');
      assert.ok(existsSync(path.join(REPO_ROOT, 'deploy/compose-local/images', dir, 'Containerfile')), dir);
    }
    // The Dockerfile's base image is a build argument whose default is the public image.
    assert.match(dockerfile, /^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    assert.equal((dockerfile.match(/^FROM \$\{NODE_IMAGE\} AS /gm) ?? []).length, 3);
  });

  test('`docker compose config` accepts the file (where a compose CLI exists)', (t) => {
    const candidates: string[][] = [
      ...(process.env.DOCKER_COMPOSE ? [[process.env.DOCKER_COMPOSE]] : []),
      ['docker', 'compose'],
      ['docker-compose'],
    ];
    const cli = candidates.find(
      ([cmd, ...rest]) => spawnSync(cmd!, [...rest, 'version'], { stdio: 'ignore' }).status === 0,
    );
    if (!cli) {
      t.skip('no docker compose CLI on this machine (set DOCKER_COMPOSE to one)');
      return;
    }
    const [cmd, ...rest] = cli;
    const out = spawnSync(
      cmd!,
      [...rest, '-f', path.join(REPO_ROOT, 'docker-compose.yml'), 'config', '--format', 'json'],
      {
        env: { ...process.env, ...SECRETS },
        encoding: 'utf8',
      },
    );
    assert.equal(out.status, 0, out.stderr);
    const normalized = JSON.parse(out.stdout) as { services: Record<string, unknown> };
    assert.deepEqual(Object.keys(normalized.services).sort(), Object.keys(services).sort());
  });
});
