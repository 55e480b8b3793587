/**
 * Before any test: without a configured environment, start the default stack and point the run
 * at it (the demo operator's key); then note the service's clock, the start of the reconciliation
 * window. The returned function stops the stack after the last test.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { startDefaultStack } from './default-stack.js';
import { loadSettings } from './settings.js';

/** GOLIVE_STACK_<NAME>=value sets <NAME> for the stack the suite starts (e.g. DATABASE_URL). */
function stackEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (k.startsWith('GOLIVE_STACK_') && k !== 'GOLIVE_STACK_STARTED' && v !== undefined)
      env[k.slice('GOLIVE_STACK_'.length)] = v;
  return env;
}

/** The service's clock (the Date header of /health), else ours; one second early. */
async function serverNow(baseUrl: string): Promise<string> {
  let at = Date.now();
  try {
    const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(10_000) });
    const date = res.headers.get('date');
    if (date && Number.isFinite(Date.parse(date))) at = Date.parse(date);
  } catch {
    // the health test reports it
  }
  return new Date(at - 1000).toISOString();
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const settings = loadSettings();
  // This run's screenshots and summary only (Playwright empties its own artifacts folder).
  await rm(path.join(settings.outputDir, 'screenshots'), { recursive: true, force: true });
  await rm(path.join(settings.outputDir, 'summary.json'), { force: true });
  let stop = async () => {};
  if (!settings.baseUrl) {
    const stack = await startDefaultStack({
      env: stackEnv(),
      logFile: path.join(settings.outputDir, 'stack.log'),
      log: (line) => process.stdout.write(`[golive] ${line}\n`),
    });
    stop = stack.stop;
    process.env.GOLIVE_BASE_URL = stack.baseUrl;
    process.env.GOLIVE_API_KEY = stack.apiKey;
    process.env.GOLIVE_STACK_STARTED = '1';
    // Its wallet is the sandbox: the player_protection item can have it refuse a player.
    process.env.GOLIVE_WALLET_ADMIN_URL = stack.walletUrl;
    process.env.GOLIVE_WALLET_ADMIN_TOKEN = stack.secrets.walletAdminToken;
  }
  process.env.GOLIVE_RECONCILE_FROM ??= await serverNow(process.env.GOLIVE_BASE_URL!.replace(/\/+$/, ''));
  return async () => {
    if (process.env.GOLIVE_STACK_STARTED) process.stdout.write('[golive] stopping the default stack\n');
    await stop();
  };
}
