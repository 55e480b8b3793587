import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childTrace, newSpanId, newTraceId, parseTraceparent } from './trace.js';

test('trace and span ids: lower-case hex of their sizes, never repeated, across refills of the random pool', () => {
  const seen = new Set<string>();
  // 4096-byte pool: 24 bytes per pair, so 2,000 pairs refill it about a dozen times.
  for (let i = 0; i < 2000; i++) {
    const t = newTraceId();
    const s = newSpanId();
    assert.match(t, /^[0-9a-f]{32}$/);
    assert.match(s, /^[0-9a-f]{16}$/);
    seen.add(t);
    seen.add(s);
  }
  assert.equal(seen.size, 4000);
});

test('childTrace: a new root is a valid traceparent; a child keeps the trace id and flags', () => {
  const root = childTrace();
  assert.ok(parseTraceparent(root.traceparent));
  const child = childTrace(root.traceparent, 'req-1');
  assert.equal(child.traceId, root.traceId);
  assert.notEqual(child.spanId, root.spanId);
  assert.equal(child.flags, '01');
  assert.equal(child.requestId, 'req-1');
});
