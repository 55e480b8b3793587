import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RuntimeProbe } from './settlement-probe.js';

// The probe's verdicts with a fake clock and a fake check (the launch's 502 end to end, against an
// unreachable Temporal, is in launch/launch.test.ts).
function setup(options: ConstructorParameters<typeof RuntimeProbe>[1] = {}) {
  let clock = 1_000_000;
  let answer: 'ok' | 'fail' | 'hang' = 'ok';
  let calls = 0;
  const probe = new RuntimeProbe(
    () => {
      calls++;
      if (answer === 'ok') return Promise.resolve();
      if (answer === 'fail') return Promise.reject(new Error('14 UNAVAILABLE: connection refused'));
      return new Promise(() => {});
    },
    { refreshAfterMs: 5_000, trustForMs: 30_000, timeoutMs: 50, failuresToTrip: 2, ...options },
    () => clock,
  );
  return {
    probe,
    calls: () => calls,
    set: (a: typeof answer) => {
      answer = a;
    },
    tick: (ms: number) => {
      clock += ms;
    },
  };
}

test('no verdict yet: unknown (launches pass); the first call starts one probe in the background', async () => {
  const t = setup();
  assert.deepEqual(t.probe.verdict(), { state: 'unknown' });
  assert.deepEqual(t.probe.verdict(), { state: 'unknown' });
  assert.equal(t.probe.probes, 1, 'one probe in flight, not one per call');
  await t.probe.refresh();
  assert.equal(t.calls(), 1);
  await t.probe.refresh();
  assert.equal(t.probe.verdict().state, 'available');
});

test('unavailable only after consecutive failures; one answer makes it available again', async () => {
  const t = setup();
  t.set('fail');
  await t.probe.refresh();
  assert.equal(t.probe.verdict().state, 'available', 'one failure is not yet a verdict');
  await t.probe.refresh();
  const v = t.probe.verdict();
  assert.equal(v.state, 'unavailable');
  assert.ok(v.state === 'unavailable' && /UNAVAILABLE/.test(v.error) && v.failures === 2);
  t.set('ok');
  await t.probe.refresh();
  assert.equal(t.probe.verdict().state, 'available');
  t.set('fail');
  await t.probe.refresh();
  assert.equal(t.probe.verdict().state, 'available', 'the count starts again after an answer');
});

test('a probe without an answer in time counts as a failure', async () => {
  const t = setup();
  t.set('hang');
  await t.probe.refresh();
  await t.probe.refresh();
  const v = t.probe.verdict();
  assert.equal(v.state, 'unavailable');
  assert.ok(v.state === 'unavailable' && /no answer within 50 ms/.test(v.error));
});

test('a fresh verdict costs no probe; a stale one starts one; an old one is no verdict', async () => {
  const t = setup();
  t.set('fail');
  await t.probe.refresh();
  await t.probe.refresh();
  const n = t.probe.probes;
  for (let i = 0; i < 100; i++) assert.equal(t.probe.verdict().state, 'unavailable');
  assert.equal(t.probe.probes, n, 'a hundred verdicts, no probe');
  t.tick(5_000);
  assert.equal(t.probe.verdict().state, 'unavailable', 'stale: answered at once from the cache');
  assert.equal(t.probe.probes, n + 1, 'and refreshed in the background');
  await t.probe.refresh();
  t.tick(30_001);
  t.set('hang');
  assert.deepEqual(t.probe.verdict(), { state: 'unknown' }, 'too old to refuse a launch on');
});
