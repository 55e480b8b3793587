/**
 * Prometheus and promtool from Debian's `prometheus` package (issue 37): found on PATH (or
 * PROMETHEUS_BIN / PROMTOOL_BIN), installed with apt-get when missing and this process is root
 * (as the test command installs chromium). The cluster stack runs one Prometheus scraping every
 * process with the alert rules of deploy/prometheus/rules; npm test runs `promtool check rules`
 * and `promtool test rules` on them (prometheus-rules.test.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';
import { type Supervised, startProcess } from './processes.js';
import { portFree, sleep } from './wait.js';
import { executable, onPath } from './which.js';

export const PROMETHEUS_DIR = path.join(REPO_ROOT, 'deploy', 'prometheus');
export const PROMETHEUS_RULES_DIR = path.join(PROMETHEUS_DIR, 'rules');
export const PROMETHEUS_TESTS_DIR = path.join(PROMETHEUS_DIR, 'tests');

export interface PrometheusBinaries {
  prometheus: string;
  promtool: string;
}

function find(name: 'prometheus' | 'promtool', explicit?: string): string | undefined {
  if (explicit) return executable(explicit) ? explicit : undefined;
  return onPath(name) ?? (executable(`/usr/bin/${name}`) ? `/usr/bin/${name}` : undefined);
}

/**
 * Debian's prometheus and promtool; `apt-get install -y prometheus` (after `apt-get update`) when
 * either is missing and we are root with apt. Throws naming the command otherwise.
 */
export async function ensurePrometheus(log: (msg: string) => void = () => {}): Promise<PrometheusBinaries> {
  const look = () => ({
    prometheus: find('prometheus', process.env.PROMETHEUS_BIN),
    promtool: find('promtool', process.env.PROMTOOL_BIN),
  });
  let found = look();
  const apt = '/usr/bin/apt-get';
  if ((!found.prometheus || !found.promtool) && process.getuid?.() === 0 && existsSync(apt)) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    log("prometheus/promtool missing: apt-get update && apt-get install -y prometheus (Debian's package)");
    for (const argv of [['update'], ['install', '-y', '--no-install-recommends', 'prometheus']]) {
      const code = await new Promise<number>((resolve) => {
        const child = spawn(apt, argv, { env, stdio: ['ignore', 'ignore', 'inherit'] });
        child.on('exit', (c) => resolve(c ?? 1));
      });
      if (code !== 0) throw new Error(`apt-get ${argv.join(' ')} exited with ${code}`);
    }
    found = look();
  }
  if (!found.prometheus || !found.promtool)
    throw new Error(
      "prometheus and promtool are missing: install Debian's package (as root: apt-get update && " +
        'apt-get install -y prometheus), or set PROMETHEUS_BIN and PROMTOOL_BIN',
    );
  return { prometheus: found.prometheus, promtool: found.promtool };
}

/**
 * Debian's PostgreSQL exporter (`prometheus-postgres-exporter`), installed with apt-get when
 * missing and we are root; undefined when it cannot be had (the stack then goes without it).
 */
export async function ensurePostgresExporter(
  log: (msg: string) => void = () => {},
): Promise<string | undefined> {
  const bin = '/usr/bin/prometheus-postgres-exporter';
  const apt = '/usr/bin/apt-get';
  if (!executable(bin) && process.getuid?.() === 0 && existsSync(apt)) {
    log('prometheus-postgres-exporter missing: apt-get install -y prometheus-postgres-exporter');
    await new Promise<number>((resolve) => {
      const child = spawn(apt, ['install', '-y', '--no-install-recommends', 'prometheus-postgres-exporter'], {
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      child.on('exit', (c) => resolve(c ?? 1));
    });
  }
  return executable(bin) ? bin : undefined;
}

/** The rule files (deploy/prometheus/rules/*.yml), sorted. */
export function ruleFiles(dir = PROMETHEUS_RULES_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * Copies the rule files into `dir`, each `for:` replaced by `forOverride` when given (the fault
 * drill renders the same rules with shorter waits). Returns the written files.
 */
export function renderRules(dir: string, forOverride?: string): string[] {
  mkdirSync(dir, { recursive: true });
  return ruleFiles().map((file) => {
    let text = readFileSync(file, 'utf8');
    if (forOverride) text = text.replace(/^(\s+for:\s*)\S+$/gm, `$1${forOverride}`);
    const out = path.join(dir, path.basename(file));
    writeFileSync(out, text);
    return out;
  });
}

export interface ScrapeJob {
  job: string;
  targets: string[];
  scheme?: 'http' | 'https';
}

/** A prometheus.yml: every job's static targets, the given rule files, a scrape every `interval`. */
export function prometheusConfig(options: {
  jobs: ScrapeJob[];
  ruleFiles: string[];
  interval?: string;
  evaluationInterval?: string;
}): string {
  const interval = options.interval ?? '5s';
  const lines = [
    '# Rendered by tools/devstack/src/prometheus.ts (the cluster stack); deploy/prometheus/prometheus.yml is compose.',
    'global:',
    `  scrape_interval: ${interval}`,
    `  evaluation_interval: ${options.evaluationInterval ?? interval}`,
    'rule_files:',
    ...options.ruleFiles.map((f) => `  - ${JSON.stringify(f)}`),
    'scrape_configs:',
  ];
  for (const job of options.jobs) {
    lines.push(`  - job_name: ${JSON.stringify(job.job)}`);
    if (job.scheme) lines.push(`    scheme: ${job.scheme}`);
    lines.push(
      '    static_configs:',
      `      - targets: [${job.targets.map((t) => JSON.stringify(t)).join(', ')}]`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export interface RunningPrometheus {
  url: string;
  process: Supervised;
  configFile: string;
  /** POST /-/reload: the configuration and rule files read again. */
  reload(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts Prometheus on 127.0.0.1:port with `configFile`, its data in `dataDir`; waits until ready. */
export async function startPrometheus(options: {
  binary: string;
  configFile: string;
  dataDir: string;
  port: number;
  runDir?: string;
  logFile?: string;
}): Promise<RunningPrometheus> {
  mkdirSync(options.dataDir, { recursive: true });
  const recent: string[] = [];
  let logStream: import('node:fs').WriteStream | undefined;
  if (options.logFile) {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    logStream = (await import('node:fs')).createWriteStream(options.logFile, { flags: 'a' });
  }
  const proc = startProcess(
    'prometheus',
    options.binary,
    [
      `--config.file=${options.configFile}`,
      `--storage.tsdb.path=${options.dataDir}`,
      '--storage.tsdb.retention.time=2d',
      `--web.listen-address=127.0.0.1:${options.port}`,
      '--web.enable-lifecycle',
    ],
    {
      ...(options.runDir ? { runDir: options.runDir } : {}),
      quiet: true,
      onLine: (line) => {
        logStream?.write(`${line}\n`);
        recent.push(line);
        if (recent.length > 20) recent.shift();
      },
    },
  );
  proc.child.on('exit', () => logStream?.end());
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exit) throw new Error(`prometheus exited (${JSON.stringify(proc.exit)}):\n${recent.join('\n')}`);
    const ok = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await proc.stop();
      throw new Error(`prometheus was not ready within 60 s:\n${recent.join('\n')}`);
    }
    await sleep(200);
  }
  return {
    url,
    process: proc,
    configFile: options.configFile,
    async reload() {
      const res = await fetch(`${url}/-/reload`, { method: 'POST' });
      if (!res.ok) throw new Error(`prometheus reload: HTTP ${res.status} ${await res.text()}`);
    },
    stop: () => proc.stop(),
  };
}

/** The first of `n` consecutive free ports below 32768 (a stack's SDK metrics, its Prometheus). */
export async function freePortRange(n: number, taken: Set<number> = new Set()): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    let ok = true;
    for (let i = 0; i < n && ok; i++) ok = !taken.has(base + i) && (await portFree('127.0.0.1', base + i));
    if (ok) {
      for (let i = 0; i < n; i++) taken.add(base + i);
      return base;
    }
  }
  throw new Error(`no ${n} consecutive free ports between 20000 and 32000`);
}

/** `promtool <args>` synchronously: its exit code and output. */
export function promtool(binary: string, args: string[], cwd = PROMETHEUS_DIR) {
  const r = spawnSync(binary, args, { cwd, encoding: 'utf8' });
  return { code: r.status ?? 1, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/** The alerts Prometheus has now: name, state (pending, firing) and labels. */
export async function alerts(
  url: string,
): Promise<Array<{ name: string; state: string; labels: Record<string, string> }>> {
  const res = await fetch(`${url}/api/v1/alerts`);
  const body = (await res.json()) as {
    data: { alerts: Array<{ state: string; labels: Record<string, string> }> };
  };
  return body.data.alerts.map((a) => ({ name: a.labels.alertname ?? '', state: a.state, labels: a.labels }));
}
