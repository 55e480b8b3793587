import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './paths.js';

/*
 * The staff portal (portal/, Next.js) as the stack and the test runner use it: a production build
 * (`next build`), made only when its inputs changed, then served by portal/server.mjs (Next's
 * production server behind a Node server that decides the client's address: TRUSTED_PROXIES).
 */

export const PORTAL_DIR = path.join(REPO_ROOT, 'portal');
const NEXT_BIN = path.join(REPO_ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
const STAMP = path.join(PORTAL_DIR, '.next', 'opi-build-stamp');
/** Preloaded into the portal's server so it stops when its supervisor disappears. */
export const EXIT_WITH_PARENT = path.join(REPO_ROOT, 'tools', 'devstack', 'src', 'exit-with-parent.mjs');

/** Every file the build reads that we own: sources, config, the lockfile. */
function inputs(dir = path.join(PORTAL_DIR, 'src'), out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) inputs(full, out);
    else out.push(full);
  }
  return out;
}

/** A hash of the portal's build inputs (sources, configuration, package versions). */
export function portalBuildHash(): string {
  const h = createHash('sha256');
  const files = [
    ...inputs(),
    path.join(PORTAL_DIR, 'package.json'),
    path.join(PORTAL_DIR, 'next.config.mjs'),
    path.join(PORTAL_DIR, 'tsconfig.json'),
    path.join(REPO_ROOT, 'package-lock.json'),
  ];
  for (const f of files) {
    h.update(path.relative(REPO_ROOT, f));
    h.update('\0');
    if (existsSync(f)) h.update(readFileSync(f));
    h.update('\0');
  }
  return h.digest('hex');
}

/** Whether portal/.next holds a production build of exactly these inputs. */
export function portalBuildCurrent(): boolean {
  return (
    existsSync(path.join(PORTAL_DIR, '.next', 'BUILD_ID')) &&
    existsSync(STAMP) &&
    readFileSync(STAMP, 'utf8') === portalBuildHash()
  );
}

/**
 * Builds the portal for production unless the build on disk is of the same inputs. Resolves with
 * whether it built; rejects when `next build` fails (its output is passed to `log`).
 */
export async function ensurePortalBuild(log: (line: string) => void): Promise<boolean> {
  if (portalBuildCurrent()) return false;
  const hash = portalBuildHash();
  const started = Date.now();
  log('building the staff portal (next build)');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [NEXT_BIN, 'build'], {
      cwd: PORTAL_DIR,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) return resolve();
      for (const line of output.split('\n').slice(-60)) log(line);
      reject(new Error(`next build failed (exit ${code})`));
    });
  });
  writeFileSync(STAMP, hash);
  log(`staff portal built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

/** The command that serves the production build: portal/server.mjs on host:port. */
export function portalStartCommand(
  host: string,
  port: number,
): { command: string; args: string[]; cwd: string } {
  return {
    command: process.execPath,
    args: [
      '--import',
      pathToFileURL(EXIT_WITH_PARENT).href,
      path.join(PORTAL_DIR, 'server.mjs'),
      '--port',
      String(port),
      '--hostname',
      host,
    ],
    cwd: PORTAL_DIR,
  };
}
