import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The reliability suite's CI-sized run, as part of `npm test`: its own stack of separate
// processes (two PostgreSQL servers, the Temporal dev server, two API processes, two game servers
// each hosting a settlement worker, two workers, the sandbox wallet), every fault scenario under
// load with its invariants, the hostile input and a short load run. It prints its report; a broken invariant fails this test. The long run:
// `npm run reliability -- --long` (docs/reliability.md).
const ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../reliability.ts');

// About 4 minutes on a quiet 2-core machine; the limit leaves room for a loaded CI run beside the
// other test files.
test('reliability suite (CI profile): faults, load and hostile input, with nothing lost', {
  timeout: 600_000,
}, async (t) => {
  const started = Date.now();
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', ENTRY, '--ci'], {
    env: { ...process.env, NODE_ENV: 'development' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a test that times out can stop the whole stack it started.
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  // A timed-out or cancelled test must not leave the suite's stack running.
  t.signal.addEventListener('abort', () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  const report = output.slice(output.indexOf('RELIABILITY REPORT'));
  process.stdout.write(`${report}\n(reliability CI run: ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  assert.equal(code, 0, `the reliability suite reported broken invariants:\n${output.slice(-6000)}`);
});
