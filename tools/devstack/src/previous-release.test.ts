import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { prepareRelease, previousRelease } from './release.js';

// A rolling upgrade applies release N's migrations while release N-1's processes still run
// (docs/operations.md "Upgrade and rollback"): every migration is expand-then-contract, so N-1's
// code works on N's schema. This runs N-1's own tests of launch, a spin of each family (slots,
// native, crash), a free round, a jackpot contribution and the audit reads, from N-1's sources
// (deploy/previous-release names the commit), against a database made from the template that
// this run migrated with N's migrations, on the same Temporal dev server.
const OLD_TESTS = [
  'services/api/src/launch/launch.test.ts',
  'services/game-server/src/runtime/spin.test.ts',
  'services/game-server/src/native/native.test.ts',
  'services/game-server/src/crash/crash.test.ts',
  'services/api/src/free-rounds/free-rounds.test.ts',
  'services/game-server/src/runtime/jackpot-spin.test.ts',
  'services/api/src/audit/audit.test.ts',
];

test("release N-1's code runs on this release's schema: launch, spins of each family, a free round, a jackpot, audit reads", {
  timeout: 900_000,
}, async () => {
  const sha = previousRelease();
  const dir = await prepareRelease(sha);
  const { NODE_TEST_CONTEXT: _, ...childEnv } = process.env;
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        '--test',
        '--test-reporter=spec',
        '--test-concurrency=2',
        '--test-timeout=300000',
        ...OLD_TESTS,
      ],
      // The runner's PostgreSQL (template migrated by this release), Temporal dev server and chromium.
      // NODE_TEST_CONTEXT would make the child report to this runner instead of printing.
      { cwd: dir, env: { ...childEnv, NODE_ENV: 'test' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const keep = (c: Buffer) => {
      output += c.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('exit', (c) => resolve({ code: c, output }));
  });
  const failing = output
    .split('\n')
    .filter((l) => /^\s*✖/.test(l))
    .slice(0, 40)
    .join('\n');
  const passed = Number(/^ℹ pass (\d+)$/m.exec(output)?.[1] ?? 0);
  assert.equal(code, 0, `release ${sha}'s tests on this schema failed:\n${failing}\n${output.slice(-3000)}`);
  assert.ok(passed > 20, `release ${sha}'s tests ran (${passed} passed)`);
});
