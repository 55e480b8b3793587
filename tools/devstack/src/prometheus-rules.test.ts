/**
 * The alert rules (deploy/prometheus/rules) as Prometheus reads them: `promtool check rules` on
 * every file and `promtool test rules` on every test file (one per rule group, firing and not
 * firing), with Debian's promtool (the test command installs it like chromium). Also what the
 * files promise: every group has its test file and every alert is tested in it; every alert has a
 * runbook entry in docs/operations.md; every `for` is longer than a deploy; and the Temporal SDK's
 * metrics are named as its Prometheus exporter names them (milliseconds, `_total`, `_bucket`).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from './paths.js';
import { ensurePrometheus, PROMETHEUS_TESTS_DIR, promtool, ruleFiles } from './prometheus.js';

const tools = await ensurePrometheus();
const rules = ruleFiles();
const testFiles = readdirSync(PROMETHEUS_TESTS_DIR)
  .filter((f) => f.endsWith('.test.yml'))
  .map((f) => path.join(PROMETHEUS_TESTS_DIR, f));

/** The alerts of one rule file: name, for, expr (the files are written one key a line). */
function alertsOf(file: string) {
  const text = readFileSync(file, 'utf8');
  const out: Array<{ name: string; for: string; expr: string }> = [];
  for (const block of text.split(/^\s+- alert: /m).slice(1)) {
    const name = block.split('\n')[0]!.trim();
    const forValue = /^\s+for: (\S+)$/m.exec(block)?.[1] ?? '';
    const expr = /^\s+expr: ([\s\S]*?)^\s+for:/m.exec(block)?.[1] ?? '';
    out.push({ name, for: forValue, expr });
  }
  return out;
}

const seconds = (d: string) => {
  let total = 0;
  for (const [, n, unit] of d.matchAll(/(\d+)(ms|s|m|h|d)/g))
    total += Number(n) * { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }[unit as 'ms' | 's' | 'm' | 'h' | 'd'];
  return total;
};

test('promtool check rules: every rule file is valid', () => {
  assert.ok(rules.length >= 4, 'rule files in deploy/prometheus/rules');
  const r = promtool(tools.promtool, ['check', 'rules', ...rules]);
  assert.equal(r.code, 0, r.output);
  assert.ok(!/FAILED/.test(r.output), r.output);
});

for (const file of testFiles) {
  test(`promtool test rules ${path.relative(REPO_ROOT, file)}`, () => {
    const r = promtool(tools.promtool, ['test', 'rules', file]);
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /SUCCESS/);
  });
}

test('every rule group has its test file, which tests each of its alerts firing and not firing', () => {
  for (const file of rules) {
    const testFile = path.join(PROMETHEUS_TESTS_DIR, path.basename(file).replace(/\.yml$/, '.test.yml'));
    assert.ok(existsSync(testFile), `${path.basename(file)} has no ${path.basename(testFile)}`);
    const tests = readFileSync(testFile, 'utf8');
    assert.match(tests, new RegExp(`rule_files: \\[\\.\\./rules/${path.basename(file)}\\]`));
    for (const alert of alertsOf(file)) {
      const evals = tests.split(/^\s+- eval_time: /m).filter((e) => e.includes(`alertname: ${alert.name}\n`));
      assert.ok(
        evals.some((e) => /exp_alerts: \[\]/.test(e)),
        `${alert.name}: no test where it does not fire`,
      );
      assert.ok(
        evals.some((e) => /exp_alerts:\n\s+- exp_labels:/.test(e)),
        `${alert.name}: no test where it fires`,
      );
    }
  }
});

test('every alert: a runbook entry in docs/operations.md, and a `for` longer than a deploy (10 minutes or more)', () => {
  const ops = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
  const names = rules.flatMap(alertsOf);
  assert.ok(names.length >= 14);
  for (const alert of names) {
    assert.ok(seconds(alert.for) >= 600, `${alert.name}: for ${alert.for}`);
    assert.ok(ops.includes(`#### ${alert.name}`), `${alert.name}: no runbook heading in docs/operations.md`);
  }
  for (const file of rules) {
    for (const m of readFileSync(file, 'utf8').matchAll(/runbook: docs\/operations\.md#(\S+)/g)) {
      const anchor = m[1]!;
      assert.ok(
        names.some((n) => n.name.toLowerCase() === anchor) || anchor === 'alerts',
        `${file}: runbook anchor #${anchor} is no alert's heading`,
      );
    }
  }
});

test("the Temporal SDK's metric names as its Prometheus exporter writes them", () => {
  const workers = alertsOf(path.join(path.dirname(rules[0]!), 'temporal-workers.yml'));
  const all = workers.map((a) => a.expr).join('\n');
  // Histograms are read through _bucket, counters through _total (countersTotalSuffix), and the
  // SDK's durations are milliseconds (5 s is 5000).
  assert.match(all, /temporal_workflow_task_schedule_to_start_latency_bucket/);
  assert.match(all, /> 5000/);
  assert.match(all, /temporal_workflow_task_execution_failed_total/);
  assert.match(all, /temporal_\(long_\)\?request_failure_total/);
  assert.match(all, /temporal_num_pollers/);
  const runtime = readFileSync(path.join(REPO_ROOT, 'workflows', 'src', 'runtime-logger.ts'), 'utf8');
  assert.match(runtime, /countersTotalSuffix: true/);
  assert.doesNotMatch(runtime, /useSecondsForDurations/);
});

test("the settlement dashboard's queries are valid PromQL (promtool check rules on them as recording rules)", () => {
  const dashboard = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'deploy', 'grafana', 'settlement-dashboard.json'), 'utf8'),
  ) as { uid: string; panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
  assert.equal(dashboard.uid, 'opi-settlement');
  const titles = dashboard.panels.map((p) => p.title).join('\n');
  // What issue 37 asks of it: rounds per second by family, spin-to-outcome p50 and p99, wallet
  // latency per operator, Temporal's schedule-to-start, unsettled rounds.
  for (const want of [
    /Rounds per second by family/,
    /p50 and p99/,
    /Wallet callback latency per operator/,
    /schedule-to-start/,
    /Unsettled rounds/,
  ])
    assert.match(titles, want);
  const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opi-dashboard-'));
  try {
    const file = path.join(dir, 'dashboard.yml');
    const rules = exprs.map(
      (e, i) => `      - record: opi:dashboard:q${i}\n        expr: ${JSON.stringify(e)}`,
    );
    writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules.join('\n')}\n`);
    const r = promtool(tools.promtool, ['check', 'rules', file]);
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, new RegExp(`SUCCESS: ${exprs.length} rules found`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
