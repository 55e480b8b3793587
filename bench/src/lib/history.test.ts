import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payloadBytes } from './settlement-bench.js';

test('payloadBytes: the data and metadata bytes of every payload, wherever it sits, each counted once', () => {
  const payload = (n: number) => ({ metadata: { encoding: new Uint8Array(16) }, data: new Uint8Array(n) });
  const shared = payload(100);
  const events = [
    {
      eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
      attributes: { input: { payloads: [payload(900)] } },
    },
    { eventType: 'EVENT_TYPE_MARKER_RECORDED', details: { data: { payloads: [shared] }, other: shared } },
    {
      eventType: 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED',
      attributes: { identity: 'w', binary: new Uint8Array(50) },
    },
  ];
  assert.equal(payloadBytes(events), 900 + 16 + 100 + 16);
  assert.equal(payloadBytes([]), 0);
  assert.equal(payloadBytes(null), 0);
});
