import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/* The provider-admin CLI (services/api/src/cli/admin.ts) as a child process, the way an operator runs it. */

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, '../../..');
const CLI = path.join(REPO_ROOT, 'services/api/src/cli/admin.ts');

export interface CliRun {
  /** The exit code (-1 when it was killed). */
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, when it is JSON. */
  json: any;
}

/** Runs the CLI with `args` in `env` (the whole environment of the child), from the repository root. */
export function runAdminCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', CLI, ...args],
      { cwd: REPO_ROOT, env, timeout: 60_000 },
      (err, stdout, stderr) => {
        let json: any;
        try {
          json = JSON.parse(stdout);
        } catch {}
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr, json });
      },
    );
  });
}
