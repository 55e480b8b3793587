import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

/*
 * The operator SDK's tarball as the stack offers it (GET /docs/sdk/<file> on the API, linked from
 * /docs): packages/operator-sdk/scripts/tarball.mjs builds and packs it into a folder outside the
 * sources, again only when the SDK's inputs changed (a hash stamp beside it). It runs as a child
 * process while the stack starts; the API reads the folder at each request and offers the tarball
 * once it is there.
 */

export const SDK_TARBALL_SCRIPT = path.join(REPO_ROOT, 'packages', 'operator-sdk', 'scripts', 'tarball.mjs');

export interface SdkTarballResult {
  file: string;
  name: string;
  version: string;
  sha256: string;
  bytes: number;
  /** Whether it was built now (false: the folder already held the tarball of these inputs). */
  built: boolean;
  seconds: number;
}

/**
 * Makes `outDir` hold the SDK's tarball of the current sources. Resolves with its description;
 * rejects when the build or `npm pack` fails (their output is passed to `log`).
 */
export function ensureSdkTarball(outDir: string, log: (line: string) => void): Promise<SdkTarballResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SDK_TARBALL_SCRIPT, '--out', outDir], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) {
        try {
          return resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as SdkTarballResult);
        } catch {
          // falls through: an answer that is not the script's JSON line
        }
      }
      for (const line of stderr.split('\n').slice(-40)) if (line) log(line);
      reject(new Error(`the operator SDK tarball was not built (exit ${code})`));
    });
  });
}
