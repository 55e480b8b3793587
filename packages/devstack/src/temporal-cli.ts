import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { TEMPORAL_CLI_VERSION, temporalCliCacheDir } from './paths.js';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && executable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Finds the `temporal` CLI: TEMPORAL_CLI_PATH, then PATH, then the cache; otherwise builds it once
 * with `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` into the cache (outside the
 * checkout). Fails with a clear message when there is neither a CLI nor Go.
 */
export async function findOrBuildTemporalCli(
  opts: { explicitPath?: string; cacheDir?: string; log?: (msg: string) => void } = {},
): Promise<string> {
  const log = opts.log ?? (() => {});
  if (opts.explicitPath) {
    if (!executable(opts.explicitPath))
      throw new Error(`TEMPORAL_CLI_PATH=${opts.explicitPath} is not an executable file`);
    return opts.explicitPath;
  }
  const found = onPath('temporal');
  if (found) return found;
  const cacheBin = path.join(temporalCliCacheDir(opts.cacheDir), 'bin');
  const cached = path.join(cacheBin, 'temporal');
  if (executable(cached)) return cached;

  const go = onPath('go');
  if (!go) {
    throw new Error(
      'No Temporal CLI: set TEMPORAL_CLI_PATH, put `temporal` on PATH, or install Go so it can be built ' +
        `(go install github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}).`,
    );
  }
  log(`building the Temporal CLI v${TEMPORAL_CLI_VERSION} into ${cacheBin} (once; a few minutes)`);
  await mkdir(cacheBin, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const child = spawn(go, ['install', `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`], {
      env: { ...process.env, GOBIN: cacheBin, CGO_ENABLED: '0' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`go install exited with ${code}`)),
    );
  });
  if (!existsSync(cached)) throw new Error(`go install finished but ${cached} is missing`);
  return cached;
}
