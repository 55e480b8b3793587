/**
 * Hostile input: thousands of generated malformed requests against the running API over real
 * HTTP (node:http for well-formed HTTP carrying bad content, raw TCP writes for requests that are
 * not valid HTTP at all), to every route family. Every answer must be a 4xx: from our code with
 * a JSON `detail`, or from Node's HTTP parser (its canned 4xx with `Connection: close`). Nothing
 * may reach the unhandled-error path, nothing may change state, and the service keeps serving.
 *
 * The generator is driven by a seeded PRNG (mulberry32). A failure prints the seed; rerun it with
 *   BAD_INPUT_SEED=<seed> node scripts/test.mjs --only services/api/src/bad-input.test.ts
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { loadConfig } from '@opi/config';
import {
  CreateApiKeyRequest,
  CreateOperatorRequest,
  EnabledRequest,
  ReleaseRegistryRequest,
  UpdateOperatorRequest,
} from '@opi/contract';
import { createSecretBox, ensureBootstrapAdminKey } from '@opi/db';
import { createTestDatabase, type TestDatabase } from '@opi/db/testing';
import type { Logger } from '@opi/service-kit/http/logger';
import { newRequestNonce, signOperatorRequest, unixSeconds } from '@opi/signing';
import { ADMIN_KEY, assign, call, createOperator, SERVICE_SECRET } from '@opi/testkit/harness';
import type { z } from 'zod';
import { createApp } from './app.js';
import { seedCatalog } from './catalog/seed.js';
import { createDeps } from './create-deps.js';

const SEED = process.env.BAD_INPUT_SEED
  ? Number(process.env.BAD_INPUT_SEED) >>> 0
  : (Date.now() ^ (process.pid << 16)) >>> 0;
const TARGET_REQUESTS = 3600;
const CONCURRENCY = 32;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(SEED);
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;

// ── The API under test (the harness's setup, with a logger that records unhandled errors) ──

let db: TestDatabase;
let server: http.Server;
let base: string;
let port: number;
let closeDeps: () => Promise<void>;
const logged: { msg: string; fields: Record<string, unknown> | undefined }[] = [];
const recorder: Logger = {
  debug() {},
  info() {},
  warn() {},
  error(msg, fields) {
    logged.push({ msg, fields });
  },
};

let opKey: string;
let otherKey: string;
let masterKey: string;
let revokedKey: string;
/** A nonce already claimed by the admin key: reusing it is refused. */
let usedNonce: string;

before(async () => {
  db = await createTestDatabase();
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    SERVICE_SECRET,
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://games.test',
  };
  const deps = await createDeps(loadConfig(env));
  closeDeps = deps.close;
  await seedCatalog(deps.pool);
  await ensureBootstrapAdminKey(deps.pool, createSecretBox(SERVICE_SECRET), ADMIN_KEY);
  server = createApp({ ...deps, logger: recorder }).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  opKey = (await createOperator(base, 'op_storm')).key;
  otherKey = (await createOperator(base, 'op_other')).key;
  await assign(base, 'op_storm', [SLOT, SLOT2, 'dcrash1']);
  const revoked = await createOperator(base, 'op_revoked');
  revokedKey = revoked.key;
  assert.equal(
    (await call(base, 'DELETE', `/api/admin/v1/api-keys/${revoked.keyId}`, { key: ADMIN_KEY })).status,
    200,
  );
  masterKey = (await call(base, 'POST', '/api/admin/v1/master-keys', { key: ADMIN_KEY, body: {} })).json.data
    .api_key;
  usedNonce = newRequestNonce();
  assert.equal(
    (await call(base, 'GET', '/api/admin/v1/games', { key: ADMIN_KEY, sign: true, nonce: usedNonce })).status,
    200,
  );
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await closeDeps();
  await db.drop();
});

// ── Requests ────────────────────────────────────────────────────────────────

const ADMIN = '/api/admin/v1';
const SLOT = 'vs20emberfox';
const SLOT2 = 'vs25tidalpearl';
const NATIVE = 'cnmines';

type Headers = Record<string, string | string[]>;

interface Case {
  label: string;
  /** http: a well-formed HTTP request with bad content, over node:http. raw: exact bytes over TCP. */
  via: 'http' | 'raw';
  method?: string;
  path?: string;
  headers?: Headers;
  body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked (no Content-Length). */
  chunked?: boolean;
  bytes?: Buffer;
  /** Node drops the connection without an answer (CONNECT without a handler). */
  mayNotAnswer?: boolean;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function sendHttp(c: Case): Promise<{ answers: Answer[]; error?: string }> {
  return new Promise((resolve) => {
    let req: http.ClientRequest;
    try {
      req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: c.method,
          path: c.path,
          agent,
          headers: {
            ...c.headers,
            // Explicit framing: node:http sends a GET or DELETE body unframed otherwise (the
            // server would then see a bodiless request followed by garbage).
            ...(c.body
              ? c.chunked
                ? { 'transfer-encoding': 'chunked' }
                : { 'content-length': String(c.body.length) }
              : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('error', (e) => resolve({ answers: [], error: e.message }));
          res.on('end', () => {
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers)) {
              if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
            }
            resolve({ answers: [{ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) }] });
          });
        },
      );
    } catch (err) {
      resolve({ answers: [], error: `client refused to send: ${(err as Error).message}` });
      return;
    }
    req.on('error', (e) => resolve({ answers: [], error: e.message }));
    if (c.body && c.chunked) {
      const third = Math.ceil(c.body.length / 3);
      req.write(c.body.subarray(0, third));
      req.write(c.body.subarray(third, 2 * third));
      req.end(c.body.subarray(2 * third));
    } else {
      req.end(c.body);
    }
  });
}

function sendRaw(bytes: Buffer): Promise<{ answers: Answer[]; error?: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1');
    let done = false;
    let error: string | undefined;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(halfClose);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ answers: parseAnswers(Buffer.concat(chunks)), ...(error ? { error } : {}) });
    };
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (e) => {
      error = e.message;
      finish();
    });
    socket.on('close', finish);
    // A request the server is still waiting on (a truncated body, ...): end our side.
    const halfClose = setTimeout(() => socket.end(), 1500);
    const giveUp = setTimeout(() => {
      error = 'no answer within 5 s';
      finish();
    }, 5000);
    socket.write(bytes);
  });
}

/** Every complete HTTP/1.x response in a byte stream (1xx interim answers skipped). */
function parseAnswers(buf: Buffer): Answer[] {
  const answers: Answer[] = [];
  let at = 0;
  while (at < buf.length) {
    const end = buf.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const [statusLine, ...lines] = buf.subarray(at, end).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
    if (!m) {
      answers.push({ status: -1, headers: {}, body: buf.subarray(at) });
      break;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const k = line.slice(0, i).trim().toLowerCase();
      const v = line.slice(i + 1).trim();
      headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
    }
    at = end + 4;
    const status = Number(m[1]);
    if (status < 200) continue;
    let body: Buffer;
    if (headers['content-length'] !== undefined) {
      const n = Number(headers['content-length']);
      body = buf.subarray(at, at + n);
      at += n;
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const parts: Buffer[] = [];
      for (;;) {
        const eol = buf.indexOf('\r\n', at);
        if (eol < 0) {
          at = buf.length;
          break;
        }
        const size = Number.parseInt(buf.subarray(at, eol).toString('latin1'), 16);
        at = eol + 2;
        if (!(size > 0)) {
          at = buf.indexOf('\r\n', at) + 2 || buf.length;
          break;
        }
        parts.push(buf.subarray(at, at + size));
        at += size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      body = buf.subarray(at);
      at = buf.length;
    }
    answers.push({ status, headers, body });
  }
  return answers;
}

/** Node's own answers to requests its parser refuses (no request reaches our code). */
const NODE_LEVEL = new Set([400, 408, 413, 417, 431]);

function problems(c: Case, answers: Answer[], error: string | undefined): string[] {
  if (answers.length === 0) return c.mayNotAnswer ? [] : [`no HTTP response (${error ?? 'closed'})`];
  const out: string[] = [];
  for (const a of answers) {
    if (a.status < 400 || a.status > 499) out.push(`status ${a.status}`);
    if (a.headers['x-request-id'] !== undefined) {
      // Produced by our application: JSON with a detail.
      if (!/^application\/json/.test(a.headers['content-type'] ?? '')) {
        out.push(`status ${a.status} with content-type ${a.headers['content-type']}`);
      }
      let json: unknown;
      try {
        json = JSON.parse(a.body.toString('utf8'));
      } catch {
        out.push(`status ${a.status}: body is not JSON: ${a.body.toString('utf8').slice(0, 80)}`);
        continue;
      }
      const detail = (json as { detail?: unknown } | null)?.detail;
      if (typeof detail !== 'string' && !Array.isArray(detail)) out.push(`status ${a.status}: no detail`);
    } else if (!NODE_LEVEL.has(a.status) || !/close/i.test(a.headers.connection ?? '')) {
      out.push(`status ${a.status} not from the app and not Node's canned Connection: close answer`);
    }
  }
  return out;
}

// ── Generators ──────────────────────────────────────────────────────────────

const JSON_TYPE = 'application/json';
const json = (v: unknown) => Buffer.from(JSON.stringify(v));
const adminHeaders = (extra: Headers = {}): Headers => ({ 'x-provider-api-key': ADMIN_KEY, ...extra });

function signed(key: string, method: string, path: string, body: Buffer | undefined): Headers {
  const timestamp = unixSeconds();
  const nonce = newRequestNonce();
  return {
    'x-pp-timestamp': timestamp,
    'x-pp-nonce': nonce,
    'x-pp-signature': signOperatorRequest(key, {
      timestamp,
      nonce,
      method,
      pathAndQuery: path,
      body: body ?? '',
    }),
  };
}

/** Text from a hostile alphabet: controls, latin-1, bidi overrides, CJK, emoji, lone surrogates. */
function hostileText(max = 40): string {
  const pools = [
    () => String.fromCharCode(0x20 + int(95)),
    () => String.fromCharCode(int(0x20)),
    () => String.fromCharCode(0x7f + int(0x81)),
    () => pick(['\u202e', '\u2066', '\ufeff', '\u200b', '\ufffe', '\uffff']),
    () => String.fromCharCode(0x4e00 + int(0x5000)),
    () => String.fromCodePoint(0x1f600 + int(0x50)),
    () => String.fromCharCode(0xd800 + int(0x800)),
    () => pick(['<', '>', '"', "'", '&', '\\', '/', '%', '{', '}', '$', '`']),
  ];
  let s = '';
  const n = 1 + int(max);
  for (let i = 0; i < n; i++) s += pick(pools)();
  return s;
}

/**
 * Percent-encodes every byte but the unreserved ones. Lone surrogates (which UTF-8 cannot carry)
 * go out as the invalid sequence %ED%A0%80.
 */
function encodeHostile(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += '%ED%A0%80';
      continue;
    }
    for (const b of Buffer.from(ch, 'utf8')) {
      out += /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

/** Path segments no record is named by (each already percent-encoded as it goes on the wire). */
function junkSegments(): string[] {
  const fixed = [
    '..',
    '.%2e',
    '%2e%2e',
    '..%2F..%2Fetc%2Fpasswd',
    '..%2f..%2f..%2fwindows%2fwin.ini',
    '%252e%252e%252f',
    '%00',
    'a%00b',
    'op_storm%00',
    `${SLOT}%00`,
    '%ff',
    '%fe%ff',
    '%E0%A4%A',
    '%',
    '%%',
    '%G0',
    '%C0%AE%C0%AE',
    '%ED%A0%80',
    '%F0%9F%92%A9',
    '%C3%A9t%C3%A9',
    '%E2%80%AEevil',
    '%EF%BB%BFbom',
    '%u0041',
    '%0d%0aSet-Cookie:%20x=1',
    '%09tab',
    '%7F',
    '%20',
    '+',
    ';',
    '%3B',
    '%27%20OR%201%3D1--',
    '%3Cscript%3Ealert(1)%3C%2Fscript%3E',
    '%7B%22%24gt%22%3A%22%22%7D',
    '$(id)',
    '~root',
    '%5B%5D',
    'x'.repeat(300),
    `zz9${'a'.repeat(61)}`,
    'A'.repeat(65),
    '-leading-dash',
    '_underscore',
  ];
  const random: string[] = [];
  for (let i = 0; i < 10; i++) random.push(encodeHostile(hostileText(30)));
  for (let i = 0; i < 4; i++) random.push(`zz9${Math.floor(rand() * 1e9).toString(36)}`);
  return [...fixed, ...random];
}

/** Values of the wrong type (or shape) for a JSON field; RAW:<text> is spliced in as a JSON literal. */
function wrongValues(): unknown[] {
  const deepArray = JSON.parse(`${'['.repeat(500)}${']'.repeat(500)}`);
  let deepObject: unknown = 1;
  for (let i = 0; i < 300; i++) deepObject = { a: deepObject };
  return [
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    -1e308,
    2 ** 53 + 1,
    'RAW:1e400',
    'RAW:-1e400',
    'RAW:-0',
    'RAW:123456789012345678901234567890',
    'RAW:0.00000000000000000000000000001e-400',
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\u202eevil',
    '😀'.repeat(120),
    'x'.repeat(5000),
    '<script>alert(1)</script>',
    "' OR 1=1 --",
    '../../etc/passwd',
    '\r\nX-Injected: 1',
    'eur',
    'EURO',
    'E U',
    '99999999999999999999',
    '-5',
    '0',
    'https://user:pw@wallet.example/',
    'javascript:alert(1)',
    'ftp://wallet.example/',
    'http://wallet.example/#frag',
    [],
    [null],
    ['EUR', 1],
    Array.from({ length: 60 }, () => 'EUR'),
    deepArray,
    {},
    { $gt: '' },
    'RAW:{"__proto__":{"admin":true}}',
    'RAW:{"constructor":{"prototype":{"x":1}}}',
    deepObject,
    hostileText(),
    hostileText(300),
    int(1e9) - 5e8,
    rand() * 1e12,
  ];
}

/** JSON text with RAW:<literal> strings replaced by the literal (numbers JSON.stringify cannot write). */
function serialise(value: unknown): Buffer {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v) => {
    if (typeof v === 'string' && v.startsWith('RAW:')) {
      raws.push(v.slice(4));
      return `__RAW_${raws.length - 1}__`;
    }
    return v;
  });
  return Buffer.from(text.replace(/"__RAW_(\d+)__"/g, (_m, i: string) => raws[Number(i)]!));
}

/** Whether the API would accept this body (then it is not hostile input and is not sent). */
function locallyValid(schema: z.ZodType, body: Buffer, contentType: string | undefined): boolean {
  let value: unknown;
  if (body.length > 0) {
    if (!contentType || !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType)) return false;
    if (body.length > 64 * 1024) return false;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return false;
    }
  }
  const result = schema.safeParse(value ?? {});
  return result.success && !JSON.stringify(result.data).includes('\\u0000');
}

interface BodyRoute {
  method: string;
  path: string;
  schema: z.ZodType;
  valid: Record<string, unknown>;
}

const BODY_ROUTES: BodyRoute[] = [
  {
    method: 'POST',
    path: `${ADMIN}/operators`,
    schema: CreateOperatorRequest,
    valid: {
      operator_id: 'op_fresh',
      name: 'Fresh',
      status: 'active',
      default_currency: 'EUR',
      allowed_currencies: ['EUR', 'USD'],
      bet_limits: { min: '10', max: '1000' },
      wallet_base_url: 'https://wallet.example/api',
      wallet_secret: 'w'.repeat(32),
      artwork_format: 'horizontal',
    },
  },
  {
    method: 'PATCH',
    path: `${ADMIN}/operators/op_storm`,
    schema: UpdateOperatorRequest,
    valid: {
      name: 'Storm',
      status: 'active',
      default_currency: 'EUR',
      allowed_currencies: ['EUR'],
      bet_limits: { min: '10', max: '1000' },
      wallet_base_url: 'https://wallet.example/api',
      wallet_secret: 'w'.repeat(32),
      rotate_wallet_secret: true,
      artwork_format: 'vertical',
    },
  },
  {
    method: 'POST',
    path: `${ADMIN}/operators/op_storm/api-keys`,
    schema: CreateApiKeyRequest,
    valid: { label: 'ci' },
  },
  { method: 'POST', path: `${ADMIN}/master-keys`, schema: CreateApiKeyRequest, valid: { label: 'ci' } },
  {
    method: 'PUT',
    path: `${ADMIN}/operators/op_storm/games/${SLOT}`,
    schema: EnabledRequest,
    valid: { enabled: true },
  },
  {
    method: 'PUT',
    path: `${ADMIN}/release-registry/${SLOT}`,
    schema: ReleaseRegistryRequest,
    valid: {
      status: 'blocked',
      registry_version: '9.9.9-storm',
      detail: 'storm',
      reasons: ['r'],
      evidence: ['e'],
      deployment_identity: 'd',
    },
  },
  {
    method: 'PUT',
    path: `${ADMIN}/providers/prov_b/switch`,
    schema: EnabledRequest,
    valid: { enabled: false },
  },
  {
    method: 'PUT',
    path: `${ADMIN}/games/${NATIVE}/operator-wallet`,
    schema: EnabledRequest,
    valid: { enabled: false },
  },
];

/** Every field path of a body, nested ones and first array items included. */
function fieldPaths(body: Record<string, unknown>): (string | number)[][] {
  const out: (string | number)[][] = [];
  for (const [k, v] of Object.entries(body)) {
    out.push([k]);
    if (Array.isArray(v) && v.length > 0) out.push([k, 0]);
    else if (v && typeof v === 'object') for (const n of Object.keys(v)) out.push([k, n]);
  }
  return out;
}

function withField(body: Record<string, unknown>, path: (string | number)[], value: unknown, remove = false) {
  const copy = structuredClone(body);
  let target: any = copy;
  for (const p of path.slice(0, -1)) target = target[p];
  const last = path[path.length - 1]!;
  if (remove) {
    if (Array.isArray(target)) target.splice(Number(last), 1);
    else delete target[last];
  } else target[last] = value;
  return copy;
}

/** A request to one of the keyed routes, valid apart from what a generator then breaks. */
interface KeyedRoute {
  method: string;
  path: string;
  area: 'provider' | 'admin';
  body?: Buffer;
  contentType?: string;
}
const KEYED_ROUTES: KeyedRoute[] = [
  { method: 'GET', path: '/api/provider/v1/games', area: 'provider' },
  { method: 'GET', path: '/api/provider/v1/games?provider_id=prov_a', area: 'provider' },
  { method: 'GET', path: `/api/provider/v1/games/${SLOT}`, area: 'provider' },
  { method: 'GET', path: `${ADMIN}/games`, area: 'admin' },
  { method: 'GET', path: `${ADMIN}/operators/op_storm`, area: 'admin' },
  { method: 'GET', path: `${ADMIN}/operators/op_storm/games`, area: 'admin' },
  { method: 'DELETE', path: `${ADMIN}/api-keys/key_0123456789abcdef`, area: 'admin' },
  { method: 'DELETE', path: `${ADMIN}/operators/op_storm/games/${SLOT2}`, area: 'admin' },
  {
    method: 'PUT',
    path: `${ADMIN}/games/${SLOT}/artwork?format=vertical`,
    area: 'admin',
    body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    contentType: 'image/svg+xml',
  },
  ...BODY_ROUTES.map(
    (r): KeyedRoute => ({
      method: r.method,
      path: r.path,
      area: 'admin',
      body: json(r.valid),
      contentType: JSON_TYPE,
    }),
  ),
];

function authFailures(route: KeyedRoute): { label: string; headers: Headers }[] {
  const right = route.area === 'admin' ? ADMIN_KEY : opKey;
  const sig = (over: Headers) => ({
    'x-provider-api-key': right,
    ...signed(right, route.method, route.path, route.body),
    ...over,
  });
  const list: { label: string; headers: Headers }[] = [
    { label: 'no key', headers: {} },
    { label: 'empty key', headers: { 'x-provider-api-key': '' } },
    { label: 'junk key', headers: { 'x-provider-api-key': 'opk_not-a-real-key' } },
    { label: 'long key', headers: { 'x-provider-api-key': 'k'.repeat(300) } },
    { label: 'huge key', headers: { 'x-provider-api-key': 'k'.repeat(8000) } },
    { label: 'latin-1 key', headers: { 'x-provider-api-key': 'padm_\u00e9\u00ff\u0080' } },
    { label: 'key with spaces', headers: { 'x-api-key': ` ${right}x ` } },
    { label: 'key twice', headers: { 'x-api-key': [right, right] } },
    { label: 'prefix only', headers: { 'x-provider-api-key': route.area === 'admin' ? 'padm_' : 'opk_' } },
    { label: 'truncated key', headers: { 'x-provider-api-key': right.slice(0, -1) } },
    { label: 'case-flipped key', headers: { 'x-provider-api-key': right.toUpperCase() } },
    { label: 'empty bearer', headers: { authorization: 'Bearer ' } },
    { label: 'bearer two tokens', headers: { authorization: `Bearer ${right} extra` } },
    {
      label: 'basic auth',
      headers: { authorization: `Basic ${Buffer.from(`x:${right}`).toString('base64')}` },
    },
    { label: 'token scheme', headers: { authorization: `Token ${right}` } },
    { label: 'revoked key', headers: { 'x-provider-api-key': revokedKey } },
    {
      label: 'wrong key kind',
      headers: {
        'x-provider-api-key': route.area === 'admin' ? pick([opKey, otherKey, masterKey]) : ADMIN_KEY,
      },
    },
    { label: 'signature: garbage', headers: sig({ 'x-pp-signature': 'zz' }) },
    { label: 'signature: 63 hex', headers: sig({ 'x-pp-signature': 'a'.repeat(63) }) },
    { label: 'signature: 65 hex', headers: sig({ 'x-pp-signature': 'a'.repeat(65) }) },
    { label: 'signature: 64 non-hex', headers: sig({ 'x-pp-signature': 'g'.repeat(64) }) },
    {
      label: 'signature: base64',
      headers: sig({ 'x-pp-signature': Buffer.alloc(32, 7).toString('base64') }),
    },
    { label: 'signature: latin-1', headers: sig({ 'x-pp-signature': '\u00e9'.repeat(64) }) },
    { label: 'signature: 4 KiB', headers: sig({ 'x-pp-signature': 'ab'.repeat(2048) }) },
    {
      label: 'signature: other key',
      headers: sig({
        'x-pp-signature': signOperatorRequest('other', {
          timestamp: '1',
          nonce: 'n'.repeat(16),
          method: 'GET',
          pathAndQuery: '/',
          body: '',
        }),
      }),
    },
    { label: 'signature only', headers: { 'x-provider-api-key': right, 'x-pp-signature': 'a'.repeat(64) } },
    { label: 'nonce only', headers: { 'x-provider-api-key': right, 'x-pp-nonce': newRequestNonce() } },
    { label: 'timestamp only', headers: { 'x-provider-api-key': right, 'x-pp-timestamp': unixSeconds() } },
    { label: 'stale timestamp', headers: sig({ 'x-pp-timestamp': String(Number(unixSeconds()) - 3600) }) },
    { label: 'future timestamp', headers: sig({ 'x-pp-timestamp': String(Number(unixSeconds()) + 3600) }) },
    { label: 'timestamp ms', headers: sig({ 'x-pp-timestamp': String(Date.now()) }) },
    { label: 'timestamp float', headers: sig({ 'x-pp-timestamp': `${unixSeconds()}.5` }) },
    { label: 'timestamp exp', headers: sig({ 'x-pp-timestamp': '1.7e9' }) },
    { label: 'timestamp negative', headers: sig({ 'x-pp-timestamp': '-1' }) },
    { label: 'timestamp hex', headers: sig({ 'x-pp-timestamp': '0x6553f100' }) },
    { label: 'timestamp huge', headers: sig({ 'x-pp-timestamp': '9'.repeat(400) }) },
    { label: 'nonce short', headers: sig({ 'x-pp-nonce': 'short' }) },
    { label: 'nonce long', headers: sig({ 'x-pp-nonce': 'n'.repeat(129) }) },
    { label: 'nonce spaces', headers: sig({ 'x-pp-nonce': 'a nonce with spaces in it' }) },
    { label: 'nonce latin-1', headers: sig({ 'x-pp-nonce': '\u00e9'.repeat(20) }) },
    { label: 'nonce reused', headers: sig({ 'x-pp-nonce': usedNonce }) },
    { label: 'nonce twice', headers: sig({ 'x-pp-nonce': [newRequestNonce(), newRequestNonce()] }) },
    {
      label: 'signature for another path',
      headers: {
        'x-provider-api-key': right,
        ...signed(right, route.method, `${route.path}x`, route.body),
      },
    },
    {
      label: 'signature for another method',
      headers: { 'x-provider-api-key': right, ...signed(right, 'POST', route.path, Buffer.from('{}')) },
    },
  ];
  return list;
}

function generate(): Case[] {
  const cases: Case[] = [];
  const httpCase = (
    label: string,
    method: string,
    path: string,
    headers: Headers,
    body?: Buffer,
    chunked = false,
  ) =>
    cases.push({
      label,
      via: 'http',
      method,
      path,
      headers,
      ...(body ? { body } : {}),
      ...(chunked ? { chunked } : {}),
    });

  // 1. Authentication failures on every keyed route.
  for (const route of KEYED_ROUTES) {
    for (const failure of authFailures(route)) {
      httpCase(
        `auth ${failure.label}: ${route.method} ${route.path}`,
        route.method,
        route.path,
        { ...(route.contentType ? { 'content-type': route.contentType } : {}), ...failure.headers },
        route.body,
      );
    }
  }

  // 2. Wrong types (and missing fields) for every field of every admin body.
  for (const route of BODY_ROUTES) {
    for (const path of fieldPaths(route.valid)) {
      const variants = [
        ...wrongValues().map((v) => withField(route.valid, path, v)),
        withField(route.valid, path, null, true),
      ];
      for (const variant of variants) {
        const body = serialise(variant);
        if (locallyValid(route.schema, body, JSON_TYPE)) continue;
        const headers = adminHeaders({ 'content-type': JSON_TYPE });
        if (rand() < 0.3) Object.assign(headers, signed(ADMIN_KEY, route.method, route.path, body));
        httpCase(
          `wrong ${path.join('.')}: ${route.method} ${route.path}`,
          route.method,
          route.path,
          headers,
          body,
        );
      }
    }
  }

  // 3. Body framing: content types, truncated, nested, odd JSON; sent to every body route.
  const deepOpen = '['.repeat(10_000);
  const deepClosed = `${deepOpen}${']'.repeat(10_000)}`;
  let deepObject = '1';
  for (let i = 0; i < 8000; i++) deepObject = `{"a":${deepObject}}`;
  for (const route of BODY_ROUTES) {
    const valid = json(route.valid);
    const framings: { label: string; type?: string; body: Buffer }[] = [
      { label: 'no content-type', body: valid },
      ...[
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonp',
        'application/json-seq',
        'text/json',
        'application/xml',
        'json',
        'application/javascript',
        '*/*',
        `application/${'x'.repeat(3000)}`,
      ].map((type) => ({ label: `content-type ${type.slice(0, 40)}`, type, body: valid })),
      ...Array.from({ length: 6 }, () => {
        const cut = 1 + int(valid.length - 1);
        return { label: `truncated at ${cut}`, type: JSON_TYPE, body: valid.subarray(0, cut) };
      }),
      { label: '10,000 unclosed [', type: JSON_TYPE, body: Buffer.from(deepOpen) },
      { label: '10,000 nested arrays', type: JSON_TYPE, body: Buffer.from(deepClosed) },
      {
        label: 'nested arrays as a field',
        type: JSON_TYPE,
        body: Buffer.from(
          `{"enabled":${deepClosed},"name":${deepClosed},"label":${deepClosed},"status":${deepClosed}}`,
        ),
      },
      {
        label: '8,000 nested objects as a field',
        type: JSON_TYPE,
        body: Buffer.from(
          `{"enabled":${deepObject},"name":${deepObject},"label":${deepObject},"status":${deepObject}}`,
        ),
      },
      { label: '10,000 unclosed {', type: JSON_TYPE, body: Buffer.from('{"a":'.repeat(10_000)) },
      { label: 'BOM', type: JSON_TYPE, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), valid]) },
      { label: 'trailing garbage', type: JSON_TYPE, body: Buffer.concat([valid, Buffer.from('x')]) },
      { label: 'two documents', type: JSON_TYPE, body: Buffer.concat([valid, valid]) },
      { label: 'single quotes', type: JSON_TYPE, body: Buffer.from(valid.toString().replace(/"/g, "'")) },
      { label: 'trailing comma', type: JSON_TYPE, body: Buffer.from(valid.toString().replace(/}$/, ',}')) },
      { label: 'comment', type: JSON_TYPE, body: Buffer.from(`/* hi */${valid}`) },
      {
        label: 'NaN',
        type: JSON_TYPE,
        body: Buffer.from('{"enabled":NaN,"name":NaN,"label":NaN,"status":NaN}'),
      },
      {
        label: 'invalid UTF-8',
        type: JSON_TYPE,
        body: Buffer.concat([
          Buffer.from('{"enabled":"'),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from('","label":1,"status":"'),
          Buffer.from([0x80]),
          Buffer.from('"}'),
        ]),
      },
      {
        label: 'UTF-16',
        type: `${JSON_TYPE}; charset=utf-16le`,
        body: Buffer.from(valid.toString(), 'utf16le'),
      },
      {
        label: 'raw control characters',
        type: JSON_TYPE,
        body: Buffer.from('{"label":"\u0001\u0000","enabled":"\u0007"}'),
      },
      { label: 'a JSON string', type: JSON_TYPE, body: Buffer.from('"just a string"') },
      { label: 'a JSON number', type: JSON_TYPE, body: Buffer.from('1e999') },
      { label: 'JSON false', type: JSON_TYPE, body: Buffer.from('false') },
      { label: 'an array of the body', type: JSON_TYPE, body: Buffer.from(`[${valid}]`) },
      {
        label: 'huge string',
        type: JSON_TYPE,
        body: Buffer.from(`{"enabled":"${'x'.repeat(60_000)}","name":1,"label":2,"status":3}`),
      },
      {
        label: 'huge number',
        type: JSON_TYPE,
        body: Buffer.from(`{"enabled":${'9'.repeat(60_000)},"label":${'9'.repeat(100)}}`),
      },
      {
        label: 'many keys',
        type: JSON_TYPE,
        body: Buffer.from(
          `{${Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`).join(',')},"enabled":"no","label":false}`,
        ),
      },
      {
        label: 'duplicate keys, last wrong',
        type: JSON_TYPE,
        body: Buffer.from(
          valid.toString().replace(/}$/, ',"enabled":"yes","label":[],"status":7,"name":{}}'),
        ),
      },
    ];
    for (const f of framings) {
      if (locallyValid(route.schema, f.body, f.type)) continue;
      httpCase(
        `framing ${f.label}: ${route.method} ${route.path}`,
        route.method,
        route.path,
        adminHeaders(f.type ? { 'content-type': f.type } : {}),
        f.body,
      );
    }
  }

  // 4. Bodies over the 64 KiB limit: declared and chunked, to every route that reads a body.
  for (const route of [...KEYED_ROUTES.filter((r) => !r.path.includes('/artwork'))]) {
    for (const size of [64 * 1024 + 1, 100_000, 1_000_000]) {
      const body = Buffer.from(JSON.stringify({ label: 'x'.repeat(size) }));
      for (const chunked of [false, true]) {
        httpCase(
          `over the limit (${size}${chunked ? ', chunked' : ''}): ${route.method} ${route.path}`,
          route.method,
          route.path,
          adminHeaders({ 'content-type': JSON_TYPE }),
          body,
          chunked,
        );
      }
    }
  }

  // 5. Path parameters that name nothing, on every route with one.
  const paramRoutes: { method: string; path: (s: string) => string; headers: Headers; body?: Buffer }[] = [
    { method: 'GET', path: (s) => `/api/provider/v1/games/${s}`, headers: { 'x-provider-api-key': opKey } },
    { method: 'GET', path: (s) => `/api/provider/v1/game-art/${s}`, headers: {} },
    {
      method: 'GET',
      path: (s) => `/api/provider/v1/game-art/${s}?thumbnail_format=horizontal&operator_id=op_storm`,
      headers: {},
    },
    { method: 'GET', path: (s) => `${ADMIN}/operators/${s}`, headers: adminHeaders() },
    {
      method: 'PATCH',
      path: (s) => `${ADMIN}/operators/${s}`,
      headers: adminHeaders({ 'content-type': JSON_TYPE }),
      body: json({ name: 'x' }),
    },
    {
      method: 'POST',
      path: (s) => `${ADMIN}/operators/${s}/api-keys`,
      headers: adminHeaders({ 'content-type': JSON_TYPE }),
      body: json({}),
    },
    { method: 'GET', path: (s) => `${ADMIN}/operators/${s}/games`, headers: adminHeaders() },
    {
      method: 'PUT',
      path: (s) => `${ADMIN}/operators/${s}/games/${SLOT}`,
      headers: adminHeaders({ 'content-type': JSON_TYPE }),
      body: json({ enabled: true }),
    },
    {
      method: 'PUT',
      path: (s) => `${ADMIN}/operators/op_storm/games/${s}`,
      headers: adminHeaders({ 'content-type': JSON_TYPE }),
      body: json({ enabled: true }),
    },
    { method: 'DELETE', path: (s) => `${ADMIN}/operators/${s}/games/${SLOT}`, headers: adminHeaders() },
    { method: 'DELETE', path: (s) => `${ADMIN}/operators/op_storm/games/${s}`, headers: adminHeaders() },
    { method: 'DELETE', path: (s) => `${ADMIN}/api-keys/${s}`, headers: adminHeaders() },
    {
      method: 'PUT',
      path: (s) => `${ADMIN}/release-registry/${s}`,
      headers: adminHeaders({ 'content-type': JSON_TYPE }),
      body: json({ status: 'accepted', registry_version: '1' }),
    },
    {
      method: 'PUT',
      path: (s) => `${ADMIN}/providers/${s}/switch`,
      headers: adminHeaders({ 'content-type': JSON_TYPE }),
      body: json({ enabled: true }),
    },
    {
      method: 'PUT',
      path: (s) => `${ADMIN}/games/${s}/operator-wallet`,
      headers: adminHeaders({ 'content-type': JSON_TYPE }),
      body: json({ enabled: true }),
    },
    {
      method: 'PUT',
      path: (s) => `${ADMIN}/games/${s}/artwork`,
      headers: adminHeaders(),
      body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    },
  ];
  for (const r of paramRoutes) {
    for (const junk of junkSegments()) {
      const path = r.path(junk);
      const headers = { ...r.headers };
      if (rand() < 0.2 && headers['x-provider-api-key'] === ADMIN_KEY) {
        Object.assign(headers, signed(ADMIN_KEY, r.method, path, r.body));
      }
      httpCase(
        `path ${junk.slice(0, 30)}: ${r.method} ${path.slice(0, 60)}`,
        r.method,
        path,
        headers,
        r.body,
      );
    }
  }

  // 6. Query parameters of the wrong type or value.
  const artParams = ['title', 'slug', 'provider_id', 'operator_id', 'thumbnail_format'];
  const badFormats = [
    '',
    'square',
    'VERTICAL',
    'Horizontal',
    'vertical%20',
    '%00',
    'vertical%00',
    '%E2%80%AE',
    '1',
    'null',
    '[]',
    encodeHostile(hostileText(20)),
    'x'.repeat(4000),
  ];
  for (const format of badFormats) {
    for (const symbol of [SLOT, 'ember-fox-fortunes', 'dcrash1']) {
      httpCase(
        `art format ${format.slice(0, 20)}`,
        'GET',
        `/api/provider/v1/game-art/${symbol}?thumbnail_format=${format}`,
        {},
      );
      httpCase(
        `art format repeated ${format.slice(0, 20)}`,
        'GET',
        `/api/provider/v1/game-art/${symbol}?thumbnail_format=vertical&thumbnail_format=${format}`,
        {},
      );
    }
    httpCase(
      `upload format ${format.slice(0, 20)}`,
      'PUT',
      `${ADMIN}/games/${SLOT}/artwork?format=${format}`,
      adminHeaders(),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    );
    httpCase(
      `upload format array ${format.slice(0, 20)}`,
      'PUT',
      `${ADMIN}/games/${SLOT}/artwork?format=vertical&format=${format}`,
      adminHeaders(),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    );
  }
  for (const param of artParams) {
    for (const value of ['%00', 'a%00b', `${encodeHostile(hostileText(10))}%00`]) {
      httpCase(`art ${param} with NUL`, 'GET', `/api/provider/v1/game-art/${SLOT}?${param}=${value}`, {});
      httpCase(
        `art unknown symbol, ${param} with NUL`,
        'GET',
        `/api/provider/v1/game-art/zz9nothing?title=t&${param}=${value}`,
        {},
      );
    }
  }
  for (let i = 0; i < 20; i++) {
    // Unknown symbols without a title: 404, whatever else the query carries.
    const q = artParams
      .filter((p) => p !== 'title' && rand() < 0.6)
      .map((p) => `${p}=${encodeHostile(hostileText(30))}`)
      .join('&');
    httpCase('art unknown symbol, hostile query', 'GET', `/api/provider/v1/game-art/zz9${i}?${q}`, {});
  }
  const gamesQueries: { q: string; key: string }[] = [
    { q: 'provider_id=', key: opKey },
    { q: 'provider_id=%00', key: opKey },
    { q: `provider_id=prov_a%00`, key: opKey },
    { q: 'operator_id=op_other', key: opKey },
    { q: 'operator_id=', key: opKey },
    { q: 'operator_id=%00', key: opKey },
    { q: 'operator_id=op_storm&operator_id=op_other', key: opKey },
    { q: `operator_id=${'x'.repeat(5000)}`, key: opKey },
    { q: '', key: masterKey },
    { q: 'operator_id=', key: masterKey },
    { q: 'operator_id=%00', key: masterKey },
    { q: 'operator_id=op_storm%00', key: masterKey },
    { q: 'operator_id=OP_STORM', key: masterKey },
    { q: 'operator_id=op_storm&operator_id=op_other', key: masterKey },
    { q: `operator_id=${'x'.repeat(5000)}`, key: masterKey },
    { q: 'operator_id=%E2%80%AEop', key: masterKey },
    { q: 'operator_id=op_nobody_here', key: masterKey },
    { q: 'operator_id=op_revoked%20', key: masterKey },
    ...Array.from({ length: 10 }, () => ({
      q: `operator_id=${encodeHostile(hostileText(40))}`,
      key: masterKey,
    })),
    ...Array.from({ length: 10 }, () => ({
      q: `provider_id=${encodeHostile(hostileText(40))}%00`,
      key: opKey,
    })),
  ];
  for (const { q, key } of gamesQueries) {
    httpCase(`games ?${q.slice(0, 40)}`, 'GET', `/api/provider/v1/games?${q}`, { 'x-provider-api-key': key });
    // An unknown symbol: 404 whenever the scope check lets the request through.
    httpCase(`games/{symbol} ?${q.slice(0, 40)}`, 'GET', `/api/provider/v1/games/zz9nothing?${q}`, {
      'x-provider-api-key': key,
    });
  }
  // Operator scope named in a body or header, by every channel.
  for (const v of [
    { operator_id: 'op_other' },
    { operator_id: 7 },
    { operator_id: ['op_storm'] },
    { operator_id: '\u0000' },
    { operator_id: { a: 1 } },
  ]) {
    httpCase(
      'scope in body (operator key)',
      'GET',
      '/api/provider/v1/games',
      { 'x-provider-api-key': opKey, 'content-type': JSON_TYPE },
      json(v),
    );
    if (v.operator_id !== 'op_other')
      httpCase(
        'scope in body (master key)',
        'GET',
        '/api/provider/v1/games',
        { 'x-provider-api-key': masterKey, 'content-type': JSON_TYPE },
        json(v),
      );
  }
  for (const h of ['op_other', 'OP', 'op-storm', 'op_storm, op_other', '\u00e9\u00e9']) {
    httpCase('scope header (operator key)', 'GET', '/api/provider/v1/games', {
      'x-provider-api-key': opKey,
      'x-operator-id': h,
    });
    httpCase('scope header (master key)', 'GET', '/api/provider/v1/games', {
      'x-provider-api-key': masterKey,
      'x-operator-id': `${h}x`,
    });
  }

  // 7. Methods a route does not have (node:http) and odd methods (raw).
  const wrongMethods: [string, string, Headers][] = [
    ['POST', '/health', {}],
    ['PUT', '/health', {}],
    ['DELETE', '/health', {}],
    ['PATCH', '/health', {}],
    ['POST', '/api/provider/v1/games', { 'x-provider-api-key': opKey }],
    ['DELETE', '/api/provider/v1/games', { 'x-provider-api-key': opKey }],
    ['PUT', `/api/provider/v1/games/${SLOT}`, { 'x-provider-api-key': opKey }],
    ['POST', `/api/provider/v1/game-art/${SLOT}`, {}],
    ['DELETE', `/api/provider/v1/game-art/${SLOT}`, {}],
    ['PUT', `/api/provider/v1/game-art/${SLOT}`, {}],
    ['POST', `${ADMIN}/games`, adminHeaders()],
    ['DELETE', `${ADMIN}/games`, adminHeaders()],
    ['GET', `${ADMIN}/master-keys`, adminHeaders()],
    ['DELETE', `${ADMIN}/operators`, adminHeaders()],
    ['PUT', `${ADMIN}/operators/op_storm`, adminHeaders()],
    ['GET', `${ADMIN}/api-keys/key_x`, adminHeaders()],
    ['POST', `${ADMIN}/operators/op_storm/games/${SLOT}`, adminHeaders()],
    ['GET', `${ADMIN}/release-registry/${SLOT}`, adminHeaders()],
    ['POST', `${ADMIN}/providers/prov_b/switch`, adminHeaders()],
    ['DELETE', `${ADMIN}/games/${SLOT}/operator-wallet`, adminHeaders()],
    ['GET', `${ADMIN}/games/${SLOT}/artwork`, adminHeaders()],
  ];
  for (const [method, path, headers] of wrongMethods)
    httpCase(`method ${method} ${path}`, method, path, headers);
  const ODD_METHODS = [
    'PROPFIND',
    'PROPPATCH',
    'MKCOL',
    'COPY',
    'MOVE',
    'LOCK',
    'UNLOCK',
    'SEARCH',
    'PURGE',
    'REPORT',
    'TRACE',
    'LINK',
    'UNLINK',
    'QUERY',
    'SOURCE',
    'ACL',
    'BIND',
    'REBIND',
    'UNBIND',
    'MKCALENDAR',
    'MKACTIVITY',
    'CHECKOUT',
    'MERGE',
    'NOTIFY',
    'SUBSCRIBE',
    'UNSUBSCRIBE',
    'M-SEARCH',
  ];
  const ODD_PATHS = [
    '/health',
    '/api/provider/v1/games',
    `/api/provider/v1/games/${SLOT}`,
    `/api/provider/v1/game-art/${SLOT}`,
    `${ADMIN}/operators`,
    `${ADMIN}/operators/op_storm`,
    '/nowhere',
  ];
  for (const method of ODD_METHODS) {
    for (const path of ODD_PATHS) {
      cases.push({
        label: `odd method ${method} ${path}`,
        via: 'raw',
        bytes: rawRequest(`${method} ${path} HTTP/1.1`, [`x-provider-api-key: ${ADMIN_KEY}`]),
      });
    }
  }
  for (const method of ['FOO', 'get', 'G3T', 'GET\u0000', 'GE T', '\u00c9T', 'X'.repeat(100), 'CONNECT']) {
    cases.push({
      label: `bad method ${method.slice(0, 20)}`,
      via: 'raw',
      bytes: rawRequest(`${method} /api/provider/v1/games HTTP/1.1`),
      mayNotAnswer: method === 'CONNECT',
    });
  }
  cases.push({
    label: 'CONNECT authority',
    via: 'raw',
    bytes: rawRequest('CONNECT 127.0.0.1:22 HTTP/1.1'),
    mayNotAnswer: true,
  });

  // 8. Requests that are not valid HTTP (or barely): raw TCP writes.
  const keyless = '/api/provider/v1/games'; // 401 whenever a request gets through
  const requestLines = [
    'GET',
    'GET /',
    'GET  /api/provider/v1/games HTTP/1.1',
    `GET ${keyless} HTTP/1.1 extra`,
    `GET ${keyless} HTTP/9.9`,
    `GET ${keyless} HTTP/1.12`,
    `GET ${keyless} HTTPS/1.1`,
    `GET ${keyless} http/1.1`,
    `GET ${keyless} HTTP/1.1\u0000`,
    ` GET ${keyless} HTTP/1.1`,
    `GET\t${keyless}\tHTTP/1.1`,
    `GET ${keyless}\u0000 HTTP/1.1`,
    `GET ${keyless}\u0007 HTTP/1.1`,
    `GET ${keyless}\u007f HTTP/1.1`,
    `GET ${keyless}\u001b[31m HTTP/1.1`,
    `GET ${keyless}#frag HTTP/1.1`,
    `GET ${keyless}?a=\u0001 HTTP/1.1`,
    `GET ${'/'.repeat(9000)} HTTP/1.1`,
    `GET /${'a'.repeat(20_000)} HTTP/1.1`,
    `GET http://evil.example${keyless} HTTP/1.1`,
    `GET //evil.example${keyless} HTTP/1.1`,
    `GET * HTTP/1.1`,
    `GET ${keyless}/../../../../etc/passwd HTTP/1.1`,
    `GET /api/provider/v1/game-art/../../../../etc/passwd HTTP/1.1`,
    `GET /api/provider/v1/game-art/..\\..\\windows HTTP/1.1`,
    'HTTP/1.1 200 OK',
    '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u01fc\u0003\u0003',
    'PRI * HTTP/2.0',
    '',
    '\r\n\r\n\r\n',
  ];
  for (const line of requestLines) {
    cases.push({
      label: `request line ${JSON.stringify(line.slice(0, 40))}`,
      via: 'raw',
      bytes: rawRequest(line),
    });
  }
  const PRI = Buffer.from(
    'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\u0000\u0000\u0012\u0004\u0000\u0000\u0000\u0000\u0000',
    'latin1',
  );
  cases.push({ label: 'HTTP/2 preface', via: 'raw', bytes: PRI });
  const badHeaders = [
    'X-Bad\u0001: 1',
    'X Bad: 1',
    'X(Bad): 1',
    ': no-name',
    'no-colon-here',
    'X-Val: a\u0000b',
    'X-Val: a\u0001b',
    'X-Val: a\u007fb',
    'X-Val: a\rb',
    'X-Val: \u001b[2J',
    'X-Folded: a\r\n folded',
    'X-Folded: a\r\n\tfolded',
    'Content-Length: 2\r\nContent-Length: 3',
    'Content-Length: -1',
    'Content-Length: 1e3',
    'Content-Length: 0x10',
    'Content-Length: 99999999999999999999999',
    'Content-Length: 5\r\nTransfer-Encoding: chunked',
    'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked',
    'Transfer-Encoding: gzip',
    'Transfer-Encoding: xchunked',
    'Transfer-Encoding: chunked, identity',
    'Host: a\r\nHost: b',
    `Host: ${'h'.repeat(300)}`,
    'Host: \u00e9vil',
    `X-Huge: ${'a'.repeat(20_000)}`,
    Array.from({ length: 300 }, (_, i) => `X-Many-${i}: ${'v'.repeat(60)}`).join('\r\n'),
    Array.from({ length: 2500 }, (_, i) => `x${i}: 1`).join('\r\n'),
    `X-Almost: ${'a'.repeat(14_000)}`,
    'Expect: 100-continue',
    'Expect: something-else',
    'Upgrade: websocket\r\nConnection: Upgrade',
    'Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA',
    'Content-Type: application/json\r\nContent-Type: text/plain',
    `x-api-key: ${ADMIN_KEY}\r\nx-api-key: ${ADMIN_KEY}`,
    'Authorization: Bearer a\r\nAuthorization: Bearer b',
    'x-pp-nonce: a\r\nx-pp-nonce: b',
    'x-request-id: \u00ff\u00fe<script>',
    `x-request-id: ${'r'.repeat(5000)}`,
    'Cookie: a=\u0000',
  ];
  for (const header of badHeaders) {
    cases.push({
      label: `header ${JSON.stringify(header.slice(0, 40))}`,
      via: 'raw',
      bytes: rawRequest(`GET ${keyless} HTTP/1.1`, [header]),
    });
    cases.push({
      label: `header ${JSON.stringify(header.slice(0, 40))} on a body route`,
      via: 'raw',
      bytes: rawRequest(`POST ${ADMIN}/operators HTTP/1.1`, [header, 'Content-Length: 2'], '{}'),
    });
  }
  // Unicode and control characters in paths, as raw bytes on the wire.
  for (let i = 0; i < 60; i++) {
    const target = pick([
      '/api/provider/v1/game-art/',
      `${ADMIN}/operators/`,
      '/api/provider/v1/games/',
      '/healthz/',
      '/',
    ]);
    const junk = Buffer.from(hostileText(24), 'utf8');
    cases.push({
      label: `raw path bytes ${junk.toString('hex').slice(0, 24)}`,
      via: 'raw',
      bytes: Buffer.concat([
        Buffer.from(`GET ${target}`),
        junk,
        Buffer.from(` HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
      ]),
    });
  }
  for (let i = 0; i < 20; i++) {
    const bytes = Buffer.alloc(1 + int(200));
    for (let j = 0; j < bytes.length; j++) bytes[j] = int(256);
    // Bytes that never complete a request head may be closed without an answer.
    cases.push({
      label: `random bytes ${bytes.subarray(0, 8).toString('hex')}`,
      via: 'raw',
      bytes,
      mayNotAnswer: true,
    });
  }
  // Bodies the framing lies about.
  const admin = `x-provider-api-key: ${ADMIN_KEY}`;
  const framing: [string, string[], string][] = [
    ['truncated body', [admin, 'Content-Type: application/json', 'Content-Length: 100'], '{"enabled"'],
    [
      'bad chunk size',
      [admin, 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
      'zz\r\n{}\r\n0\r\n\r\n',
    ],
    [
      'chunk size overflow',
      [admin, 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
      'ffffffffffffffffffff\r\n{}\r\n0\r\n\r\n',
    ],
    [
      'chunk without terminator',
      [admin, 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
      '2\r\n{}',
    ],
    [
      'chunk size lies',
      [admin, 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
      '10\r\n{}\r\n0\r\n\r\n',
    ],
    [
      'huge chunk extension',
      [admin, 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
      `2;${'e'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`,
    ],
    [
      'chunked body over the limit',
      [admin, 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
      `${(70_000).toString(16)}\r\n${'a'.repeat(70_000)}\r\n0\r\n\r\n`,
    ],
    [
      'declared over the limit',
      [admin, 'Content-Type: application/json', `Content-Length: ${10 * 1024 * 1024}`],
      '{"label":"',
    ],
    [
      'declared over the limit, no body',
      [admin, 'Content-Type: application/json', 'Content-Length: 65537'],
      '',
    ],
    [
      'body longer than declared',
      [admin, 'Content-Type: application/json', 'Content-Length: 2'],
      '[]{"more":"junk"}',
    ],
    [
      'pipelined',
      [admin, 'Content-Type: application/json', 'Content-Length: 2'],
      `[]GET ${keyless} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    ],
  ];
  for (const [label, headers, body] of framing) {
    for (const path of [`${ADMIN}/operators`, `${ADMIN}/providers/prov_b/switch`, `${ADMIN}/master-keys`]) {
      const method = path.endsWith('/switch') ? 'PUT' : 'POST';
      // Every body here is broken or not an object (`[]`), so no route accepts it.
      cases.push({
        label: `framing ${label}: ${method} ${path}`,
        via: 'raw',
        bytes: rawRequest(`${method} ${path} HTTP/1.1`, headers, body, label !== 'pipelined'),
      });
    }
  }
  for (const size of [5 * 1024 * 1024 + 1, 6 * 1024 * 1024]) {
    cases.push({
      label: `artwork over 5 MiB (${size})`,
      via: 'raw',
      bytes: rawRequest(
        `PUT ${ADMIN}/games/${SLOT}/artwork HTTP/1.1`,
        [admin, `Content-Length: ${size}`],
        Buffer.alloc(size, 0x61),
        false,
      ),
    });
  }
  return cases;
}

/** Bytes of a raw request: request line, Host, the given header lines, Connection: close, body. */
function rawRequest(line: string, headers: string[] = [], body: string | Buffer = '', close = true): Buffer {
  const head = [line, 'Host: 127.0.0.1', ...headers, ...(close ? ['Connection: close'] : [])].join('\r\n');
  return Buffer.concat([
    Buffer.from(`${head}\r\n\r\n`, 'latin1'),
    Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
  ]);
}

/**
 * Guarantees at least TARGET_REQUESTS: should the systematic plan shrink below it, randomly chosen
 * http cases are sent again with a hostile x-request-id and Accept header.
 */
function fill(cases: Case[]): Case[] {
  const httpCases = cases.filter((c) => c.via === 'http');
  const out = [...cases];
  while (out.length < TARGET_REQUESTS) {
    const c = pick(httpCases);
    // The same broken request once more, with a hostile request id and accept headers added.
    out.push({
      ...c,
      label: `again: ${c.label}`,
      headers: {
        ...c.headers,
        'x-request-id': encodeHostile(hostileText(20)).slice(0, 200),
        accept: pick(['*/*', 'text/html', 'image/*', '']),
      },
    });
  }
  return out;
}

async function snapshot(): Promise<string> {
  const { rows } = await db.pool.query(`SELECT
      (SELECT md5(coalesce(string_agg(o::text, '|' ORDER BY operator_id), '')) FROM operators o) AS operators,
      (SELECT md5(coalesce(string_agg(key_id || ':' || coalesce(revoked_at::text, '-'), '|' ORDER BY key_id), '')) FROM api_keys) AS keys,
      (SELECT md5(coalesce(string_agg(g::text, '|' ORDER BY operator_id, symbol), '')) FROM operator_games g) AS assignments,
      (SELECT md5(coalesce(string_agg(r::text, '|' ORDER BY symbol, registry_version), '')) FROM release_registry r) AS registry,
      (SELECT md5(coalesce(string_agg(symbol || format || md5(bytes), '|' ORDER BY symbol, format), '')) FROM game_artwork) AS artwork,
      (SELECT md5(coalesce(string_agg(s::text, '|' ORDER BY provider_id), '')) FROM provider_switches s) AS switches,
      (SELECT md5(coalesce(string_agg(symbol || enabled || operator_wallet_enabled, '|' ORDER BY symbol), '')) FROM games) AS games`);
  return JSON.stringify(rows[0]);
}

test(`thousands of malformed requests: only 4xx JSON answers, nothing stored, still serving (seed ${SEED})`, async (t) => {
  const plan = fill(generate());
  assert.ok(plan.length >= 3000, `${plan.length} requests planned`);
  const before = await snapshot();
  const failures: string[] = [];
  const statuses = new Map<string, number>();
  let unanswered = 0;
  let next = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < plan.length) {
      const c = plan[next++]!;
      const { answers, error } = c.via === 'raw' ? await sendRaw(c.bytes!) : await sendHttp(c);
      if (answers.length === 0) unanswered++;
      for (const a of answers) {
        const key = `${a.status}${a.headers['x-request-id'] === undefined ? ' (node)' : ''}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
      for (const p of problems(c, answers, error)) failures.push(`[${c.via}] ${c.label}: ${p}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const ms = Date.now() - started;
  const sorted = [...statuses.entries()].sort().map(([s, n]) => `${s}: ${n}`);
  t.diagnostic(
    `${plan.length} hostile requests (${plan.filter((c) => c.via === 'raw').length} raw TCP) in ${ms} ms, seed ${SEED}; ${unanswered} dropped by Node; ${sorted.join(', ')}`,
  );

  const unhandled = logged.filter((l) => l.msg === 'unhandled error');
  assert.deepEqual(
    failures.slice(0, 25),
    [],
    `seed ${SEED}: ${failures.length} bad answers (rerun with BAD_INPUT_SEED=${SEED})`,
  );
  assert.deepEqual(
    unhandled.slice(0, 5).map((l) => JSON.stringify(l.fields).slice(0, 400)),
    [],
    `seed ${SEED}: ${unhandled.length} requests reached the unhandled-error path`,
  );
  assert.equal(await snapshot(), before, `seed ${SEED}: a hostile request changed stored state`);

  // The service keeps serving.
  agent.destroy();
  assert.equal((await call(base, 'GET', '/health')).status, 200);
  const catalog = await call(base, 'GET', '/api/provider/v1/games', { key: opKey, sign: true });
  assert.equal(catalog.status, 200);
  assert.ok(catalog.json.data.items.some((g: { symbol: string }) => g.symbol === SLOT));
  const admin = await call(base, 'GET', `${ADMIN}/operators/op_storm`, { key: ADMIN_KEY, sign: true });
  assert.equal(admin.status, 200);
  const art = await fetch(`${base}/api/provider/v1/game-art/${SLOT}`);
  assert.equal(art.status, 200);
});
