/**
 * First (every other project depends on it): the service answers its health check, and the base
 * address is HTTPS. Its teardown project (finish.spec.ts) runs after every other test.
 */
import { test } from '@playwright/test';
import { Recorder } from '../src/record.js';
import { isLoopback, loadSettings, target } from '../src/settings.js';

const settings = loadSettings();

test('health and base address', async () => {
  const info = test.info();
  const rec: Recorder = new Recorder(info);
  const { baseUrl } = target(settings);
  const base = new URL(baseUrl);
  if (base.protocol === 'https:') rec.pass('https_base', `base URL ${base.origin}`);
  else if (isLoopback(base.hostname))
    rec.warn('https_base', `base URL ${base.origin} is HTTP (loopback: a test environment)`);
  else rec.record('https_base', 'fail', `base URL ${base.origin} is not HTTPS`);
  await rec.check('health', 'GET /health answers 200', async () => {
    const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(15_000) }).catch(
      (err: unknown) => {
        throw new Error(
          `no answer from ${base.origin}/health: ${err instanceof Error ? ((err.cause as Error)?.message ?? err.message) : String(err)}`,
        );
      },
    );
    if (res.status !== 200) throw new Error(`GET /health answered ${res.status}`);
    return { value: undefined, detail: `GET ${base.origin}/health answered 200` };
  });
});
