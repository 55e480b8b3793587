import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { test } from 'node:test';
import { freePort, portFree } from './wait.js';

test('freePort hands out distinct free ports outside the range outgoing connections draw from', async () => {
  const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
    .trim()
    .split(/\s+/)
    .map(Number);
  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  assert.equal(new Set(ports).size, ports.length, 'no port handed out twice');
  for (const port of ports) {
    assert.ok(port < lo! || port > hi!, `${port} is outside ${lo}-${hi}`);
    assert.ok(await portFree('127.0.0.1', port));
  }
  // A port already bound is never handed out.
  const held = net.createServer();
  await new Promise<void>((r) => held.listen(ports[0], '127.0.0.1', r));
  try {
    assert.equal(await portFree('127.0.0.1', ports[0]!), false);
  } finally {
    await new Promise<void>((r) => held.close(() => r()));
  }
});
