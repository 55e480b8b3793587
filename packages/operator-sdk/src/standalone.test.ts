import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { GENERATED_FILE, generatedTypes } from './generate-types.js';

// What an operator installs: dist/index.js (bundled, with the platform's signing code inlined) and
// the .d.ts files. Neither may need a workspace package; the bundle runs from a folder outside the
// repository (no node_modules to fall back on) and signs the published test vectors.
const PKG = fileURLToPath(new URL('..', import.meta.url));
const REPO = path.resolve(PKG, '../..');

test('the bundle imports only Node built-ins and signs the published vectors from outside the repository', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'opi-sdk-'));
  try {
    const outfile = path.join(dir, 'index.js');
    await build({
      entryPoints: [path.join(PKG, 'src/index.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['source'],
      logLevel: 'silent',
    });
    const code = await readFile(outfile, 'utf8');
    const imports = [...code.matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((m) => m[1]!);
    assert.ok(imports.length > 0);
    assert.deepEqual(
      imports.filter((i) => !i.startsWith('node:') && !['crypto', 'http', 'async_hooks'].includes(i)),
      [],
    );
    assert.doesNotMatch(code, /@opi\//);
    await writeFile(path.join(dir, 'package.json'), '{"type":"module"}');
    const sdk = (await import(pathToFileURL(outfile).href)) as typeof import('./index.js');
    const vectors = JSON.parse(
      await readFile(path.join(REPO, 'packages/signing/test-vectors.json'), 'utf8'),
    ) as {
      operator: {
        key: string;
        timestamp: string;
        nonce: string;
        method: string;
        pathAndQuery: string;
        body: string;
        signature: string;
      }[];
    };
    for (const v of vectors.operator) {
      const headers = sdk.operatorSignatureHeaders(v.key, v, { timestamp: v.timestamp, nonce: v.nonce });
      assert.equal(headers['x-pp-signature'], v.signature);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the declarations name no workspace package', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'opi-sdk-types-'));
  try {
    execFileSync(
      path.join(REPO, 'node_modules/.bin/tsc'),
      [
        '-p',
        path.join(PKG, 'tsconfig.build.json'),
        '--emitDeclarationOnly',
        '--declarationMap',
        'false',
        '--outDir',
        dir,
      ],
      { stdio: 'pipe' },
    );
    const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.d.ts'));
    assert.ok(files.includes('index.d.ts'), files.join(', '));
    for (const f of files) assert.doesNotMatch(await readFile(path.join(dir, f), 'utf8'), /@opi\//, f);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the generated API types are current with the OpenAPI document', async () => {
  assert.equal(
    await readFile(GENERATED_FILE, 'utf8'),
    await generatedTypes(),
    'run: npm run generate -w @opi/operator-sdk',
  );
});
