// Installs the workspace's dependencies when they are missing or older than package-lock.json.
// Plain JavaScript with no dependencies: it runs before anything is installed.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function ensureInstall() {
  const lock = path.join(ROOT, 'package-lock.json');
  const stamp = path.join(ROOT, 'node_modules', '.opi-install-stamp');
  const want = createHash('sha256').update(readFileSync(lock)).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  process.stdout.write('[setup] installing dependencies (npm install, locked by package-lock.json)\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const res = spawnSync(npm, ['install', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
  if (res.status !== 0) {
    process.stderr.write('[setup] npm install failed\n');
    process.exit(res.status ?? 1);
  }
  writeFileSync(stamp, want);
}

/**
 * Runs a TypeScript entry point of the workspace with tsx and the `source` export condition,
 * forwarding SIGINT/SIGTERM and exiting with the child's status once it has stopped.
 */
export function runTs(entry, args = []) {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', path.join(ROOT, entry), ...args],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  // A terminal's Ctrl-C (SIGINT) reaches the child directly (same process group): only wait for it.
  // SIGTERM, typically sent to this process alone, is forwarded.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
