// Bundles src/index.ts into dist/index.js with the platform's signing code inlined: the built SDK
// imports nothing but Node's own modules. (Types: tsc --emitDeclarationOnly, self-contained.)
import { build } from 'esbuild';

await build({
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['source'],
  packages: 'bundle',
  sourcemap: true,
  logLevel: 'warning',
});
