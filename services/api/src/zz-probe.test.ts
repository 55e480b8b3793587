import net from 'node:net';
import { after, before, test } from 'node:test';
import { ADMIN_KEY, call, createOperator, type Harness, startApi } from './test-support/harness.js';

let h: Harness;
let master: string;
before(async () => {
  h = await startApi({ LOG_LEVEL: 'error' });
  await createOperator(h.base, 'op_probe');
  master = (await call(h.base, 'POST', '/api/admin/v1/master-keys', { key: ADMIN_KEY, body: {} })).json.data.api_key;
});
after(() => h.close());

function raw(text: string | Buffer): Promise<string> {
  const port = Number(new URL(h.base).port);
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let out = '';
    s.on('data', (d) => { out += d.toString('latin1'); });
    s.on('error', () => resolve(`${out}<error>`));
    s.on('close', () => resolve(out));
    s.write(text);
    setTimeout(() => s.end(), 300);
  });
}

test('probe', async () => {
  const show = (label: string, r: { status: number; text: string }) => console.log(label, r.status, r.text.slice(0, 200));
  show('admin op NUL', await call(h.base, 'GET', '/api/admin/v1/operators/%00', { key: ADMIN_KEY }));
  show('admin op bad pct', await call(h.base, 'GET', '/api/admin/v1/operators/%E0%A4%A', { key: ADMIN_KEY }));
  show('create name NUL', await call(h.base, 'POST', '/api/admin/v1/operators', { key: ADMIN_KEY, body: { operator_id: 'op_nul', name: 'a\u0000b' } }));
  show('create wallet NUL', await call(h.base, 'POST', '/api/admin/v1/operators', { key: ADMIN_KEY, body: { operator_id: 'op_nul2', name: 'ab', wallet_base_url: 'http://a/\u0000' } }));
  show('label NUL', await call(h.base, 'POST', '/api/admin/v1/master-keys', { key: ADMIN_KEY, body: { label: '\u0000' } }));
  show('art op NUL', await call(h.base, 'GET', '/api/provider/v1/game-art/vs20emberfox?operator_id=%00', {}));
  show('games master NUL', await call(h.base, 'GET', '/api/provider/v1/games?operator_id=%00', { key: master }));
  show('games master bad', await call(h.base, 'GET', '/api/provider/v1/games?operator_id=%ff', { key: master }));
  show('art slug huge', await call(h.base, 'GET', '/api/provider/v1/game-art/vs20emberfox?thumbnail_format=%00', {}));
  show('release NUL', await call(h.base, 'PUT', '/api/admin/v1/release-registry/vs20emberfox', { key: ADMIN_KEY, body: { status: 'accepted', registry_version: '\u0000' } }));
  show('deep', await call(h.base, 'POST', '/api/admin/v1/master-keys', { key: ADMIN_KEY, body: `${'['.repeat(30000)}${']'.repeat(30000)}` }));
  show('deepobj', await call(h.base, 'POST', '/api/admin/v1/master-keys', { key: ADMIN_KEY, body: `${'{"a":'.repeat(10000)}1${'}'.repeat(10000)}` }));
  for (const m of ['PROPFIND', 'TRACE', 'SEARCH', 'PURGE', 'LINK', 'OPTIONS', 'HEAD', 'QUERY', 'FOO']) {
    console.log(m, JSON.stringify(await raw(`${m} /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)));
    console.log(m, 'unknown path', JSON.stringify(await raw(`${m} /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)));
  }
  console.log('CONNECT', JSON.stringify(await raw(`CONNECT x:1 HTTP/1.1\r\nHost: x\r\n\r\n`)));
  console.log('nohost', JSON.stringify(await raw(`GET /health HTTP/1.1\r\nConnection: close\r\n\r\n`)));
  console.log('expect', JSON.stringify(await raw(`GET /health HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n`)));
  console.log('bad hdr', JSON.stringify(await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-\u0001: a\r\n\r\n`)));
  console.log('huge hdr', JSON.stringify((await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-a: ${'a'.repeat(20000)}\r\n\r\n`)).slice(0, 200)));
  console.log('chunk bad', JSON.stringify(await raw(`POST /api/admin/v1/master-keys HTTP/1.1\r\nHost: x\r\nx-api-key: ${ADMIN_KEY}\r\ncontent-type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`)));
  console.log('truncated body', JSON.stringify(await raw(`POST /api/admin/v1/master-keys HTTP/1.1\r\nHost: x\r\nx-api-key: ${ADMIN_KEY}\r\ncontent-type: application/json\r\nContent-Length: 100\r\n\r\n{"a"`)));
  console.log('utf8 path', JSON.stringify(await raw(Buffer.concat([Buffer.from('GET /api/provider/v1/game-art/'), Buffer.from([0xff, 0xfe, 0xe2]), Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]))));
  console.log('utf8 hdr val', JSON.stringify(await raw(Buffer.concat([Buffer.from('GET /api/provider/v1/games HTTP/1.1\r\nHost: x\r\nx-api-key: '), Buffer.from([0xff, 0xfe, 0xe2]), Buffer.from('\r\nConnection: close\r\n\r\n')]))));
  console.log('op hdr', JSON.stringify(await raw(Buffer.concat([Buffer.from(`GET /api/provider/v1/games HTTP/1.1\r\nHost: x\r\nx-api-key: ${master}\r\nx-operator-id: `), Buffer.from([0xc3, 0xa9, 0x80]), Buffer.from('\r\nConnection: close\r\n\r\n')]))));
  console.log('http2', JSON.stringify(await raw(`GET /health HTTP/2.0\r\nHost: x\r\n\r\n`)));
  console.log('http09', JSON.stringify(await raw(`GET /health\r\n\r\n`)));
  console.log('abs', JSON.stringify(await raw(`GET http://evil/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)));
  console.log('star', JSON.stringify(await raw(`OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)));
  console.log('dbl CL', JSON.stringify(await raw(`POST /api/admin/v1/master-keys HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`)));
  console.log('CL neg', JSON.stringify(await raw(`POST /api/admin/v1/master-keys HTTP/1.1\r\nHost: x\r\nx-api-key: ${ADMIN_KEY}\r\nContent-Length: -1\r\n\r\n{}`)));
  console.log('ctype dup', JSON.stringify(await raw(`POST /api/admin/v1/master-keys HTTP/1.1\r\nHost: x\r\nx-api-key: ${ADMIN_KEY}\r\ncontent-type: application/json\r\ncontent-type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`)));
  console.log('key dup', JSON.stringify(await raw(`GET /api/admin/v1/games HTTP/1.1\r\nHost: x\r\nx-api-key: ${ADMIN_KEY}\r\nx-api-key: ${ADMIN_KEY}\r\nConnection: close\r\n\r\n`).then((s) => s.slice(0, 300))));
});
