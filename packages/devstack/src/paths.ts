import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is packages/devstack/src/paths.ts or dist/paths.js). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function dataDir(configured?: string): string {
  return path.resolve(REPO_ROOT, configured ?? '.data');
}

/** The Temporal CLI build cache: outside the checkout, shared by every clone on the machine. */
export function temporalCliCacheDir(configured?: string): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return configured ?? path.join(base, 'opi', `temporal-${TEMPORAL_CLI_VERSION}`);
}

/** Newer tags carry a replace directive that `go install` refuses. */
export const TEMPORAL_CLI_VERSION = '1.5.1';
