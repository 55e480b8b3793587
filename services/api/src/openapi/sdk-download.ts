import { createHash } from 'node:crypto';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The operator SDK's tarball (opi-operator-sdk-<version>.tgz), offered by the reference page at
 * GET /docs/sdk/<file>. It is a build output, never in the sources: `npm run build` packs it into
 * packages/operator-sdk/tarball (this module's default folder, the production image's), and the
 * default stack builds it in the background into DATA_DIR/sdk and sets SDK_TARBALL_DIR to that
 * (packages/operator-sdk/scripts/tarball.mjs). The folder is read at each request, so a tarball
 * that appears (or is replaced: the script renames a whole file into place) is picked up.
 */

/** npm's name for the tarball of @opi/operator-sdk; group 1 is the version. */
export const SDK_TARBALL_PATTERN = /^opi-operator-sdk-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/;

/** Where `npm run build` packs the SDK: packages/operator-sdk/tarball (from src/ or dist/ alike). */
export const DEFAULT_SDK_TARBALL_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../packages/operator-sdk/tarball',
);

/** The download's path: /docs/sdk/opi-operator-sdk-<version>.tgz. */
export const sdkDownloadPath = (name: string) => `/docs/sdk/${name}`;

export interface SdkTarball {
  /** The file name, e.g. opi-operator-sdk-0.1.0.tgz. */
  name: string;
  version: string;
  /** SHA-256 of the file, lower-case hex. */
  sha256: string;
  bytes: number;
  body: Buffer;
}

/**
 * A reader of the tarball in `dir`: the newest file named like one, or undefined when there is
 * none (yet). The last file read is kept (with its hash) while its inode, size and mtime stay.
 */
export function sdkTarballReader(dir: string): () => Promise<SdkTarball | undefined> {
  let cached: { key: string; tarball: SdkTarball } | undefined;
  return async () => {
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => SDK_TARBALL_PATTERN.test(n));
    } catch {
      return undefined;
    }
    let newest: { name: string; mtimeMs: number } | undefined;
    for (const name of names) {
      const s = await stat(path.join(dir, name)).catch(() => undefined);
      if (s?.isFile() && (!newest || s.mtimeMs > newest.mtimeMs)) newest = { name, mtimeMs: s.mtimeMs };
    }
    if (!newest) return undefined;
    const handle = await open(path.join(dir, newest.name), 'r').catch(() => undefined);
    if (!handle) return undefined;
    try {
      const s = await handle.stat();
      const key = `${newest.name}:${s.ino}:${s.size}:${s.mtimeMs}`;
      if (cached?.key === key) return cached.tarball;
      const body = await handle.readFile();
      // A gzip stream or nothing: a half-copied or foreign file is not offered.
      if (body.length < 20 || body[0] !== 0x1f || body[1] !== 0x8b) return undefined;
      const tarball: SdkTarball = {
        name: newest.name,
        version: SDK_TARBALL_PATTERN.exec(newest.name)![1]!,
        sha256: createHash('sha256').update(body).digest('hex'),
        bytes: body.length,
        body,
      };
      cached = { key, tarball };
      return tarball;
    } finally {
      await handle.close();
    }
  };
}
