import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { createLogger, type Logger } from '@opi/config';
import { NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { installTemporalRuntime, temporalLogger } from './runtime-logger.js';

type Entry = { level: string; msg: string; fields: Record<string, unknown> };
function recorder(): { log: Logger; entries: Entry[] } {
  const entries: Entry[] = [];
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      entries.push({ level, msg, fields });
  return {
    entries,
    log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
  };
}

test('SDK levels map onto the project levels; entries below LOG_LEVEL are dropped', () => {
  const { log, entries } = recorder();
  const sdk = temporalLogger('info', log);
  sdk.trace('a trace');
  sdk.debug('a debug');
  sdk.info('Worker state changed', { sdkComponent: 'worker', taskQueue: 'q1', state: 'RUNNING' });
  const failure = new Error('wallet said 500');
  sdk.warn('Activity failed', {
    sdkComponent: 'activity',
    activityType: 'debit',
    attempt: 2,
    error: failure,
  });
  sdk.log('ERROR', 'Workflow task failed', { error: failure, level: 'shadowed', spanContexts: ['x'] });
  assert.deepEqual(
    entries.map((e) => [e.level, e.msg]),
    [
      ['info', 'Worker state changed'],
      ['warn', 'Activity failed'],
      ['error', 'Workflow task failed'],
    ],
  );
  assert.deepEqual(entries[0]!.fields, { temporal: 'worker', taskQueue: 'q1', state: 'RUNNING' });
  // The error's message, not its stack, on a warning.
  assert.deepEqual(entries[1]!.fields, {
    temporal: 'activity',
    activityType: 'debit',
    attempt: 2,
    error: 'wallet said 500',
  });
  // On an error line the stack too; a key of the project's line is renamed; objects dropped.
  assert.equal(entries[2]!.fields.error, 'wallet said 500');
  assert.match(String(entries[2]!.fields.error_stack), /wallet said 500\n\s+at /);
  assert.equal(entries[2]!.fields.temporal_level, 'shadowed');
  assert.equal('spanContexts' in entries[2]!.fields, false);

  const warnOnly = recorder();
  const atWarn = temporalLogger('warn', warnOnly.log);
  atWarn.info('Worker state changed');
  atWarn.warn('Activity failed');
  assert.deepEqual(
    warnOnly.entries.map((e) => e.msg),
    ['Activity failed'],
  );
  const silent = recorder();
  temporalLogger('silent', silent.log).error('boom');
  assert.equal(silent.entries.length, 0);
  const debug = recorder();
  temporalLogger('debug', debug.log).trace('polling', { error: failure });
  assert.equal(debug.entries[0]!.level, 'debug');
  assert.ok(debug.entries[0]!.fields.error_stack, 'under debug the stack is kept');
});

test("a real worker's SDK lines land on stdout as one JSON line each, through the project logger", async () => {
  const address = process.env.OPI_TEST_TEMPORAL_ADDRESS;
  if (!address) throw new Error('OPI_TEST_TEMPORAL_ADDRESS is not set: run through npm test');
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  const stderrWrite = process.stderr.write.bind(process.stderr);
  // The test runner talks to its parent on stdout too: only the log lines are kept back.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    const s = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (s.startsWith('{"time"')) {
      out.push(s);
      return true;
    }
    return stdoutWrite(chunk, ...rest);
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    err.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return stderrWrite(chunk, ...rest);
  }) as typeof process.stderr.write;
  const taskQueue = `runtime-logger-${randomUUID()}`;
  try {
    const logger = createLogger('worker', 'info');
    assert.equal(installTemporalRuntime({ level: 'info', log: logger, shutdownSignals: [] }), 'installed');
    assert.equal(installTemporalRuntime({ level: 'debug', log: logger }), 'already');
    const connection = await NativeConnection.connect({ address });
    const worker = await Worker.create({ connection, taskQueue, activities: { noop: async () => {} } });
    const running = worker.run();
    while (worker.getState() !== 'RUNNING') await new Promise((r) => setTimeout(r, 20));
    worker.shutdown();
    await running;
    await connection.close();
    Runtime._instance?.flushLogs();
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
  }
  const text = out.join('');
  const lines = text.split('\n').filter((l) => l.includes('Worker state changed'));
  assert.ok(lines.length >= 2, text);
  for (const line of lines) {
    const entry = JSON.parse(line);
    assert.equal(entry.level, 'info');
    assert.equal(entry.service, 'worker');
    assert.equal(entry.msg, 'Worker state changed');
    assert.equal(entry.taskQueue, taskQueue);
    assert.equal(entry.temporal, 'worker');
  }
  const states = lines.map((l) => JSON.parse(l).state);
  assert.ok(states.includes('RUNNING') && states.includes('STOPPED'), states.join());
  // Nothing of the SDK's own multi-line format, on either stream.
  assert.doesNotMatch(text + err.join(''), /\[INFO\]|\[WARN\]|sdkComponent/);
});
