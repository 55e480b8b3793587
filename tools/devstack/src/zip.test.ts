import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { buildZip } from './test-support/zip-writer.js';
import { crc32, extractZipEntry, listZipEntries } from './zip.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'opi-zip-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test('crc32 gives the standard check value', () => {
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  assert.equal(crc32(Buffer.from('6789'), crc32(Buffer.from('12345'))), 0xcbf43926);
  assert.equal(crc32(Buffer.alloc(0)), 0);
});

test('reads stored and deflated entries, large ones streamed, past an archive comment', async () => {
  // 3 MB that deflates well but not trivially (several stream chunks in and out).
  const big = Buffer.alloc(3 * 1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 12)) & 0xff;
  const files = {
    'pkg-1.0.data/scripts/tool': { data: Buffer.from('#!/bin/sh\necho hello\n'), method: 0 as const },
    'pkg-1.0.dist-info/METADATA': {
      data: Buffer.from('Name: pkg\nVersion: 1.0\n'.repeat(50)),
      method: 8 as const,
    },
    'big.bin': { data: big, method: 8 as const },
    'big-stored.bin': { data: big.subarray(0, 200_000), method: 0 as const },
    empty: { data: Buffer.alloc(0), method: 0 as const },
    'empty-deflated': { data: Buffer.alloc(0), method: 8 as const },
  };
  const zipFile = path.join(dir, 'a.zip');
  await writeFile(
    zipFile,
    buildZip(
      Object.entries(files).map(([name, f]) => ({ name, ...f })),
      'an archive comment',
    ),
  );
  const entries = await listZipEntries(zipFile);
  assert.deepEqual(
    entries.map((e) => [e.name, e.method, e.size]),
    Object.entries(files).map(([name, f]) => [name, f.method, f.data.length]),
  );
  for (const [name, f] of Object.entries(files)) {
    const out = path.join(dir, `out-${name.replace(/\W/g, '_')}`);
    await extractZipEntry(zipFile, name, out);
    assert.equal(sha(readFileSync(out)), sha(f.data), name);
  }
});

test('refuses a missing entry, a wrong CRC, an unknown method and a file that is not a zip', async () => {
  const zipFile = path.join(dir, 'b.zip');
  const data = Buffer.from('some bytes '.repeat(100));
  await writeFile(
    zipFile,
    buildZip([
      { name: 'good', data, method: 8 },
      { name: 'bad-crc', data, method: 8, crc: 12345 },
    ]),
  );
  const out = path.join(dir, 'out-b');
  await assert.rejects(extractZipEntry(zipFile, 'nope', out), /no entry nope/);
  await assert.rejects(extractZipEntry(zipFile, 'bad-crc', out), /CRC-32/);
  await extractZipEntry(zipFile, 'good', out);
  assert.deepEqual(readFileSync(out), data);

  const bzip = buildZip([{ name: 'x', data, method: 0 }]);
  // Method 12 (bzip2) in the central directory, which starts right after the one local entry.
  const cdStart = 30 + 1 + 6 + data.length;
  bzip.writeUInt16LE(12, cdStart + 10);
  await writeFile(zipFile, bzip);
  await assert.rejects(extractZipEntry(zipFile, 'x', out), /compression method 12/);

  await writeFile(zipFile, Buffer.from('not a zip at all, just some text that is long enough'));
  await assert.rejects(listZipEntries(zipFile), /not a zip file/);
});
