// The operator SDK's installable tarball, opi-operator-sdk-<version>.tgz: what an operator runs
// `npm install` on, offered for download by the API (GET /docs/sdk/<file>, linked from /docs).
//
//   node packages/operator-sdk/scripts/tarball.mjs [--out DIR] [--force]
//       Builds the SDK into a staging folder in the system's temp folder (tsc declarations and the
//       esbuild bundle, as `npm run build` does, without touching dist/), packs it with `npm pack`
//       into DIR (default: packages/operator-sdk/tarball, git-ignored), and records a hash of its
//       inputs there: run again with the same inputs, it only checks the hash (no build). The
//       inputs: every file of src/, the package's manifest, README and build files, this script,
//       tsconfig.base.json, package-lock.json, and every file the last bundle read (the workspace
//       code it inlines: @opi/signing).
//   node packages/operator-sdk/scripts/tarball.mjs --from-dist [--out DIR]
//       Packs the dist/ just built (the package's `build` script: npm run build, the Dockerfile).
//
// Prints one JSON line on stdout: { file, name, version, sha256, bytes, built, seconds }; progress
// and errors go to stderr. The new tarball replaces older ones in DIR by an atomic rename, so a
// server reading DIR sees a whole file or none. Plain JavaScript: the stack, the tests and the
// package's build run it as a child process (the build is CPU work; it blocks nothing else).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SDK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPO_ROOT = path.resolve(SDK_DIR, '../..');
export const DEFAULT_OUT = path.join(SDK_DIR, 'tarball');
const STAMP = '.opi-sdk-tarball.json';
/** npm's name for a scoped package's tarball: @opi/operator-sdk 0.1.0 -> opi-operator-sdk-0.1.0.tgz. */
export const TARBALL_PATTERN = /^opi-operator-sdk-\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?\.tgz$/;

function manifest() {
  return JSON.parse(readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8'));
}

export function tarballName(version = manifest().version) {
  return `opi-operator-sdk-${version}.tgz`;
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else out.push(full);
  }
  return out;
}

/** The inputs known before a build (absolute paths). */
function fixedInputs() {
  return [
    ...walk(path.join(SDK_DIR, 'src')),
    ...['package.json', 'README.md', 'build.mjs', 'tsconfig.json', 'tsconfig.build.json'].map((f) =>
      path.join(SDK_DIR, f),
    ),
    fileURLToPath(import.meta.url),
    path.join(REPO_ROOT, 'tsconfig.base.json'),
    path.join(REPO_ROOT, 'package-lock.json'),
  ];
}

/** A hash over the files' repository-relative paths and contents (a missing file counts as missing). */
function hashFiles(files) {
  const h = createHash('sha256');
  for (const rel of [...new Set(files.map((f) => path.relative(REPO_ROOT, f)))].sort()) {
    const full = path.join(REPO_ROOT, rel);
    h.update(rel);
    h.update('\0');
    h.update(existsSync(full) ? readFileSync(full) : '(missing)');
    h.update('\0');
  }
  return h.digest('hex');
}

function readStamp(out) {
  try {
    return JSON.parse(readFileSync(path.join(out, STAMP), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Whether DIR holds the tarball of exactly the current inputs. */
export function tarballCurrent(out = DEFAULT_OUT) {
  const stamp = readStamp(out);
  if (!stamp || stamp.name !== tarballName() || !existsSync(path.join(out, stamp.name))) return false;
  const extra = (stamp.inputs ?? []).map((rel) => path.join(REPO_ROOT, rel));
  return hashFiles([...fixedInputs(), ...extra]) === stamp.hash;
}

function sha256File(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(
            new Error(
              `${path.basename(command)} ${args.join(' ')} failed (exit ${code})\n${stderr}${stdout}`,
            ),
          ),
    );
  });
}

/** The environment for npm: without the settings an enclosing `npm run -w ...` passes down. */
function npmEnv() {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (/^npm_config_(workspaces?|include_workspace_root|pack_destination|dry_run|json)$/i.test(k))
      delete env[k];
  }
  return env;
}

/**
 * Packs `stage` (package.json, README.md, dist/) into DIR as the SDK's tarball, replacing any
 * older one; returns its description.
 */
async function packInto(stage, out) {
  mkdirSync(out, { recursive: true });
  const tmp = mkdtempSync(path.join(out, '.pack-'));
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const json = await run(
      npm,
      ['pack', '.', '--pack-destination', tmp, '--json', '--ignore-scripts', '--loglevel=error'],
      { cwd: stage, env: npmEnv() },
    );
    const [info] = JSON.parse(json);
    const name = info.filename.replace(/^@/, '').replace('/', '-');
    if (!TARBALL_PATTERN.test(name)) throw new Error(`unexpected tarball name ${info.filename}`);
    const packed = path.join(
      tmp,
      readdirSync(tmp).find((f) => f.endsWith('.tgz')),
    );
    const file = path.join(out, name);
    renameSync(packed, file);
    for (const old of readdirSync(out)) {
      if (old !== name && TARBALL_PATTERN.test(old)) rmSync(path.join(out, old), { force: true });
    }
    return { file, name, version: info.version, sha256: sha256File(file), bytes: statSync(file).size };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function stageManifest(stage) {
  for (const f of ['package.json', 'README.md']) cpSync(path.join(SDK_DIR, f), path.join(stage, f));
}

/**
 * Makes DIR hold the tarball of the current inputs: nothing to do when it already does (unless
 * `force`), otherwise a build in a staging folder and `npm pack`.
 */
export async function ensureSdkTarball({ out = DEFAULT_OUT, force = false, log = () => {} } = {}) {
  const started = Date.now();
  const seconds = () => Number(((Date.now() - started) / 1000).toFixed(2));
  if (!force && tarballCurrent(out)) {
    const name = tarballName();
    const file = path.join(out, name);
    return {
      file,
      name,
      version: manifest().version,
      sha256: sha256File(file),
      bytes: statSync(file).size,
      built: false,
      seconds: seconds(),
    };
  }
  log(`building the operator SDK tarball into ${out}`);
  const before = hashFiles(fixedInputs());
  const stage = mkdtempSync(path.join(os.tmpdir(), 'opi-sdk-stage-'));
  try {
    const dist = path.join(stage, 'dist');
    const tsc = path.join(
      path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')),
      'bin',
      'tsc',
    );
    await run(
      process.execPath,
      [tsc, '-p', path.join(SDK_DIR, 'tsconfig.build.json'), '--emitDeclarationOnly', '--outDir', dist],
      { cwd: SDK_DIR },
    );
    const { bundle } = await import('../build.mjs');
    const result = await bundle(path.join(dist, 'index.js'));
    const bundled = Object.keys(result.metafile.inputs).map((rel) => path.resolve(SDK_DIR, rel));
    stageManifest(stage);
    const packed = await packInto(stage, out);
    // The stamp claims these inputs only if none of them changed while the build ran.
    const inputs = [...fixedInputs(), ...bundled];
    const stampFile = path.join(out, STAMP);
    if (hashFiles(fixedInputs()) === before) {
      const tmp = `${stampFile}.${process.pid}`;
      const rel = bundled.map((f) => path.relative(REPO_ROOT, f)).sort();
      writeFileSync(
        tmp,
        `${JSON.stringify({ name: packed.name, hash: hashFiles(inputs), inputs: rel }, null, 1)}\n`,
      );
      renameSync(tmp, stampFile);
    } else rmSync(stampFile, { force: true });
    log(`operator SDK tarball ${packed.name} built in ${seconds()} s`);
    return { ...packed, built: true, seconds: seconds() };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Packs the package's dist/ as it is (just built by `npm run build`); no stamp: nothing is cached. */
export async function packDist({ out = DEFAULT_OUT } = {}) {
  const started = Date.now();
  if (!existsSync(path.join(SDK_DIR, 'dist', 'index.js')))
    throw new Error('dist/index.js is missing: build first');
  const stage = mkdtempSync(path.join(os.tmpdir(), 'opi-sdk-stage-'));
  try {
    cpSync(path.join(SDK_DIR, 'dist'), path.join(stage, 'dist'), { recursive: true });
    stageManifest(stage);
    rmSync(path.join(out, STAMP), { force: true });
    const packed = await packInto(stage, out);
    return { ...packed, built: true, seconds: Number(((Date.now() - started) / 1000).toFixed(2)) };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--out');
  const out = at >= 0 && args[at + 1] ? path.resolve(args[at + 1]) : DEFAULT_OUT;
  const log = (line) => process.stderr.write(`[sdk] ${line}\n`);
  try {
    const result = args.includes('--from-dist')
      ? await packDist({ out })
      : await ensureSdkTarball({ out, force: args.includes('--force'), log });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (err) {
    process.stderr.write(`[sdk] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
