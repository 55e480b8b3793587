/**
 * The production build the cluster stack runs (issue 37): `turbo run build` of the services it
 * starts (the API, the game server, the worker, the sandbox wallet) and everything they import,
 * so their `dist/` is what the Dockerfile's build stage makes and the images run. turbo's cache
 * (.turbo/) makes an unchanged tree a no-op (under a second); a cold build takes 2-3 minutes on
 * 2 cores.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

/** The services the cluster stack runs from dist/: their workspace names and entry points. */
export const DIST_SERVICES = ['@opi/api', '@opi/game-server', '@opi/worker', '@opi/wallet-sandbox'] as const;

/** `services/api/src/cluster.ts` → `services/api/dist/cluster.js`: what the image's CMD runs. */
export function distEntry(sourceEntry: string): string {
  const m = /^(.*)\/src\/(.+)\.ts$/.exec(sourceEntry);
  if (!m) throw new Error(`not a service source entry: ${sourceEntry}`);
  return `${m[1]}/dist/${m[2]}.js`;
}

export async function ensureDistBuild(log: (msg: string) => void = () => {}): Promise<{ seconds: number }> {
  const started = Date.now();
  const turbo = path.join(REPO_ROOT, 'node_modules', '.bin', 'turbo');
  const args = ['run', 'build', ...DIST_SERVICES.map((s) => `--filter=${s}`), '--output-logs=errors-only'];
  let output = '';
  const code = await new Promise<number>((resolve) => {
    const child = spawn(turbo, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('exit', (c) => resolve(c ?? 1));
  });
  if (code !== 0) throw new Error(`turbo ${args.join(' ')} exited with ${code}:\n${output}`);
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const cached = /FULL TURBO/.test(output);
  log(
    `production build (turbo run build: ${DIST_SERVICES.join(', ')}) ${cached ? 'up to date' : 'done'} in ${seconds} s`,
  );
  return { seconds };
}
