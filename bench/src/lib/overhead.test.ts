import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ModeResult, overheadLine } from './settlement-bench.js';

const mode = (cpu: [string, number][]): ModeResult => ({ rps: 1, p50: 1, p99: 1, cpu });

test("the project's overhead is the spin's CPU less the eager floor's and the direct path's, per process", () => {
  const line = overheadLine(
    {
      spin: mode([
        ['temporal dev server', 10.5],
        ['game', 12],
        ['postgresql', 10.5],
        ['wallet sandbox', 3],
        ['bench client', 1.5],
        ['worker', 0.1],
      ]),
      'floor-eager': mode([
        ['temporal dev server', 8.5],
        ['bench client', 9.5],
      ]),
      direct: mode([
        ['postgresql', 4],
        ['wallet sandbox', 2.5],
        ['bench client', 1],
      ]),
    },
    20,
  );
  assert.ok(line);
  assert.match(
    line,
    /^project overhead at 20 clients \(spin on - floor eager - direct\), CPU ms per round: total 12\.10 /,
  );
  assert.match(line, /\| temporal 2\.00 \|/);
  assert.match(line, /\| game 12\.00 \|/);
  assert.match(line, /\| pg 6\.50 \|/);
  assert.match(line, /\| wallet 0\.50 \|/);
  assert.match(line, /\| client -9\.00$/);
});

test('no line without all three modes', () => {
  assert.equal(overheadLine({ spin: mode([['game', 1]]), direct: mode([['game', 1]]) }, 1), undefined);
});
