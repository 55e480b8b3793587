/**
 * Before any test: without a configured environment, start the default stack (or the cluster
 * stack, GOLIVE_STACK=cluster) and point the run at it (the demo operator's key); then note the
 * service's clock, the start of the reconciliation window. The returned function stops the stack
 * after the last test.
 *
 * This runs in Playwright's runner process before it starts any worker; the workers are started
 * with the runner's environment as it is then, and load playwright.config.ts again, so what is set
 * here reaches them: the target, and for the cluster stack NODE_EXTRA_CA_CERTS (Node reads it only
 * when a process starts: the workers' fetches trust the stack's certificate) and GOLIVE_CA_FILE
 * (the config's Chromium flag accepting that certificate). The runner itself started without it:
 * its one request here is given the certificate explicitly.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
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

/** The Date header of GET <url>, trusting caFile besides the public roots; undefined on error. */
function dateHeader(url: string, caFile?: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const options: https.RequestOptions = { timeout: 10_000 };
    if (u.protocol === 'https:' && caFile) options.ca = [...rootCertificates, readFileSync(caFile, 'utf8')];
    const req = (u.protocol === 'https:' ? https : http).get(u, options, (res) => {
      res.resume();
      resolve(res.headers.date);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(undefined)); // the health test reports it
  });
}

/** The service's clock (the Date header of /health), else ours; one second early. */
async function serverNow(baseUrl: string, caFile?: string): Promise<string> {
  let at = Date.now();
  const date = await dateHeader(`${baseUrl}/health`, caFile);
  if (date && Number.isFinite(Date.parse(date))) at = Date.parse(date);
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
      cluster: settings.stack === 'cluster',
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
    // Its demo staff account (admin of op_demo): the promo_win_credit item runs the wallet
    // diagnostics with it.
    if (stack.secrets.demoStaffPassword) {
      process.env.GOLIVE_STAFF_USERNAME = 'demo';
      process.env.GOLIVE_STAFF_PASSWORD = stack.secrets.demoStaffPassword;
    }
    // The cluster stack's own certificate, and only it (a GOLIVE_CA_FILE given has no part here).
    if (stack.certFile) process.env.GOLIVE_CA_FILE = stack.certFile;
  }
  // Also when Playwright was started without the CLI (which sets it for the runner already).
  if (process.env.GOLIVE_CA_FILE) process.env.NODE_EXTRA_CA_CERTS = path.resolve(process.env.GOLIVE_CA_FILE);
  process.env.GOLIVE_RECONCILE_FROM ??= await serverNow(
    process.env.GOLIVE_BASE_URL!.replace(/\/+$/, ''),
    process.env.GOLIVE_CA_FILE,
  );
  return async () => {
    if (process.env.GOLIVE_STACK_STARTED)
      process.stdout.write(`[golive] stopping the ${settings.stack} stack\n`);
    await stop();
  };
}
