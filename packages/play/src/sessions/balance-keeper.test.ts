import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import vm from 'node:vm';

// The shared balance keeper of the game pages (static/balance.js), run as the browser runs it (a
// plain script that sets window.BalanceKeeper), with reads the test answers by hand in any order.
const source = readFileSync(new URL('./static/balance.js', import.meta.url), 'utf8');

interface Keeper {
  refresh(): Promise<void>;
  hold(): void;
  release(): void;
  held(): boolean;
  answer(value: string | null): void;
  ticket(): number;
  offer(ticket: number, value: string | null): void;
}

/** A keeper whose reads wait for the test: `reads[i].answer(v)` answers the i-th read. */
function keeper(options: { ended?: () => boolean } = {}) {
  const window: { BalanceKeeper?: { create(o: unknown): Keeper } } = {};
  vm.runInNewContext(source, { window });
  const shown: string[] = [];
  const reads: { answer(value: string | null): void }[] = [];
  const k = window.BalanceKeeper!.create({
    read: () =>
      new Promise<string | null>((resolve) => {
        reads.push({ answer: resolve });
      }),
    show: (v: string) => shown.push(v),
    isEnded: options.ended ?? (() => false),
  });
  return { k, shown, reads };
}
const tick = () => new Promise((r) => setImmediate(r));

test("a refresh during a money action waits for the action's balance, then reads the wallet once", async () => {
  const { k, shown, reads } = keeper();
  k.hold();
  void k.refresh();
  void k.refresh();
  await tick();
  assert.equal(reads.length, 0, 'no read while the action is open');
  k.answer('90.00'); // the spin's credit
  k.release();
  await tick();
  assert.equal(reads.length, 1, 'one read after the action');
  reads[0]!.answer('140.00'); // the deposit
  await tick();
  assert.deepEqual(shown, ['90.00', '140.00']);
});

test('a read in flight when an action opens is not shown; it is read again after the action', async () => {
  const { k, shown, reads } = keeper();
  void k.refresh();
  await tick();
  k.hold();
  reads[0]!.answer('140.00'); // answered during the spin: may be older or newer than the spin's
  await tick();
  assert.deepEqual(shown, []);
  k.answer('90.00');
  k.release();
  await tick();
  assert.equal(reads.length, 2);
  reads[1]!.answer('140.00');
  await tick();
  assert.deepEqual(shown, ['90.00', '140.00']);
});

test('a read that answers after a newer balance was shown is read again, never shown', async () => {
  const { k, shown, reads } = keeper();
  void k.refresh();
  await tick();
  k.answer('75.00'); // an answer of a round the page did not hold for (a crash cash-out)
  reads[0]!.answer('100.00'); // began before it: possibly older
  await tick();
  assert.deepEqual(shown, ['75.00']);
  assert.equal(reads.length, 2, 'read again');
  reads[1]!.answer('80.00');
  await tick();
  assert.deepEqual(shown, ['75.00', '80.00']);
});

test('one read at a time; requests during a read run once more after it', async () => {
  const { k, shown, reads } = keeper();
  void k.refresh();
  void k.refresh();
  void k.refresh();
  await tick();
  assert.equal(reads.length, 1);
  reads[0]!.answer('1.00');
  await tick();
  assert.equal(reads.length, 2);
  reads[1]!.answer('2.00');
  await tick();
  assert.equal(reads.length, 2);
  assert.deepEqual(shown, ['1.00', '2.00']);
});

test('a failed read shows nothing and is not retried by itself; holds nest', async () => {
  const { k, shown, reads } = keeper();
  void k.refresh();
  await tick();
  reads[0]!.answer(null);
  await tick();
  assert.deepEqual(shown, []);
  assert.equal(reads.length, 1);
  k.hold();
  k.hold();
  void k.refresh();
  k.release();
  await tick();
  assert.equal(reads.length, 1, 'still held');
  assert.equal(k.held(), true);
  k.release();
  await tick();
  assert.equal(reads.length, 2);
});

test("a state read's ticket: shown only if nothing newer was shown and no action opened", async () => {
  const { k, shown, reads } = keeper();
  const t1 = k.ticket();
  k.offer(t1, '50.00');
  assert.deepEqual(shown, ['50.00']);
  const t2 = k.ticket();
  k.answer('45.00');
  k.offer(t2, '50.00'); // older than the answer: read again instead
  await tick();
  assert.deepEqual(shown, ['50.00', '45.00']);
  assert.equal(reads.length, 1);
  reads[0]!.answer('47.00');
  await tick();
  k.hold();
  const t3 = k.ticket();
  k.offer(t3, '10.00'); // sent during an action
  k.release();
  await tick();
  assert.equal(reads.length, 2);
  reads[1]!.answer('11.00');
  await tick();
  assert.deepEqual(shown, ['50.00', '45.00', '47.00', '11.00']);
});

test('nothing is shown or read once the page has ended', async () => {
  let ended = false;
  const { k, shown, reads } = keeper({ ended: () => ended });
  void k.refresh();
  await tick();
  ended = true;
  reads[0]!.answer('5.00');
  k.answer('6.00');
  void k.refresh();
  await tick();
  assert.deepEqual(shown, []);
  assert.equal(reads.length, 1);
});
