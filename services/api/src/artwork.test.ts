import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import { ServiceErrorResponse } from '@opi/contract';
import { escapeXml } from '@opi/games';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';

/*
 * GET /api/provider/v1/game-art/{symbol} (public) and its upload route
 * PUT /api/admin/v1/games/{symbol}/artwork, over real HTTP against a real database.
 */

let h: Harness;
let opKey: string;

const ART = '/api/provider/v1/game-art';
/** A title with every XML special character, installed straight into the catalog table. */
const HOSTILE_TITLE = `Tom & Jerry's <Big> "Spin"`;
const HOSTILE_SYMBOL = 'vs5escapes';

before(async () => {
  h = await startApi();
  ({ key: opKey } = await createOperator(h.base, 'op_art_v'));
  await createOperator(h.base, 'op_art_h', { artwork_format: 'horizontal' });
  await h.db.pool.query(
    `INSERT INTO games (symbol, slug, title, provider_id, provider, family, integration_mode, installed_version)
     VALUES ($1, 'escapes-test', $2, 'prov_a', 'Provider A & Co', 'Slots', 'operator-wallet', '1.0.0')`,
    [HOSTILE_SYMBOL, HOSTILE_TITLE],
  );
});
after(() => h.close());

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json: any;
}

/** A request whose path is sent exactly as given (fetch would normalise `%2e%2e` and `..`). */
function request(
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<RawResponse> {
  const url = new URL(h.base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: {
          ...opts.headers,
          ...(opts.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(opts.body)) }),
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const art = (pathAndQuery: string, headers: Record<string, string> = {}) =>
  request('GET', `${ART}/${pathAndQuery}`, { headers });

const upload = (symbol: string, bytes: Buffer | string, format = 'vertical', key = ADMIN_KEY) =>
  request('PUT', `/api/admin/v1/games/${symbol}/artwork?format=${format}`, {
    headers: { 'x-provider-api-key': key, 'content-type': 'application/octet-stream' },
    body: bytes,
  });

const svgSize = (svg: string) => {
  const m = /<svg[^>]*\swidth="(\d+)"\s+height="(\d+)"/.exec(svg);
  assert.ok(m, 'an <svg> root with width and height');
  return `${m[1]}x${m[2]}`;
};

const storedRows = async (symbol: string) =>
  (
    await h.db.pool.query<{ format: string }>(
      'SELECT format FROM game_artwork WHERE symbol = $1 ORDER BY format',
      [symbol],
    )
  ).rows.map((r) => r.format);

// ── Upload fixtures ─────────────────────────────────────────────────────────

function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData) >>> 0);
  return Buffer.concat([length, typeAndData, crc]);
}

/** A valid 2x2 RGBA PNG: signature, IHDR, IDAT (zlib-deflated scanlines), IEND, with correct CRCs. */
function tinyPng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(2, 0); // width
  ihdr.writeUInt32BE(2, 4); // height
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  ihdr[10] = 0; // compression
  ihdr[11] = 0; // filter
  ihdr[12] = 0; // interlace
  const row = [0, 255, 0, 0, 255, 0, 0, 255, 255]; // filter byte, red pixel, blue pixel
  const raw = Buffer.from([...row, ...row]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JPEG's SOI + JFIF APP0 header, some bytes, EOI. */
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\0', 'latin1'),
  Buffer.from([0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]),
  Buffer.from([0x00, 0x7f, 0x80, 0xfe]),
  Buffer.from([0xff, 0xd9]),
]);

/** A RIFF/WEBP container with a VP8L chunk header. */
function webp(): Buffer {
  const chunk = Buffer.concat([
    Buffer.from('VP8L', 'ascii'),
    Buffer.from([5, 0, 0, 0]),
    Buffer.alloc(6, 0x2f),
  ]);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(4 + chunk.length);
  return Buffer.concat([Buffer.from('RIFF', 'ascii'), size, Buffer.from('WEBP', 'ascii'), chunk]);
}

const SAFE_SVG =
  '<?xml version="1.0" encoding="UTF-8"?>\n<!-- uploaded -->\n' +
  '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="800" viewBox="0 0 600 800">' +
  '<defs><linearGradient id="g"><stop offset="0" stop-color="#123456"/></linearGradient></defs>' +
  '<rect width="600" height="800" fill="url(#g)"/><use href="#g"/></svg>\n';

describe('GET /api/provider/v1/game-art/{symbol}: the generated fallback', () => {
  test('an installed title without an upload: 200 SVG with the title, public, no key', async () => {
    const res = await art('vs20emberfox');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^image\/svg\+xml/);
    assert.match(res.text, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg /);
    assert.ok(res.text.includes('aria-label="Ember Fox Fortunes'), 'the title is in the SVG');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
  });
  test('the title is XML-escaped', async () => {
    const res = await art(HOSTILE_SYMBOL);
    assert.equal(res.status, 200);
    assert.ok(res.text.includes(`aria-label="${escapeXml(HOSTILE_TITLE)} \u2013 Provider A &amp; Co"`));
    assert.ok(res.text.includes('Tom &amp; Jerry&apos;s'));
    assert.ok(res.text.includes('&lt;Big&gt;'));
    assert.ok(!res.text.includes('<Big>'), 'no raw markup from the title');
    assert.ok(!res.text.includes('"Spin"'), 'no raw quote from the title');
  });
  test('thumbnail_format: vertical 600x800 (the default), horizontal 800x450', async () => {
    assert.equal(svgSize((await art('vs20emberfox')).text), '600x800');
    assert.equal(svgSize((await art('vs20emberfox?thumbnail_format=vertical')).text), '600x800');
    assert.equal(svgSize((await art('vs20emberfox?thumbnail_format=horizontal')).text), '800x450');
    const bad = await art('vs20emberfox?thumbnail_format=square');
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.json.detail[0].loc, ['query', 'thumbnail_format']);
  });
  test('operator_id selects the operator preference (set by POST and by PATCH); it is not authorization', async () => {
    assert.equal(svgSize((await art('vs20emberfox?operator_id=op_art_h')).text), '800x450');
    assert.equal(svgSize((await art('vs20emberfox?operator_id=op_art_v')).text), '600x800');
    // An explicit format wins over the preference.
    assert.equal(
      svgSize((await art('vs20emberfox?operator_id=op_art_h&thumbnail_format=vertical')).text),
      '600x800',
    );
    const patched = await call(h.base, 'PATCH', '/api/admin/v1/operators/op_art_v', {
      key: ADMIN_KEY,
      sign: true,
      body: { artwork_format: 'horizontal' },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.data.artwork_format, 'horizontal');
    assert.equal(svgSize((await art('vs20emberfox?operator_id=op_art_v')).text), '800x450');
    // Unknown operator: still public, still 200, the default format.
    const unknown = await art('vs20emberfox?operator_id=op_does_not_exist');
    assert.equal(unknown.status, 200);
    assert.equal(svgSize(unknown.text), '600x800');
    // No key is needed, and a key is not what selects the format.
    const withKey = await art('vs20emberfox', { 'x-provider-api-key': opKey });
    assert.equal(withKey.status, 200);
    assert.equal(svgSize(withKey.text), '600x800');
  });
  test('the slug works as well as the symbol', async () => {
    const bySymbol = await art('vs20emberfox');
    const bySlug = await art('ember-fox-fortunes');
    assert.equal(bySlug.status, 200);
    assert.deepEqual(bySlug.body, bySymbol.body);
    assert.equal(bySlug.headers.etag, bySymbol.headers.etag);
  });
  test('ETag and Cache-Control; If-None-Match answers 304 without a body', async () => {
    const first = await art('vs25tidalpearl');
    const etag = first.headers.etag;
    assert.match(String(etag), /^"[A-Za-z0-9_-]{27}"$/);
    assert.equal(first.headers['cache-control'], 'public, max-age=300');
    const again = await art('vs25tidalpearl', { 'if-none-match': String(etag) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal(again.headers.etag, etag);
    const stale = await art('vs25tidalpearl', { 'if-none-match': '"something-else"' });
    assert.equal(stale.status, 200);
    // Another format is another representation.
    const horizontal = await art('vs25tidalpearl?thumbnail_format=horizontal');
    assert.notEqual(horizontal.headers.etag, etag);
  });
  test('an unknown symbol is 404 JSON; with ?title= it renders an escaped SVG', async () => {
    const missing = await art('no_such_game');
    assert.equal(missing.status, 404);
    assert.match(String(missing.headers['content-type']), /^application\/json/);
    assert.deepEqual(missing.json, { detail: 'Game not found' });
    const titled = await art(
      `no_such_game?title=${encodeURIComponent('<script>alert(1)</script>')}&provider_id=${encodeURIComponent('"><img src=x onerror=alert(1)>')}`,
    );
    assert.equal(titled.status, 200);
    assert.match(String(titled.headers['content-type']), /^image\/svg\+xml/);
    assert.ok(!/<script/i.test(titled.text), 'no script element');
    assert.ok(!/<img/i.test(titled.text), 'no injected element');
    assert.ok(titled.text.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(titled.text.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'));
  });
  test('path traversal and junk symbols are 404 JSON', async () => {
    const attempts = [
      '..%2F..%2Fetc%2Fpasswd',
      '..%2f..%2f..%2fetc%2fpasswd',
      '%2e%2e',
      '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '%252e%252e%252fetc%252fpasswd',
      '..',
      '.%2e',
      'vs20emberfox%2F..',
      'a/b',
      '..%5c..%5cwindows%5cwin.ini',
      '%00',
      'vs20emberfox%00.png',
      '%C0%AE%C0%AE%2F',
      'x'.repeat(200),
      'vs20emberfox'.padEnd(65, 'x'),
    ];
    for (const path of attempts) {
      const res = await art(path);
      assert.equal(res.status, 404, path);
      assert.ok(ServiceErrorResponse.safeParse(res.json).success, `${path}: ${res.text.slice(0, 80)}`);
      assert.ok(!res.text.includes('root:'), path);
    }
  });
});

describe('PUT /api/admin/v1/games/{symbol}/artwork: uploads served back byte for byte', () => {
  const cases: {
    name: string;
    symbol: string;
    format: 'vertical' | 'horizontal';
    bytes: Buffer;
    type: string;
  }[] = [
    { name: 'PNG', symbol: 'vs20emberfox', format: 'vertical', bytes: tinyPng(), type: 'image/png' },
    { name: 'JPEG', symbol: 'vs25tidalpearl', format: 'vertical', bytes: JPEG, type: 'image/jpeg' },
    { name: 'WebP', symbol: 'vs10glacierrun', format: 'horizontal', bytes: webp(), type: 'image/webp' },
    {
      name: 'SVG',
      symbol: 'vs40jadelantern',
      format: 'vertical',
      bytes: Buffer.from(SAFE_SVG),
      type: 'image/svg+xml',
    },
  ];
  for (const c of cases) {
    test(`${c.name}: stored with the sniffed type, served with identical bytes`, async () => {
      const put = await upload(c.symbol, c.bytes, c.format);
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(put.json.data, {
        symbol: c.symbol,
        format: c.format,
        content_type: c.type,
        bytes: c.bytes.length,
      });
      const res = await art(`${c.symbol}?thumbnail_format=${c.format}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], c.type);
      assert.deepEqual(res.body, c.bytes);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      const cached = await art(`${c.symbol}?thumbnail_format=${c.format}`, {
        'if-none-match': String(res.headers.etag),
      });
      assert.equal(cached.status, 304);
      // The other format is still the generated fallback.
      const other = c.format === 'vertical' ? 'horizontal' : 'vertical';
      const fallback = await art(`${c.symbol}?thumbnail_format=${other}`);
      assert.match(String(fallback.headers['content-type']), /^image\/svg\+xml/);
      assert.notDeepEqual(fallback.body, c.bytes);
    });
  }
  test('the PNG fixture is a well-formed PNG (chunk CRCs verify)', () => {
    const png = tinyPng();
    let at = 8;
    const types: string[] = [];
    while (at < png.length) {
      const len = png.readUInt32BE(at);
      const typeAndData = png.subarray(at + 4, at + 8 + len);
      assert.equal(png.readUInt32BE(at + 8 + len), crc32(typeAndData) >>> 0);
      types.push(typeAndData.subarray(0, 4).toString('ascii'));
      at += 12 + len;
    }
    assert.deepEqual(types, ['IHDR', 'IDAT', 'IEND']);
  });
  test('uploads follow the operator preference and by-slug lookups', async () => {
    const res = await art('glacier-run?operator_id=op_art_h');
    assert.equal(res.headers['content-type'], 'image/webp');
    assert.deepEqual(res.body, webp());
  });
  test('a new upload replaces the old one (and its ETag)', async () => {
    const before = await art('vs20emberfox');
    const replacement = Buffer.concat([JPEG.subarray(0, -2), Buffer.from([0x11, 0xff, 0xd9])]);
    assert.equal((await upload('ember-fox-fortunes', replacement)).status, 200);
    const after = await art('vs20emberfox');
    assert.equal(after.headers['content-type'], 'image/jpeg');
    assert.deepEqual(after.body, replacement);
    assert.notEqual(after.headers.etag, before.headers.etag);
  });
  test('unsafe SVGs are 422 and nothing is stored', async () => {
    const unsafe = [
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><image href="https://evil.example/x.png"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><a xlink:href="jav&#x61;script:alert(1)"><rect/></a></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><rect style="fill:url(https://evil.example/a)"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><iframe src="https://evil.example"/></foreignObject></svg>',
    ];
    for (const svg of unsafe) {
      for (const format of ['vertical', 'horizontal']) {
        const res = await upload('vs243copperkiln', svg, format);
        assert.equal(res.status, 422, svg);
        assert.match(res.json.detail, /scripts, event handlers or external references/);
      }
    }
    assert.deepEqual(await storedRows('vs243copperkiln'), []);
    const served = await art('vs243copperkiln');
    assert.ok(!served.text.includes('evil.example') && !served.text.includes('alert'));
  });
  test('garbage bytes, an empty body, a DOCTYPE SVG: 422; nothing stored', async () => {
    const bodies: (Buffer | string)[] = [
      Buffer.from('this is not an image'),
      Buffer.from([0x00, 0x01, 0x02, 0x03, 0xff, 0xfe]),
      Buffer.from([0x89, 0x50, 0x4e, 0x47]), // a truncated PNG signature
      Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'),
      Buffer.from('RIFF\x04\x00\x00\x00WAVEfmt ', 'latin1'),
      '<html><body>hi</body></html>',
      '<!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg"/>',
      '',
    ];
    for (const body of bodies) {
      const res = await upload('vs20starorchard', body);
      assert.equal(res.status, 422, String(body).slice(0, 20));
      assert.ok(ServiceErrorResponse.safeParse(res.json).success);
    }
    assert.deepEqual(await storedRows('vs20starorchard'), []);
  });
  test('format and symbol are validated; only provider-admin keys may upload', async () => {
    const badFormat = await upload('vs20starorchard', tinyPng(), 'square');
    assert.equal(badFormat.status, 422);
    assert.deepEqual(badFormat.json.detail[0].loc, ['query']);
    assert.equal((await upload('no_such_game', tinyPng())).status, 404);
    assert.equal((await upload('..%2F..%2Fetc', tinyPng())).status, 404);
    const operator = await upload('vs20starorchard', tinyPng(), 'vertical', opKey);
    assert.equal(operator.status, 403);
    assert.deepEqual(operator.json, { detail: 'Only provider-admin keys reach the admin API' });
    const anonymous = await request('PUT', '/api/admin/v1/games/vs20starorchard/artwork', {
      body: tinyPng(),
    });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(await storedRows('vs20starorchard'), []);
  });
});
