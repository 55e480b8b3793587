import assert from 'node:assert/strict';
import { test } from 'node:test';
import { supersededPayloads } from './hub.js';

test('superseded NOTIFY payloads: every subscriber id once, each payload under 7000 bytes, no session ids', () => {
  const ids = Array.from(
    { length: 500 },
    (_, i) => `sub_${i.toString().padStart(8, '0')}-0000-4000-8000-000000000000`,
  );
  const payloads = supersededPayloads(ids);
  assert.ok(payloads.length > 1);
  const seen: string[] = [];
  for (const p of payloads) {
    assert.ok(Buffer.byteLength(p) <= 7000, `${Buffer.byteLength(p)} bytes`);
    const parsed = JSON.parse(p);
    assert.deepEqual(
      { ...parsed, superseded: undefined },
      { session_ids: [], request_id: null, reason: null, superseded: undefined },
    );
    seen.push(...parsed.superseded);
  }
  assert.deepEqual(seen, ids);
  assert.deepEqual(supersededPayloads([]), []);
});
