import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort } from '@opi/testkit/harness';
import { PORTAL_SECRET } from './world.js';

/*
 * The staff portal for the browser tests, as the stack and the image run it: its production build
 * (`next build`, made by the test runner when its inputs changed) served by portal/server.mjs,
 * which resolves the client's address from the socket and TRUSTED_PROXIES (docs/portal.md), on a
 * free port of 127.0.0.1, reading through a test API. (@opi/devstack has the same command, but it
 * depends on this package.)
 */

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
export const PORTAL_DIR = path.join(REPO, 'portal');
const EXIT_WITH_PARENT = path.join(REPO, 'tools', 'devstack', 'src', 'exit-with-parent.mjs');

export interface PortalOptions {
  /** The API the portal reads through (OPI_API_URL). */
  api: string;
  /** STAFF_PORTAL_SECRET, shared with the API; the test worlds' PORTAL_SECRET unless given. */
  secret?: string;
  /** PORTAL_PUBLIC_URL; unset unless given (the request's own host is the origin). */
  publicUrl?: string;
  /** TRUSTED_PROXIES; empty unless given (the socket's peer is the client). */
  trustedProxies?: string;
  /** Any further variables. */
  env?: Record<string, string>;
  /** How long `startPortal` waits for GET /login to answer 200 (the first start of a build is slow). */
  readyMs?: number;
}

export interface Portal {
  readonly child: ChildProcess;
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** What it printed on stderr so far. */
  stderr(): string;
  /** Resolves with its exit code once it has exited. */
  readonly exited: Promise<number | null>;
  /** Resolves once GET /login answers 200; fails (with its output) if it exits or times out first. */
  ready(ms?: number): Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it has exited. Prints its output under OPI_DEBUG_PORTAL. */
  stop(): Promise<void>;
}

/** Spawns the portal without waiting for it (see `startPortal`); the build must exist. */
export async function launchPortal(options: PortalOptions): Promise<Portal> {
  assert.ok(
    existsSync(path.join(PORTAL_DIR, '.next', 'BUILD_ID')),
    'the portal build is missing: the test runner builds it (node scripts/test.mjs), or run `npm run build -w @opi/portal`',
  );
  const port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    OPI_API_URL: options.api,
    STAFF_PORTAL_SECRET: options.secret ?? PORTAL_SECRET,
    TRUSTED_PROXIES: options.trustedProxies ?? '',
    PORTAL_PUBLIC_URL: options.publicUrl,
    ...options.env,
  };
  if (env.PORTAL_PUBLIC_URL === undefined) delete env.PORTAL_PUBLIC_URL;
  const child = spawn(
    process.execPath,
    [
      // Stops with this test process even if it is killed outright.
      '--import',
      pathToFileURL(EXIT_WITH_PARENT).href,
      path.join(PORTAL_DIR, 'server.mjs'),
      '--port',
      String(port),
      '--hostname',
      '127.0.0.1',
    ],
    { cwd: PORTAL_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const all: string[] = [];
  const errors: string[] = [];
  child.stdout?.on('data', (c: Buffer) => all.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => {
    all.push(c.toString());
    errors.push(c.toString());
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (err) => {
      all.push(`spawn failed: ${err.message}\n`);
      resolve(null);
    });
    // 'close': the exit code once its output has been read to the end.
    child.once('close', (code) => resolve(code));
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const origin = `http://127.0.0.1:${port}`;
  const output = () => all.join('');
  let stopping: Promise<void> | undefined;

  return {
    child,
    port,
    origin,
    output,
    stderr: () => errors.join(''),
    exited,
    async ready(ms = options.readyMs ?? 90_000) {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        if (done) assert.fail(`the portal exited (${child.exitCode ?? child.signalCode}): ${output()}`);
        try {
          if ((await fetch(`${origin}/login`)).status === 200) return;
        } catch {}
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.fail(`the portal did not answer on ${origin} within ${ms} ms: ${output()}`);
    },
    stop() {
      stopping ??= (async () => {
        if (!done) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        }
        if (process.env.OPI_DEBUG_PORTAL) process.stdout.write(output());
      })();
      return stopping;
    },
  };
}

/** The portal on a free port, once it answers; stopped again if it does not. */
export async function startPortal(options: PortalOptions): Promise<Portal> {
  const portal = await launchPortal(options);
  try {
    await portal.ready();
  } catch (err) {
    await portal.stop();
    throw err;
  }
  return portal;
}
