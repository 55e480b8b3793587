import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RoundOutcome } from '@opi/wallet/intent';
import { createLocalOutcomes, firstOutcome } from './local-outcomes.js';

const completed: RoundOutcome = { status: 'completed', winMinor: '250', balance: '1000' };
// firstOutcome's timers do not hold a process open (an API process is held by its server): this does.
let keepAlive: ReturnType<typeof setInterval>;
before(() => {
  keepAlive = setInterval(() => {}, 1_000);
});
after(() => clearInterval(keepAlive));

const never = () => new Promise<RoundOutcome>(() => {});

test('an eager round answers from the outcome announced in this process, without the workflow result', async () => {
  const board = createLocalOutcomes();
  const local = board.wait('r_1');
  let asked = 0;
  const first = firstOutcome({
    local,
    eager: true,
    result: () => {
      asked++;
      return never();
    },
    graceMs: 1_000,
  });
  board.announce('r_1', completed);
  assert.deepEqual(await first, { outcome: completed, announced: true });
  assert.equal(asked, 0);
  // Announced once: a second announcement (another round's waiter gone) changes nothing.
  board.announce('r_1', { status: 'rejected', error: 'late' });
});

test('an eager round nobody here announces falls back to the workflow result after the grace', async () => {
  const local = createLocalOutcomes().wait('r_2');
  const started = performance.now();
  const first = await firstOutcome({ local, eager: true, result: async () => completed, graceMs: 50 });
  assert.deepEqual(first, { outcome: completed, announced: false });
  assert.ok(performance.now() - started >= 45);
});

test('a round not started eagerly asks for the workflow result at once and drops its local wait', async () => {
  const board = createLocalOutcomes();
  const local = board.wait('r_3');
  const first = await firstOutcome({ local, eager: false, result: async () => completed, graceMs: 10_000 });
  assert.deepEqual(first, { outcome: completed, announced: false });
  // The wait is gone: an announcement now reaches nobody (and the promise above is already settled).
  board.announce('r_3', { status: 'rejected', error: 'x' });
});

test('nothing within waitMs answers null; a failing result rejects', async () => {
  const local = createLocalOutcomes().wait('r_4');
  assert.equal(await firstOutcome({ local, eager: true, result: never, graceMs: 10, waitMs: 60 }), null);
  await assert.rejects(
    firstOutcome({
      local: undefined,
      eager: false,
      result: async () => Promise.reject(new Error('terminated')),
      graceMs: 10,
    }),
    /terminated/,
  );
});

test('a cancelled wait is not resolved by a later announcement, and a new wait for the id is', async () => {
  const board = createLocalOutcomes();
  const a = board.wait('r_5');
  a.cancel();
  const b = board.wait('r_5');
  board.announce('r_5', completed);
  assert.deepEqual(await b.outcome, completed);
  const settledA = await Promise.race([
    a.outcome.then(() => 'resolved'),
    new Promise((r) => setTimeout(() => r('pending'), 20)),
  ]);
  assert.equal(settledA, 'pending');
});
