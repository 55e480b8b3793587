// The replay corpus: histories of real runs of every workflow path, kept append-only by the
// workflow code that recorded them, and the guard that says when a change needs new ones
// (docs/settlement.md, "Changing workflow code"). Node code (files, the Temporal CLI): never
// imported by the workflow bundle.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** `workflows/histories/<workflow>/<path>/<release>.json`. */
export const HISTORY_ROOT = fileURLToPath(new URL('../../histories/', import.meta.url));
const SRC = fileURLToPath(new URL('../', import.meta.url));

/** Each workflow's entry file (its closure of deterministic imports is what the guard hashes). */
export const WORKFLOW_ENTRIES = {
  settleRound: 'settle-round/workflow.ts',
  runTournament: 'promotions/workflow.ts',
  payPromo: 'promotions/workflow.ts',
} as const;
export type CorpusWorkflow = keyof typeof WORKFLOW_ENTRIES;

/**
 * Every path a workflow can take in production, each of which the corpus must hold a history of,
 * recorded by the current code (named for the path; the test that records it is named beside).
 */
export const REQUIRED_PATHS: Record<CorpusWorkflow, readonly string[]> = {
  settleRound: [
    // workflows/src/settle-round/one-step.test.ts: a slot spin (journal ahead, debit then credit in one local activity)
    'one-step-spin',
    // workflow.test.ts: debit then credit as ordinary activities
    'ordinary-steps',
    // one-step.test.ts: a debit answer lost in the first attempt, claimed and resent by the ordinary step
    'retried-debit',
    // credit-ahead.test.ts: prov_a, both applied by the wallet, their record failing past the
    // rollback budget: the debit resent durably, never rolled back
    'first-attempt-debit-applied',
    // workflow.test.ts: insufficient funds
    'rejected-debit',
    // workflow.test.ts: a multi-step round cancelled (the wager returned by a cancel callback)
    'cancel',
    // workflow.test.ts: prov_a compensates an uncertain debit with a rollback
    'prov-a-rollback',
    // workflow.test.ts: prov_b keeps its intent while the wallet fails, then completes
    'stuck-then-recovered',
    // services/api/src/free-rounds/free-rounds.test.ts: a free round (no debit, the credit only)
    'free-round',
    // services/game-server/src/slots/jackpot-spin.test.ts: a spin that hit a jackpot (its jackpot_win credit)
    'jackpot-hit',
    // services/game-server/src/promotions/prize-drop.test.ts: a spin that won a prize drop (payPromo child)
    'prize-drop-award',
    // workflow.test.ts: a multi-step native round (stages, then finish)
    'native-stages',
    // services/game-server/src/crash/crash.test.ts: a crash round (debit, running, cash-out credit)
    'crash',
  ],
  runTournament: [
    // services/api/src/tournaments/tournaments.test.ts
    'start-freeze-payouts',
    'cancelled-before-end',
    'cancelled-after-end',
    'worker-restart',
  ],
  payPromo: [
    // workflows/src/promotions/pay-promo.test.ts
    'paid-first-time',
    'paid-after-retries',
  ],
};

const RELATIVE_IMPORT =
  /^\s*(import|export)\s+(?!type\b)[^;]*?from\s+'(\.{1,2}\/[^']+|@opi\/wallet\/[^']+)'/gm;
/** The Node-free subpaths of @opi/wallet the workflows import (the intent): packages/wallet/src/<subpath>.ts. */
const WALLET_SRC = fileURLToPath(new URL('../../../packages/wallet/src/', import.meta.url));

/**
 * The workflow's deterministic source closure: its entry and every relative value import, and
 * every value import of a subpath of @opi/wallet (`@opi/wallet/intent`), followed the same way.
 */
export function workflowSources(workflow: CorpusWorkflow): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(RELATIVE_IMPORT)) {
      // A statement of type-only names (`import { type A, type B }`) brings no code.
      const names = /\{([^}]*)\}/.exec(m[0])?.[1];
      if (names?.split(',').every((n) => /^\s*(type\s+\S.*)?\s*$/.test(n))) continue;
      const target = m[2]!.startsWith('@opi/wallet/')
        ? path.join(WALLET_SRC, `${m[2]!.slice('@opi/wallet/'.length)}.ts`)
        : path.resolve(path.dirname(file), m[2]!.replace(/\.js$/, '.ts'));
      visit(target);
    }
  };
  visit(path.join(SRC, WORKFLOW_ENTRIES[workflow]));
  return [...seen].sort();
}

function temporalWorkflowVersion(): string {
  return (createRequire(import.meta.url)('@temporalio/workflow/package.json') as { version: string }).version;
}

/**
 * A short hash of what decides a workflow's commands: its source closure (file names and bytes)
 * and the workflow SDK's version. Histories are named for it; a change gives a new hash.
 */
export function workflowSourceHash(workflow: CorpusWorkflow): string {
  const h = createHash('sha256');
  h.update(`@temporalio/workflow ${temporalWorkflowVersion()}\n`);
  for (const file of workflowSources(workflow)) {
    h.update(`${path.relative(SRC, file)}\n`);
    h.update(readFileSync(file));
    h.update('\n');
  }
  return h.digest('hex').slice(0, 12);
}

export interface CorpusFile {
  workflow: CorpusWorkflow;
  path: string;
  /** `<date>-<source hash>`: the day it was recorded and the code it was recorded with. */
  release: string;
  file: string;
}

/** Every history in the corpus. */
export function corpusFiles(): CorpusFile[] {
  const out: CorpusFile[] = [];
  if (!existsSync(HISTORY_ROOT)) return out;
  for (const workflow of readdirSync(HISTORY_ROOT)) {
    const wdir = path.join(HISTORY_ROOT, workflow);
    if (!(workflow in WORKFLOW_ENTRIES)) continue;
    for (const p of readdirSync(wdir)) {
      for (const f of readdirSync(path.join(wdir, p))) {
        if (!f.endsWith('.json')) continue;
        out.push({
          workflow: workflow as CorpusWorkflow,
          path: p,
          release: f.slice(0, -'.json'.length),
          file: path.join(wdir, p, f),
        });
      }
    }
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/**
 * Saves a finished (or running) workflow's history into the corpus when RECORD_HISTORIES=1: the
 * Temporal CLI's canonical JSON (what replay reads), as
 * `histories/<workflow>/<path>/<UTC date>-<source hash>.json`. An existing file is never
 * overwritten (the same code recorded the same path already). Returns the file written, if any.
 */
export function recordHistory(options: {
  workflow: CorpusWorkflow;
  path: string;
  workflowId: string;
  address: string;
  namespace?: string;
}): string | undefined {
  if (process.env.RECORD_HISTORIES !== '1') return undefined;
  if (!REQUIRED_PATHS[options.workflow].includes(options.path))
    throw new Error(`${options.workflow} has no corpus path ${options.path}`);
  const date = new Date().toISOString().slice(0, 10);
  const dir = path.join(HISTORY_ROOT, options.workflow, options.path);
  const hash = workflowSourceHash(options.workflow);
  if (existsSync(dir) && readdirSync(dir).some((f) => f.endsWith(`-${hash}.json`))) return undefined;
  const file = path.join(dir, `${date}-${hash}.json`);
  mkdirSync(dir, { recursive: true });
  const cli = process.env.TEMPORAL_CLI_PATH ?? 'temporal';
  /** `temporal workflow <command>` of the recorded workflow, its JSON output. */
  const workflowJson = (command: 'describe' | 'show') =>
    execFileSync(cli, [
      'workflow',
      command,
      '--workflow-id',
      options.workflowId,
      '--address',
      options.address,
      '--namespace',
      options.namespace ?? 'default',
      '--output',
      'json',
    ]);
  // A history is recorded once its workflow has closed (a round's workflow may still pay a prize).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const described = JSON.parse(workflowJson('describe').toString('utf8')) as {
      workflowExecutionInfo?: { status?: string };
    };
    const status = String(described.workflowExecutionInfo?.status ?? '');
    if (!/RUNNING/.test(status)) break;
    if (Date.now() > deadline) throw new Error(`${options.workflowId} still running: not recorded`);
    execFileSync('sleep', ['0.2']);
  }
  const json = workflowJson('show');
  writeFileSync(file, json, { flag: 'wx' });
  return file;
}
