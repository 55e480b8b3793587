// Bundles src/index.ts into dist/index.js with the platform's signing code inlined: the built SDK
// imports nothing but Node's own modules. (Types: tsc --emitDeclarationOnly, self-contained.)
// scripts/tarball.mjs calls bundle() with another output file (a staging folder).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Bundles the SDK into `outfile`; the result's metafile lists every input (relative to this folder). */
export function bundle(outfile = path.join(HERE, 'dist', 'index.js')) {
  return build({
    absWorkingDir: HERE,
    entryPoints: ['src/index.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    packages: 'bundle',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await bundle();
