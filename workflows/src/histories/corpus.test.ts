import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATH } from '../bundle.js';
import {
  type CorpusWorkflow,
  corpusFiles,
  REQUIRED_PATHS,
  workflowSourceHash,
  workflowSources,
} from './corpus.js';

// The replay corpus (docs/settlement.md, "Changing workflow code"): every history recorded from a
// real run, by every release, replays against today's workflow bundle; and a workflow whose code
// changed has histories of every one of its paths recorded by the new code (the guard). Record
// with RECORD_HISTORIES=1 (`npm run histories:record`).
const files = corpusFiles();
const RECORD = 'npm run histories:record';

test('the corpus holds a history of every path of every workflow', () => {
  for (const [workflow, paths] of Object.entries(REQUIRED_PATHS)) {
    for (const p of paths) {
      assert.ok(
        files.some((f) => f.workflow === workflow && f.path === p),
        `no history of ${workflow} ${p}: record it (${RECORD})`,
      );
    }
  }
});

for (const f of files) {
  test(`replays ${f.workflow}/${f.path}/${f.release}`, async () => {
    const history = JSON.parse(readFileSync(f.file, 'utf8'));
    await Worker.runReplayHistory({ workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } }, history);
  });
}

test('the guard: every workflow has a history of each path recorded by its current code', () => {
  const missing: string[] = [];
  for (const workflow of Object.keys(REQUIRED_PATHS) as CorpusWorkflow[]) {
    const hash = workflowSourceHash(workflow);
    for (const p of REQUIRED_PATHS[workflow]) {
      if (!files.some((f) => f.workflow === workflow && f.path === p && f.release.endsWith(`-${hash}`)))
        missing.push(`${workflow}/${p} (code ${hash})`);
    }
  }
  assert.deepEqual(
    missing,
    [],
    `workflow code changed since its histories were recorded; a running workflow may take the new ` +
      `code: put the change behind patched() and record the paths (${RECORD}). Missing: ${missing.join(', ')}`,
  );
});

test('the guard hashes what decides commands: a workflow source changes its hash, an activity does not', () => {
  const sources = workflowSources('settleRound').map((f) => path.basename(f));
  assert.ok(sources.includes('workflow.ts') && sources.includes('intent.ts'), sources.join(' '));
  // The intent is @opi/wallet's (its Node-free subpath), and still hashed.
  assert.ok(
    workflowSources('settleRound').some((f) =>
      f.endsWith(path.join('packages', 'wallet', 'src', 'intent.ts')),
    ),
  );
  assert.ok(!sources.includes('activities.ts'), 'activities are I/O, not workflow commands');
});

/**
 * A copy of settleRound's sources with `edit` applied to its workflow file, bundled: the code a
 * careless change would ship.
 */
async function bundleEdited(edit: (source: string) => string): Promise<string> {
  const src = fileURLToPath(new URL('../', import.meta.url));
  // Inside the workspace, so that @temporalio/workflow resolves from its node_modules.
  const dir = mkdtempSync(path.join(src, '..', '.guard-'));
  try {
    // settleRound's whole deterministic closure, as the guard hashes it (@opi/wallet/intent is
    // resolved from the workspace, as in the real bundle).
    for (const f of workflowSources('settleRound')) {
      const rel = path.relative(src, f);
      if (!rel.startsWith('..')) cpSync(f, path.join(dir, rel));
    }
    const file = path.join(dir, 'settle-round', 'workflow.ts');
    writeFileSync(file, edit(readFileSync(file, 'utf8')));
    writeFileSync(
      path.join(dir, 'workflows.ts'),
      "export { settleRound } from './settle-round/workflow.js';\n",
    );
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(dir, 'workflows.ts'),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} },
      webpackConfigHook: (config) => {
        config.resolve = { ...config.resolve, conditionNames: ['source', 'import', 'require', 'default'] };
        return config;
      },
    });
    return code;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** settleRound with a timer before its first activity: `patched` puts it behind a patch. */
const withTimerFirst = (patchedOnly: boolean) => (source: string) => {
  const head = 'export async function settleRound(';
  const at = source.indexOf(head);
  const body = source.indexOf('{', source.indexOf(')', at)) + 1;
  assert.ok(at >= 0 && body > 0, 'settleRound found');
  const timer = patchedOnly ? "if (guardPatched('guard-demo')) await guardSleep(1);" : 'await guardSleep(1);';
  return `import { patched as guardPatched, sleep as guardSleep } from '@temporalio/workflow';\n${source.slice(0, body)}\n  ${timer}\n${source.slice(body)}`;
};

test('the guard works: an unpatched change of command order fails replay; the same change behind patched() replays', {
  timeout: 240_000,
}, async () => {
  const settle = files.filter((f) => f.workflow === 'settleRound');
  assert.ok(settle.length > 0);
  const unpatched = await bundleEdited(withTimerFirst(false));
  for (const f of settle) {
    const history = JSON.parse(readFileSync(f.file, 'utf8'));
    await assert.rejects(
      Worker.runReplayHistory({ workflowBundle: { code: unpatched } }, history),
      (err: Error) => err.name === 'DeterminismViolationError' || /[Nn]ondetermin/.test(err.message),
      `${f.path}/${f.release} replays against a change with no patch`,
    );
  }
  const patched = await bundleEdited(withTimerFirst(true));
  for (const f of settle) {
    const history = JSON.parse(readFileSync(f.file, 'utf8'));
    await Worker.runReplayHistory({ workflowBundle: { code: patched } }, history);
  }
});
