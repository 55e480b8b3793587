import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { WORKFLOW_BUNDLE_PATH } from '../bundle.js';

// Histories recorded from real runs (RECORD_HISTORIES=1 npm test): the happy path, a rejected
// debit, a prov_a rollback, and a credit stuck then recovered. Replaying them against the current
// workflow code fails when a change breaks determinism; change running workflows behind patched().
const DIR = fileURLToPath(new URL('./histories/', import.meta.url));
const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

test('the recorded histories cover the four required paths', () => {
  assert.deepEqual(files.sort(), [
    'happy-path.json',
    'prov-a-rollback.json',
    'rejected-debit.json',
    'stuck-then-recovered.json',
  ]);
});

for (const file of files) {
  test(`replays ${file} deterministically`, async () => {
    const history = JSON.parse(readFileSync(`${DIR}${file}`, 'utf8'));
    await Worker.runReplayHistory({ workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } }, history);
  });
}
