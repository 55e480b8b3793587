import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { type Harness, startApi } from '@opi/testkit/harness';

/*
 * GET /docs/sdk/<file>: the operator SDK's tarball, offered from the reference page. A real
 * tarball, built by packages/operator-sdk/scripts/tarball.mjs into a cache folder shared by runs
 * (rebuilt only when the SDK's inputs change: about 2 s cold, 0.1 s warm), copied into this API's
 * SDK_TARBALL_DIR once the "not there yet" answers are checked.
 */

const run = promisify(execFile);
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const SCRIPT = path.join(REPO, 'packages/operator-sdk/scripts/tarball.mjs');
const CACHE = path.join(os.tmpdir(), 'opi-test-sdk-tarball');

let h: Harness;
let dir: string;
let built: { file: string; name: string; version: string; sha256: string; bytes: number };

before(async () => {
  const { stdout } = await run(process.execPath, [SCRIPT, '--out', CACHE], { cwd: REPO });
  built = JSON.parse(stdout.trim().split('\n').pop()!);
  dir = await mkdtemp(path.join(os.tmpdir(), 'opi-sdk-dir-'));
  h = await startApi({ SDK_TARBALL_DIR: dir });
});

after(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The entries of a .tgz (ustar: 512-byte headers, names with their prefix). */
function tarEntries(tgz: Buffer): Map<string, Buffer> {
  const tar = gunzipSync(tgz);
  const out = new Map<string, Buffer>();
  const str = (a: number, b: number) => tar.subarray(a, b).toString('utf8').replace(/\0.*$/s, '');
  for (let off = 0; off + 512 <= tar.length && tar[off] !== 0; ) {
    const size = Number.parseInt(str(off + 124, off + 136).trim() || '0', 8);
    const prefix = str(off + 345, off + 500);
    const name = (prefix ? `${prefix}/` : '') + str(off, off + 100);
    out.set(name, tar.subarray(off + 512, off + 512 + size));
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

describe('the operator SDK download (GET /docs/sdk/<file>)', () => {
  test('while there is no tarball: a JSON 404 saying so, and the page says it is not there yet', async () => {
    const res = await fetch(`${h.base}/docs/sdk/${built.name}`);
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await res.json()) as { detail: string };
    assert.match(body.detail, /operator SDK tarball is not available on this server yet/);
    const page = await (await fetch(`${h.base}/docs`)).text();
    assert.match(page, /<h2 id="sdk">Operator SDK<\/h2>/);
    assert.match(page, /not available on this server yet/);
    assert.doesNotMatch(page, /href="\/docs\/sdk\//);
  });

  test('once it appears: served as a download with its SHA-256, linked from the page', async () => {
    await copyFile(built.file, path.join(dir, built.name));
    const page = await fetch(`${h.base}/docs`);
    const html = await page.text();
    assert.ok(html.includes(`<a href="/docs/sdk/${built.name}" download>${built.name}</a>`), 'the link');
    assert.ok(html.includes(built.sha256), 'the SHA-256');
    assert.ok(html.includes(`npm install ./${built.name}`), 'the install command');
    assert.doesNotMatch(html, /<script|https?:\/\/(?!json-schema)/i, 'still self-contained');

    const res = await fetch(`${h.base}/docs/sdk/${built.name}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/gzip');
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="${built.name}"`);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const bytes = Buffer.from(await res.arrayBuffer());
    const sha = createHash('sha256').update(bytes).digest('hex');
    assert.equal(sha, built.sha256);
    assert.equal(res.headers.get('x-checksum-sha256'), sha);
    assert.equal(
      res.headers.get('repr-digest'),
      `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`,
    );
    assert.deepEqual(bytes, await readFile(built.file));

    // (node:http: fetch adds Cache-Control: no-cache to a conditional request.)
    const again = await new Promise<number>((resolve, reject) =>
      http
        .get(
          `${h.base}/docs/sdk/${built.name}`,
          { headers: { 'if-none-match': res.headers.get('etag')! } },
          (r) => resolve(r.resume().statusCode!),
        )
        .on('error', reject),
    );
    assert.equal(again, 304);
    const other = await fetch(`${h.base}/docs/sdk/opi-operator-sdk-0.0.1.tgz`);
    assert.equal(other.status, 404);
    assert.deepEqual(((await other.json()) as { current: string }).current, `/docs/sdk/${built.name}`);
    assert.equal((await fetch(`${h.base}/docs/sdk/..%2Fpackage.json`)).status, 404);
  });

  test('the tarball holds the bundle, its types, the README and the manifest', async () => {
    const entries = tarEntries(await readFile(path.join(dir, built.name)));
    for (const f of [
      'package/dist/index.js',
      'package/dist/index.d.ts',
      'package/README.md',
      'package/package.json',
    ])
      assert.ok(entries.has(f), `${f} in ${[...entries.keys()].join(', ')}`);
    const manifest = JSON.parse(entries.get('package/package.json')!.toString('utf8'));
    assert.equal(manifest.name, '@opi/operator-sdk');
    assert.equal(manifest.version, built.version);
    assert.equal(built.name, `opi-operator-sdk-${built.version}.tgz`);
    assert.ok(![...entries.keys()].some((f) => f.includes('/src/') || f.endsWith('.test.ts')), 'no sources');
  });

  test('the downloaded tarball installs offline in an empty project and imports', async () => {
    const project = await mkdtemp(path.join(os.tmpdir(), 'opi-sdk-install-'));
    try {
      const res = await fetch(`${h.base}/docs/sdk/${built.name}`);
      await writeFile(path.join(project, built.name), Buffer.from(await res.arrayBuffer()));
      await writeFile(
        path.join(project, 'package.json'),
        JSON.stringify({ name: 'sdk-install-probe', version: '1.0.0', private: true, type: 'module' }),
      );
      const env = Object.fromEntries(
        Object.entries(process.env).filter(
          ([k]) => !/^npm_config_(workspaces?|include_workspace_root)$/i.test(k),
        ),
      );
      const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
      await run(npm, ['install', `./${built.name}`, '--offline', '--no-audit', '--no-fund'], {
        cwd: project,
        env,
      });
      const probe = [
        "const sdk = await import('@opi/operator-sdk');",
        "const { fileURLToPath } = await import('node:url');",
        "console.log(JSON.stringify({ client: typeof sdk.createOperatorClient, from: fileURLToPath(import.meta.resolve('@opi/operator-sdk')) }));",
      ].join('\n');
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], {
        cwd: project,
        env,
      });
      const out = JSON.parse(stdout) as { client: string; from: string };
      assert.equal(out.client, 'function');
      assert.equal(out.from, path.join(project, 'node_modules/@opi/operator-sdk/dist/index.js'));
      const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8'));
      assert.deepEqual(Object.keys(lock.packages).sort(), ['', 'node_modules/@opi/operator-sdk']);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
