/**
 * The JSON summary of a go-live run: one line per go-live item (pass, fail, warning, or
 * not_checkable with the reason), combined from the tests' `golive` annotations, and one line per
 * game and device run (status, duration, screenshots). Written to <GOLIVE_OUTPUT>/summary.json and
 * printed as a table at the end. Any failed item fails the run.
 */
import { writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { ITEMS, type ItemStatus } from './items.js';
import { ANNOTATION, type ItemRecord, SCREENSHOT } from './record.js';
import { DEVICE_PROJECTS, loadSettings } from './settings.js';

export interface ItemLine {
  id: string;
  status: ItemStatus;
  item: string;
  detail: string;
}

export interface RunLine {
  game: string;
  device: string;
  status: string;
  duration_ms: number;
  screenshots: string[];
  error?: string;
}

export interface Summary {
  ok: boolean;
  target: Record<string, unknown>;
  started_at: string;
  duration_ms: number;
  items: ItemLine[];
  runs: RunLine[];
  html_report: string;
}

const MOBILE = new Set(['phone-portrait', 'phone-landscape', 'tablet']);
const where = (r: ItemRecord) => [r.game, r.device].filter(Boolean).join(' on ');

/** Combines one item's records: fail > warning > pass > not_checkable. */
export function combine(id: string, records: ItemRecord[], devicesRun: Set<string>): ItemLine {
  const def = ITEMS.find((i) => i.id === id)!;
  const line = (status: ItemStatus, detail: string): ItemLine => ({ id, status, item: def.item, detail });
  if (!records.length) {
    if (def.notCheckable) return line('not_checkable', def.notCheckable);
    return line('fail', 'not checked: no test reached it (see the failed or skipped tests)');
  }
  const by = (s: ItemStatus) => records.filter((r) => r.status === s);
  const list = (rs: ItemRecord[], max = 6) => {
    const shown = rs.slice(0, max).map((r) => (where(r) ? `${where(r)}: ${r.detail}` : r.detail));
    return shown.join(' | ') + (rs.length > max ? ` | … ${rs.length - max} more` : '');
  };
  const fails = by('fail');
  const warnings = by('warning');
  const passes = by('pass');
  const notCheckable = by('not_checkable');
  const runsOf = (rs: ItemRecord[]) =>
    new Set(rs.filter((r) => r.game).map((r) => `${r.game} on ${r.device}`)).size;
  if (fails.length) return line('fail', list(fails));
  // Pages on desktop and on a phone: the launch itself, and the history panel (issue 26).
  const bothDevices = id === 'launch_opens' || id === 'history_panel';
  if (bothDevices && ![...devicesRun].some((d) => MOBILE.has(d)))
    return line(
      'fail',
      `not checked on mobile (no phone or tablet project ran); desktop: ${list(passes, 2)}`,
    );
  if (bothDevices && !devicesRun.has('desktop'))
    return line(
      'fail',
      `not checked on desktop (the desktop project did not run); mobile: ${list(passes, 2)}`,
    );
  if (warnings.length) return line('warning', list(warnings, 3));
  if (passes.length) {
    const perRun = passes.some((r) => r.game);
    const head = perRun ? `passed on ${runsOf(passes)} game/device runs` : '';
    const tail = notCheckable.length ? `; not applicable: ${list(notCheckable, 3)}` : '';
    return line('pass', `${head}${head ? ': ' : ''}${list(passes, perRun ? 3 : 6)}${tail}`);
  }
  const reasonText = def.notCheckable ? `${def.notCheckable}. Evidence: ` : '';
  return line('not_checkable', `${reasonText}${list(notCheckable, 3)}`);
}

/** JSON with each item and run on one line. */
export function formatSummary(s: Summary): string {
  const lines = (xs: unknown[]) =>
    xs.length ? `[\n${xs.map((x) => `    ${JSON.stringify(x)}`).join(',\n')}\n  ]` : '[]';
  return [
    '{',
    `  "ok": ${JSON.stringify(s.ok)},`,
    `  "target": ${JSON.stringify(s.target)},`,
    `  "started_at": ${JSON.stringify(s.started_at)},`,
    `  "duration_ms": ${s.duration_ms},`,
    `  "html_report": ${JSON.stringify(s.html_report)},`,
    `  "items": ${lines(s.items)},`,
    `  "runs": ${lines(s.runs)}`,
    '}',
    '',
  ].join('\n');
}

export default class GoLiveSummaryReporter implements Reporter {
  private readonly records: ItemRecord[] = [];
  private readonly runs: RunLine[] = [];
  private readonly devicesRun = new Set<string>();
  private readonly started = new Date();

  printsToStdio() {
    return true;
  }

  onTestEnd(test: TestCase, result: TestResult) {
    for (const a of result.annotations) {
      if (a.type !== ANNOTATION || !a.description) continue;
      try {
        this.records.push(JSON.parse(a.description) as ItemRecord);
      } catch {
        // not ours
      }
    }
    const device = test.parent.project()?.name ?? '';
    if (!(DEVICE_PROJECTS as readonly string[]).includes(device)) return;
    if (result.status !== 'skipped') this.devicesRun.add(device);
    this.runs.push({
      game: test.title,
      device,
      status: result.status,
      duration_ms: result.duration,
      screenshots: result.annotations.filter((a) => a.type === SCREENSHOT).map((a) => a.description ?? ''),
      ...(result.error?.message ? { error: result.error.message.split('\n')[0]!.slice(0, 400) } : {}),
    });
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    const settings = loadSettings();
    const items = ITEMS.map((i) =>
      combine(
        i.id,
        this.records.filter((r) => r.item === i.id),
        this.devicesRun,
      ),
    );
    const ok = result.status === 'passed' && !items.some((i) => i.status === 'fail');
    const summary: Summary = {
      ok,
      target: {
        base_url: settings.baseUrl ?? null,
        started_default_stack: settings.stackStarted && settings.stack === 'default',
        started_stack: settings.stackStarted ? settings.stack : null,
        expected_games: settings.expected.map((g) => (g.currency ? `${g.symbol}:${g.currency}` : g.symbol)),
        played_games: settings.play.map((g) => g.symbol),
        devices: DEVICE_PROJECTS.filter((d) => this.devicesRun.has(d)),
        return_url: settings.returnUrl,
        run_id: settings.runId,
        reconcile_from: settings.reconcileFrom ?? null,
        browser: settings.chromium ?? 'playwright',
      },
      started_at: this.started.toISOString(),
      duration_ms: Date.now() - this.started.getTime(),
      html_report: path.join(settings.outputDir, 'html', 'index.html'),
      items,
      runs: this.runs,
    };
    await mkdir(settings.outputDir, { recursive: true });
    const file = path.join(settings.outputDir, 'summary.json');
    writeFileSync(file, formatSummary(summary));
    const width = Math.max(...items.map((i) => i.id.length));
    const out = [
      '',
      `Go-live summary (${ok ? 'PASSED' : 'FAILED'}) for ${settings.baseUrl ?? `the ${settings.stack} stack`}${settings.stackStarted ? ` (the ${settings.stack} stack)` : ''}:`,
      ...items.map((i) => {
        const detail = i.detail.length > 220 ? `${i.detail.slice(0, 217)}...` : i.detail;
        return `  ${i.status.padEnd(13)} ${i.id.padEnd(width)}  ${detail}`;
      }),
      '',
      ...this.runs.map(
        (r) =>
          `  ${r.status.padEnd(13)} ${`${r.game} on ${r.device}`.padEnd(36)} ${(r.duration_ms / 1000).toFixed(1)} s`,
      ),
      '',
      `  JSON summary: ${file}`,
      `  HTML report:  ${summary.html_report}`,
      '',
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    return ok ? undefined : { status: 'failed' };
  }
}
