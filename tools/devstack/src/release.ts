/**
 * Earlier releases of this repository, checked out beside it for the rolling-upgrade rules
 * (docs/operations.md "Upgrade and rollback"): release N-1's code must run on release N's schema,
 * and the upgrade drill runs N-1's processes next to N's. A release is a commit; its files come
 * from `git archive` (no worktree metadata in the checkout) into a cache outside the checkout,
 * with its own `npm ci` and workflow bundle, once per commit.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

/** The file naming release N-1 (a commit), updated when a release ships. */
export const PREVIOUS_RELEASE_FILE = path.join(REPO_ROOT, 'deploy', 'previous-release');

/**
 * This checkout's commit (12 hex digits): the release the cluster stack's and compose's settlement
 * workers poll as (their WORKER_BUILD_ID, issue 35). Undefined outside a git checkout.
 */
export function checkoutRelease(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    }).trim();
  } catch {
    return undefined;
  }
}

/** Release N-1's commit, as `deploy/previous-release` names it. */
export function previousRelease(): string {
  const text = readFileSync(PREVIOUS_RELEASE_FILE, 'utf8');
  const sha = /^([0-9a-f]{7,40})\b/m.exec(text)?.[1];
  if (!sha) throw new Error(`${PREVIOUS_RELEASE_FILE} names no commit`);
  return sha;
}

function cacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'opi', 'releases');
}

function run(command: string, args: string[], cwd: string, log: (s: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(out);
      else {
        log(out.slice(-4000));
        reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${code}`));
      }
    });
  });
}

/**
 * The release's files with their dependencies installed and its workflow bundle built, in
 * `~/.cache/opi/releases/<commit>` (`$XDG_CACHE_HOME/opi/...` when set). Reused once ready. The
 * commit must be in this clone's history (a shallow clone lacks it: the error says so).
 */
export async function prepareRelease(
  ref: string,
  log: (s: string) => void = (s) => process.stdout.write(`[release] ${s}\n`),
): Promise<string> {
  const sha = (
    await run('git', ['rev-parse', '--verify', `${ref}^{commit}`], REPO_ROOT, log).catch(() => {
      throw new Error(
        `release ${ref} is not in this clone's history (a shallow clone? fetch it: git fetch --unshallow)`,
      );
    })
  ).trim();
  const dir = path.join(cacheRoot(), sha);
  const ready = path.join(dir, '.opi-release-ready');
  if (existsSync(ready)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  log(`checking out release ${sha.slice(0, 10)} into ${dir}`);
  await run('sh', ['-c', `git -C "${REPO_ROOT}" archive --format=tar ${sha} | tar -x -C "${dir}"`], dir, log);
  log("npm ci (the release's own package-lock.json)");
  await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], dir, log);
  log('building its workflow bundle');
  await run(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', 'workflows/src/bundle.ts'],
    dir,
    log,
  );
  writeFileSync(ready, `${sha}\n`);
  log(`release ${sha.slice(0, 10)} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return dir;
}
