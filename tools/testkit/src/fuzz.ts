import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { OpenApiDocument } from '@opi/api/openapi/document';
import { CATALOG } from '@opi/games';
import { newRequestNonce, signOperatorRequest, unixSeconds } from '@opi/signing';
import fc from 'fast-check';
import type { DocumentValidator } from './openapi.js';

/*
 * A schema-driven fuzzer of the API, shared by the fuzz test (services/api/src/openapi/fuzz.test.ts,
 * a fixed seed and number of runs per operation) and the long run (`npm run bench -- fuzz`).
 *
 * Every operation of the OpenAPI document the API serves is read from that document: its path and
 * query parameters, its JSON or byte body, whether it takes a key. Requests are generated with
 * fast-check from the documented JSON Schemas (valid values, known fixtures such as a real session
 * id so the 2xx paths are reached) and from hostile values (NUL characters, lone surrogates, huge
 * and malformed strings, numbers past int8 and 2^53, extreme RFC 3339 date-times, cursors of
 * garbage), sent over node:http exactly as generated (no URL normalisation) and signed
 * (pp-operator-v1) with the right key, or deliberately with none, a wrong one, a stale or wrong
 * signature. Every answer must be below 500 (except a documented non-error 5xx such as /ready's
 * "not ready"), carry a status the document lists for the operation, and match the documented
 * schema for that status (DocumentValidator).
 */

// ── The operations, as the document states them ──────────────────────────────────────────────

export type Schema = Record<string, any>;

export interface FuzzParam {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface FuzzOperation {
  operationId: string;
  method: string;
  template: string;
  tag: string;
  /** No key is needed (an empty security list). */
  public: boolean;
  /** Only signed requests are taken (the operator audit API). */
  signedOnly: boolean;
  params: FuzzParam[];
  body?: { kind: 'json'; schema: Schema; required: boolean } | { kind: 'bytes' };
}

function deref(doc: OpenApiDocument, node: Schema): Schema {
  let n = node;
  for (let i = 0; i < 8 && typeof n?.$ref === 'string'; i++) {
    const parts = (n.$ref as string).replace(/^#\//, '').split('/');
    n = parts.reduce<any>((o, p) => o?.[p.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
  }
  return n ?? {};
}

/** Every operation of the document (paths × methods). */
export function fuzzOperations(doc: OpenApiDocument): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const op = raw as Schema;
      const security = (op.security as Schema[] | undefined) ?? [];
      const params: FuzzParam[] = ((op.parameters as Schema[] | undefined) ?? []).map((p) => {
        const x = deref(doc, p);
        return { name: x.name, in: x.in, required: x.required === true, schema: x.schema ?? {} };
      });
      const content = deref(doc, op.requestBody ?? {}).content as Schema | undefined;
      const json = content?.['application/json'];
      const body: FuzzOperation['body'] = json
        ? { kind: 'json', schema: json.schema, required: op.requestBody.required === true }
        : content?.['application/octet-stream']
          ? { kind: 'bytes' }
          : undefined;
      out.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        tag: (op.tags as string[])[0] ?? '',
        public: security.length === 0,
        signedOnly: security.length > 0 && security.every((s) => 'RequestSignature' in s),
        params,
        ...(body ? { body } : {}),
      });
    }
  }
  return out;
}

// ── Fixtures: real records, so generated requests reach the 2xx paths too ─────────────────────

export interface FuzzCredentials {
  /** The fuzzer's operator and its key (never deactivated, never revoked by the fuzzer). */
  operatorId: string;
  operatorKey: string;
  /** A provider master key (must name an operator). */
  masterKey: string;
  /** A provider-admin key. */
  adminKey: string;
}

export interface FuzzFixtures extends FuzzCredentials {
  /**
   * Known values of parameters and body fields, looked up as `operationId.in.name`, then
   * `in.name`, then `name` (`in` is path, query, header or body).
   */
  values: Record<string, unknown[]>;
}

function fixtureValues(f: FuzzFixtures, operationId: string, where: string, name: string): unknown[] {
  return f.values[`${operationId}.${where}.${name}`] ?? f.values[`${where}.${name}`] ?? f.values[name] ?? [];
}

// ── Hostile values ───────────────────────────────────────────────────────────────────────────

/** Strings PostgreSQL, JSON, URLs or the contract may choke on. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ufeff',
  '\u202eevil',
  '\u200b',
  '\uffff',
  '😀'.repeat(70),
  'x'.repeat(65),
  'x'.repeat(201),
  'x'.repeat(300),
  'x'.repeat(2049),
  'é'.repeat(1000),
  "' OR 1=1 --",
  '"; DROP TABLE rounds; --',
  '../../etc/passwd',
  '%00',
  '%ED%A0%80',
  '\r\nX-Injected: 1',
  '<script>alert(1)</script>',
  '{"$gt":""}',
  '__proto__',
  'constructor',
  'null',
  'true',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '-0',
  '1e400',
  '0x10',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '99999999999999999999999',
  '2026-01-17T11:27:59+18:06',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-15:59',
  '+275760-09-13T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '1969-12-31T23:59:59Z',
  'eur',
  'EURO',
  'javascript:alert(1)',
  'http://',
  'https://user:pw@wallet.example/',
  'ftp://wallet.example/x',
];

/** Every UTF-16 code unit, lone surrogates and controls included. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: anyUnit, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 60, maxLength: 600 }) },
);

/** `RAW:<literal>`: spliced into the JSON text as is (numbers JSON.stringify cannot write). */
const RAW_LITERALS = [
  'RAW:1e400',
  'RAW:-1e400',
  'RAW:-0',
  'RAW:1.0',
  'RAW:123456789012345678901234567890',
  'RAW:9223372036854775808',
  'RAW:-9223372036854775809',
  'RAW:9007199254740993',
  'RAW:0.1e-400',
];

export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.constantFrom(...RAW_LITERALS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      -1,
      1.5,
      2 ** 53 + 2,
      -(2 ** 63),
      2 ** 63,
      1e308,
      [],
      [null],
      {},
      { $gt: '' },
      ['EUR', 1],
    ),
  },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 3 }) },
);

/** `arb` about once in `every` draws, else undefined. */
export function sometimes<T>(arb: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> {
  return fc.oneof(
    { weight: every - 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: arb as fc.Arbitrary<T | undefined> },
  );
}

// ── Valid values from the documented schemas ───────────────────────────────────────────────────

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/**
 * RFC 3339 date-times as the document's `format: date-time` allows: offsets up to ±23:59, years
 * 0000 to 9999, fractions of any length. Half are near now, half at the edges (year 0000 to 0100,
 * 9900 to 9999, offsets past PostgreSQL's ±15:59).
 */
export const dateTime: fc.Arbitrary<string> = fc
  .record({
    year: fc.oneof(
      { weight: 2, arbitrary: fc.integer({ min: 2020, max: 2030 }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 100 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1965, max: 1975 }) },
      { weight: 1, arbitrary: fc.integer({ min: 9990, max: 9999 }) },
    ),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,12}$/), { nil: undefined }),
    offset: fc.oneof(
      fc.constant('Z'),
      fc
        .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
        .map(([s, h, m]) => `${s}${pad(h, 2)}:${pad(m, 2)}`),
    ),
  })
  .map(
    (d) =>
      `${pad(d.year, 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}T${pad(d.hour, 2)}:${pad(d.minute, 2)}:${pad(d.second, 2)}` +
      `${d.fraction ? `.${d.fraction}` : ''}${d.offset}`,
  );

/** Keyset cursors: this API's form (microseconds|id) with instants in and far out of range. */
const cursorLike: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      fc.bigInt({ min: 0n, max: 253_402_300_799_999_999n }),
      fc.bigInt({ min: 0n, max: 10n ** 19n }),
      fc.constantFrom(9_223_372_036_854_775_807n, 9_999_999_999_999_999_999n, -1n),
    ),
    fc.oneof(fc.constantFrom('r_x', 't_x', 's_x'), hostileString),
  )
  .map(([micros, id]) => Buffer.from(`${micros}|${id}`, 'utf8').toString('base64url'));

/** Numbers at the edges of int8, 2^53 and double precision (valid JSON numbers all). */
const NUMBER_EDGES = [
  5e-324,
  1e-9,
  0.001,
  2 ** 31,
  2 ** 53 - 1,
  2 ** 53 + 2,
  1e15,
  1e17,
  2 ** 63,
  9.3e18,
  1e19,
  1e20,
  1e21,
  1e300,
];

/** A value the schema accepts (best effort: enough to reach the handlers' 2xx paths). */
export function fromSchema(doc: OpenApiDocument, node: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(doc, node);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (branches && !s.type) return fc.oneof(...branches.map((b) => fromSchema(doc, b, depth + 1)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string': {
      const max = Math.min(s.maxLength ?? 40, 80);
      const min = Math.min(s.minLength ?? 0, max);
      if (s.format === 'date-time') return dateTime;
      if (s.format === 'uri')
        return fc.oneof(fc.webUrl(), fc.constantFrom('https://lobby.example/return', 'http://127.0.0.1/x'));
      if (typeof s.pattern === 'string') {
        return fc
          .stringMatching(new RegExp(s.pattern), { size: 'xsmall' })
          .filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? 1e9));
      }
      return fc.string({ unit: 'grapheme', minLength: min, maxLength: max });
    }
    case 'integer': {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : -1_000_000);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1_000_000);
      return fc.integer({ min, max });
    }
    case 'number': {
      // Mostly ordinary magnitudes; where the schema sets no maximum, also huge ones (past int8
      // and 2^53 once scaled to minor units).
      const min = s.minimum ?? s.exclusiveMinimum ?? -1e6;
      const bounded = (max: number) =>
        fc.double({
          min,
          max,
          noNaN: true,
          noDefaultInfinity: true,
          minExcluded: s.exclusiveMinimum !== undefined,
        });
      if (s.maximum !== undefined) return bounded(s.maximum);
      return fc.oneof(
        { weight: 6, arbitrary: bounded(1e6) },
        { weight: 1, arbitrary: bounded(1e300) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            ...NUMBER_EDGES.filter((n) => n > min || (n === min && s.minimum !== undefined)),
          ),
        },
      );
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (depth > 4) return fc.constant([]);
      return fc.array(fromSchema(doc, s.items ?? {}, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 4, 4)),
      });
    }
    case 'object': {
      if (depth > 4) return fc.constant({});
      const props = (s.properties ?? {}) as Record<string, Schema>;
      if (!Object.keys(props).length && s.additionalProperties && typeof s.additionalProperties === 'object')
        return recordOf(doc, s, fromSchema(doc, s.additionalProperties, depth + 1));
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = fromSchema(doc, v, depth + 1);
      return fc.record(model, { requiredKeys: (s.required as string[] | undefined) ?? [] });
    }
    default:
      return fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
  }
}

/**
 * A map (`additionalProperties`, e.g. per currency) of one or two entries: keys mostly currencies
 * the fixtures know, else what `propertyNames` allows.
 */
function recordOf(doc: OpenApiDocument, s: Schema, value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const names = s.propertyNames ? fromSchema(doc, s.propertyNames) : fc.string({ maxLength: 8 });
  const key = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('EUR', 'USD') as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: names },
  );
  return fc
    .array(fc.tuple(key.map(String), value), { minLength: 1, maxLength: 2 })
    .map((entries) => Object.fromEntries(entries));
}

/** Every path into a JSON value (the value itself first), in a fixed order. */
function pathsOf(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(at);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) pathsOf(v, [...at, i], out);
  } else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  return out;
}

/** A deep copy of `value` with the node at `path` replaced by `by`. */
function replaceAt(value: unknown, path: (string | number)[], by: unknown): unknown {
  if (!path.length) return by;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, by) : v));
  const o = value as Record<string, unknown>;
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, k === head ? replaceAt(v, rest, by) : v]));
}

/**
 * A valid value (a fixture, or one from the schema) with exactly one node inside it replaced by a
 * hostile value: everything else passes, so the one bad field meets whatever runs after the
 * field-level checks (refinements, handlers, statements).
 */
export function mutatedOnce(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const bad = fc.oneof(
    { weight: 3, arbitrary: hostileString as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: hostileJson },
  );
  return fc.tuple(base, fc.nat(), bad).map(([v, i, b]) => {
    const paths = pathsOf(v);
    return replaceAt(v, paths[i % paths.length]!, b);
  });
}

/**
 * A value shaped like the schema with hostile values anywhere inside it (issue 34: a hostile value
 * only at a body's top level never reached `levels[0].currencies.EUR.cap_minor`, where "AAA" was a
 * 500). At each node: mostly the schema's shape with hostile children, sometimes any hostile JSON.
 */
export function hostileFromSchema(doc: OpenApiDocument, node: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(doc, node);
  if (depth > 5) return hostileJson;
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  let shaped: fc.Arbitrary<unknown>;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (branches && !s.type) shaped = fc.oneof(...branches.map((b) => hostileFromSchema(doc, b, depth + 1)));
  else if (type === 'object') {
    const props = (s.properties ?? {}) as Record<string, Schema>;
    if (!Object.keys(props).length && s.additionalProperties && typeof s.additionalProperties === 'object') {
      shaped = recordOf(doc, s, hostileFromSchema(doc, s.additionalProperties, depth + 1));
    } else {
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props))
        model[k] = fc.oneof(
          { weight: 3, arbitrary: fromSchema(doc, v, depth + 1) },
          { weight: 2, arbitrary: hostileFromSchema(doc, v, depth + 1) },
        );
      shaped = fc.record(model, { requiredKeys: (s.required as string[] | undefined) ?? [] });
    }
  } else if (type === 'array') {
    shaped = fc.array(hostileFromSchema(doc, s.items ?? {}, depth + 1), {
      minLength: Math.min(s.minItems ?? 0, 2),
      maxLength: Math.max(Math.min(s.minItems ?? 0, 2), Math.min(s.maxItems ?? 3, 3)),
    });
  } else shaped = fromSchema(doc, s, depth);
  return fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 2, arbitrary: hostileJson });
}

// ── Requests ───────────────────────────────────────────────────────────────────────────────────

export type AuthMode = 'right' | 'none' | 'wrong-key' | 'master' | 'unsigned' | 'bad-signature' | 'stale';

export interface FuzzRequest {
  operationId: string;
  method: string;
  /** Path and query exactly as sent (and signed). */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The JSON value of the body when it parses (for the document's request-body check). */
  requestJson?: unknown;
  auth: AuthMode;
  /** The key sent (and signing) as `auth` says; none for public operations. */
  key?: string;
}

/** Percent-encodes all but the unreserved bytes; a lone surrogate goes out as the bytes %ED%A0%80. */
export function encodeComponent(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += '%ED%A0%80';
      continue;
    }
    for (const b of Buffer.from(ch, 'utf8')) {
      const c = String.fromCharCode(b);
      out += /[A-Za-z0-9_~-]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

/** JSON text with `RAW:<literal>` strings replaced by the literal. */
export function serialiseJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v) => {
    if (typeof v === 'string' && v.startsWith('RAW:')) {
      raws.push(v.slice(4));
      return `__RAW_${raws.length - 1}__`;
    }
    return v;
  });
  return (text ?? 'null').replace(/"__RAW_(\d+)__"/g, (_m, i: string) => raws[Number(i)]!);
}

/**
 * A value for one field: mostly a fixture or a schema-valid value; in a hostile request also a
 * hostile value (a body field any JSON, a parameter any text) or a forged cursor.
 */
function fieldValue(
  doc: OpenApiDocument,
  f: FuzzFixtures,
  operationId: string,
  where: string,
  name: string,
  schema: Schema,
  hostile: boolean,
): fc.Arbitrary<unknown> {
  const known = fixtureValues(f, operationId, where, name);
  const s = deref(doc, schema);
  return fc.oneof(
    ...(known.length
      ? [{ weight: hostile ? 6 : 8, arbitrary: fc.constantFrom(...known) as fc.Arbitrary<unknown> }]
      : []),
    { weight: 3, arbitrary: fromSchema(doc, s) },
    ...(hostile && name === 'cursor' ? [{ weight: 2, arbitrary: cursorLike as fc.Arbitrary<unknown> }] : []),
    ...(hostile ? [{ weight: 2, arbitrary: where === 'body' ? hostileJson : hostileString }] : []),
    // A nested body field (an object or an array): hostile values inside it too, anywhere, and a
    // valid one with exactly one node hostile (issue 34: `levels[0].currencies.EUR.cap_minor`).
    ...(hostile && where === 'body' && (s.type === 'object' || s.type === 'array' || s.anyOf)
      ? [
          { weight: 2, arbitrary: hostileFromSchema(doc, s) },
          {
            weight: 8,
            arbitrary: mutatedOnce(
              known.length
                ? fc.oneof(fc.constantFrom(...known), fromSchema(doc, s))
                : (fromSchema(doc, s) as fc.Arbitrary<unknown>),
            ),
          },
        ]
      : []),
  );
}

/**
 * Parameters sent now and then only: naming an operator (query or header) with an operator key is
 * 403 unless it is the key's own, which would hide every other answer of the operation.
 */
const RARE_PARAMS = new Set(['operator_id', 'x-operator-id', 'traceparent', 'x-request-id']);

/** A query or path value as text (numbers and booleans as JSON writes them). */
const asText = (v: unknown): string =>
  typeof v === 'string' ? (v.startsWith('RAW:') ? v.slice(4) : v) : v === undefined ? '' : JSON.stringify(v);

/** Header values Node will send (visible Latin-1 and tab; no CR, LF or NUL). */
const headerSafe = (v: string) => v.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

function jsonBody(
  doc: OpenApiDocument,
  f: FuzzFixtures,
  op: FuzzOperation,
  schema: Schema,
  hostile: boolean,
): fc.Arbitrary<{ text: string; contentType: string } | undefined> {
  const s = deref(doc, schema);
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, v] of Object.entries(props))
    model[k] = fieldValue(doc, f, op.operationId, 'body', k, v, hostile);
  if (!hostile) {
    return fc
      .record(model, { requiredKeys: [...required] })
      .map((o) => ({ text: serialiseJson(o), contentType: 'application/json' }));
  }
  const object = fc
    .tuple(
      fc.record(model, { requiredKeys: [...required] }),
      // Occasionally a required field dropped, or an unknown one added.
      sometimes(fc.constantFrom(...(required.size ? [...required] : ['-'])), 12),
      sometimes(
        fc.tuple(fc.constantFrom('colour', '__proto__', 'constructor', 'x'.repeat(300)), hostileJson),
        10,
      ),
    )
    .map(([o, drop, extra]) => {
      const out: Record<string, unknown> = { ...o };
      if (drop) delete out[drop];
      if (extra) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true });
      return { text: serialiseJson(out), contentType: 'application/json' };
    });
  const whole = fc.oneof(
    fc.constantFrom(
      { text: '{', contentType: 'application/json' },
      { text: '{"a":1,}', contentType: 'application/json' },
      { text: 'null', contentType: 'application/json' },
      { text: '[]', contentType: 'application/json' },
      { text: '"text"', contentType: 'application/json' },
      { text: '1e400', contentType: 'application/json' },
      { text: '{"a":1}', contentType: 'text/plain' },
      { text: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' },
      { text: '{"__proto__":{"admin":true}}', contentType: 'application/json' },
      { text: `{"x":"${'y'.repeat(70 * 1024)}"}`, contentType: 'application/json' },
      { text: `${'['.repeat(5000)}${']'.repeat(5000)}`, contentType: 'application/json' },
      { text: '{"a":"\\u0000"}', contentType: 'application/json; charset=utf-8' },
      { text: '\xff\xfe{}', contentType: 'application/json' },
    ),
    hostileJson.map((v) => ({ text: serialiseJson(v), contentType: 'application/json' })),
  );
  return fc.oneof(
    { weight: 10, arbitrary: object },
    { weight: 2, arbitrary: whole },
    {
      weight: op.body && 'required' in op.body && op.body.required ? 1 : 2,
      arbitrary: fc.constant(undefined),
    },
  );
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const imageBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.concat([PNG, Buffer.from(b)])),
  fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b)),
  fc.constantFrom(
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>'),
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    Buffer.from('<svg onload="x()"/>'),
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0]),
    Buffer.from('RIFF\x04\x00\x00\x00WEBPVP8L', 'latin1'),
    Buffer.alloc(0),
  ),
);

/**
 * Generated requests for one operation: three in five well-formed (fixtures and schema-valid
 * values, the right key), the rest hostile (hostile values in any field, bodies that are not the
 * documented object, unknown parameters, missing, wrong or badly signed keys).
 */
export function requestArbitrary(
  doc: OpenApiDocument,
  f: FuzzFixtures,
  op: FuzzOperation,
): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 3, arbitrary: requestsOf(doc, f, op, false) },
    { weight: 2, arbitrary: requestsOf(doc, f, op, true) },
  );
}

function requestsOf(
  doc: OpenApiDocument,
  f: FuzzFixtures,
  op: FuzzOperation,
  hostile: boolean,
): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const headerParams = op.params.filter((p) => p.in === 'header');
  const value = (p: FuzzParam) => fieldValue(doc, f, op.operationId, p.in, p.name, p.schema, hostile);

  // Path values are never empty or dot segments (the router would not reach the operation).
  const pathArb = fc.record(
    Object.fromEntries(
      pathParams.map((p) => [
        p.name,
        value(p).map((v) => {
          const t = asText(v);
          return t === '' || /^\.+$/.test(t) ? `x${t}` : t;
        }),
      ]),
    ),
  );
  const queryArb = fc.tuple(
    fc.tuple(
      ...queryParams.map((p) =>
        // A required parameter is left out once in 20 requests (hostile ones only), an optional
        // one every other time, a rare one four times in five.
        p.required
          ? hostile
            ? fc.option(value(p).map(asText), { freq: 20, nil: undefined })
            : value(p).map(asText)
          : sometimes(value(p).map(asText), RARE_PARAMS.has(p.name) ? 5 : 2),
      ),
    ),
    // Now and then a parameter the operation does not know, or one given twice.
    hostile
      ? sometimes(
          fc.tuple(fc.constantFrom('colour', 'limit', 'from', 'cursor', 'operator_id', '%00'), hostileString),
          6,
        )
      : fc.constant(undefined),
  );
  const headerArb = fc.tuple(...headerParams.map((p) => sometimes(value(p).map(asText), 6)));
  const bodyArb: fc.Arbitrary<{ bytes: Buffer; contentType: string; json?: unknown } | undefined> = !op.body
    ? fc.constant(undefined)
    : op.body.kind === 'bytes'
      ? imageBody.map((bytes) => ({ bytes, contentType: 'application/octet-stream' }))
      : jsonBody(doc, f, op, op.body.schema, hostile).map((b) => {
          if (!b) return undefined;
          let json: unknown;
          try {
            json = JSON.parse(b.text);
          } catch {}
          return {
            bytes: Buffer.from(b.text, 'utf8'),
            contentType: b.contentType,
            ...(json !== undefined ? { json } : {}),
          };
        });
  const authArb: fc.Arbitrary<AuthMode> =
    op.public || !hostile
      ? fc.constant(op.public ? 'none' : 'right')
      : fc.oneof(
          { weight: 6, arbitrary: fc.constant<AuthMode>('right') },
          {
            weight: 1,
            arbitrary: fc.constantFrom<AuthMode>(
              'none',
              'wrong-key',
              'master',
              'unsigned',
              'bad-signature',
              'stale',
            ),
          },
        );

  return fc
    .record({ path: pathArb, query: queryArb, headers: headerArb, body: bodyArb, auth: authArb })
    .map(({ path, query, headers, body, auth }) => {
      let url = op.template.replace(/\{([^}]+)\}/g, (_m, name: string) =>
        encodeComponent((path as Record<string, string>)[name] ?? 'x'),
      );
      const [values, extra] = query;
      const pairs: string[] = [];
      queryParams.forEach((p, i) => {
        const v = values[i];
        if (v !== undefined) pairs.push(`${encodeComponent(p.name)}=${encodeComponent(v)}`);
      });
      if (extra) pairs.push(`${extra[0]}=${encodeComponent(extra[1])}`);
      if (pairs.length) url += `?${pairs.join('&')}`;
      const h: Record<string, string> = {};
      headerParams.forEach((p, i) => {
        const v = headers[i];
        if (v !== undefined) h[p.name] = headerSafe(v);
      });
      if (body) h['content-type'] = body.contentType;
      const admin = op.tag.startsWith('Provider admin');
      const key =
        auth === 'none'
          ? undefined
          : auth === 'wrong-key'
            ? admin
              ? f.operatorKey
              : f.adminKey
            : auth === 'master'
              ? f.masterKey
              : admin
                ? f.adminKey
                : f.operatorKey;
      return {
        operationId: op.operationId,
        method: op.method,
        url,
        headers: h,
        ...(body ? { body: body.bytes } : {}),
        ...(body && 'json' in body ? { requestJson: body.json } : {}),
        auth,
        ...(key ? { key } : {}),
      };
    });
}

/**
 * The headers of the key and its signature (pp-operator-v1) as the auth mode says, made when the
 * request is sent (nonces are single use, timestamps must be recent).
 */
function authHeaders(req: FuzzRequest): Record<string, string> {
  if (!req.key) return {};
  const h: Record<string, string> = { 'x-provider-api-key': req.key };
  if (req.auth === 'unsigned') return h;
  const timestamp = req.auth === 'stale' ? String(Number(unixSeconds()) - 3600) : unixSeconds();
  const nonce = newRequestNonce();
  const signature = signOperatorRequest(req.auth === 'bad-signature' ? `${req.key}x` : req.key, {
    timestamp,
    nonce,
    method: req.method,
    pathAndQuery: req.url,
    body: req.body ?? '',
  });
  return { ...h, 'x-pp-timestamp': timestamp, 'x-pp-nonce': nonce, 'x-pp-signature': signature };
}

// ── Sending and judging ───────────────────────────────────────────────────────────────────────

export interface FuzzAnswer {
  status: number;
  contentType: string | null;
  text: string;
  json?: unknown;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** Sends the request as generated (path bytes untouched, body framed with Content-Length). */
export function send(base: string, req: FuzzRequest, timeoutMs = 30_000): Promise<FuzzAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const out = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.url,
        agent,
        timeout: timeoutMs,
        headers: {
          ...req.headers,
          ...authHeaders(req),
          ...(req.body ? { 'content-length': String(req.body.length) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const contentType = res.headers['content-type'] ?? null;
          let json: unknown;
          if (contentType?.startsWith('application/json')) {
            try {
              json = JSON.parse(text);
            } catch {}
          }
          resolve({
            status: res.statusCode ?? 0,
            contentType,
            text,
            ...(json !== undefined ? { json } : {}),
          });
        });
      },
    );
    out.on('timeout', () => out.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    out.on('error', reject);
    out.end(req.body);
  });
}

/**
 * What is wrong with an answer: a 5xx (unless the document lists that status with a body other
 * than the error envelope: /ready's "not ready"), a status the document does not list, a body
 * that does not match the documented schema. Empty when it is fine.
 */
export function judge(
  doc: OpenApiDocument,
  validator: DocumentValidator,
  op: FuzzOperation,
  req: FuzzRequest,
  res: FuzzAnswer,
): string[] {
  const problems: string[] = [];
  const documented = (doc.paths[op.template]?.[op.method.toLowerCase()]?.responses as Schema | undefined)?.[
    String(res.status)
  ];
  const ref = documented?.content?.['application/json']?.schema?.$ref as string | undefined;
  if (res.status >= 500 && (!documented || !ref || ref.endsWith('/ServiceErrorResponse'))) {
    problems.push(`a ${res.status}: ${res.text.slice(0, 200)}`);
  }
  try {
    validator.check({
      method: req.method,
      url: req.url,
      status: res.status,
      contentType: res.contentType,
      ...(res.json !== undefined ? { json: res.json } : {}),
      text: res.text,
      ...(req.requestJson !== undefined && typeof req.requestJson === 'object' && req.requestJson !== null
        ? { requestJson: req.requestJson }
        : {}),
    });
  } catch (err) {
    problems.push((err as Error).message.split('\n').slice(0, 6).join('\n'));
  }
  return problems;
}

export interface FuzzFailure {
  operationId: string;
  request: string;
  status: number;
  problems: string[];
}

export interface FuzzStats {
  /** Requests per operation. */
  perOperation: Map<string, number>;
  /** Answers per status, over all operations. */
  statuses: Map<number, number>;
  /** Answers per `operationId status`. */
  perOperationStatus: Map<string, number>;
  failures: FuzzFailure[];
  total: number;
  /** The first answer of each `operationId status` (request and body), for a look at what was reached. */
  samples: string[];
}

export function newStats(): FuzzStats {
  return {
    perOperation: new Map(),
    statuses: new Map(),
    perOperationStatus: new Map(),
    failures: [],
    total: 0,
    samples: [],
  };
}

const bump = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);

/** A short, printable description of a request (for failure reports). */
export function describeRequest(req: FuzzRequest): string {
  const body = req.body
    ? ` body(${req.body.length} B): ${JSON.stringify(req.body.toString('utf8').slice(0, 160))}`
    : '';
  return `${req.method} ${req.url.slice(0, 300)} [auth ${req.auth}]${body}`;
}

/**
 * Generates `runs` requests of one operation from `seed`, sends them `concurrency` at a time and
 * records every answer (and every problem) in `stats`.
 */
export async function fuzzOperation(opts: {
  base: string;
  doc: OpenApiDocument;
  validator: DocumentValidator;
  fixtures: FuzzFixtures;
  op: FuzzOperation;
  seed: number;
  runs: number;
  concurrency?: number;
  stats: FuzzStats;
}): Promise<void> {
  const { base, doc, validator, fixtures, op, stats } = opts;
  const requests = fc.sample(requestArbitrary(doc, fixtures, op), { seed: opts.seed, numRuns: opts.runs });
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const req = requests[next++]!;
      let res: FuzzAnswer;
      try {
        res = await send(base, req);
      } catch (err) {
        res = { status: 0, contentType: null, text: `no answer: ${(err as Error).message}` };
      }
      stats.total++;
      bump(stats.perOperation, op.operationId);
      bump(stats.statuses, res.status);
      const key = `${op.operationId} ${res.status}`;
      if (!stats.perOperationStatus.has(key) && stats.samples.length < 400)
        stats.samples.push(`${key}: ${describeRequest(req)} → ${res.text.slice(0, 200)}`);
      bump(stats.perOperationStatus, key);
      const problems = res.status === 0 ? [res.text] : judge(doc, validator, op, req, res);
      if (problems.length) {
        stats.failures.push({
          operationId: op.operationId,
          request: describeRequest(req),
          status: res.status,
          problems,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
}

/** The failures, grouped and readable (at most `max` of them). */
export function formatFailures(failures: FuzzFailure[], max = 20): string {
  const lines: string[] = [];
  for (const f of failures.slice(0, max)) {
    lines.push(`${f.operationId} → ${f.status}: ${f.request}`);
    for (const p of f.problems) lines.push(`    ${p.replaceAll('\n', '\n    ')}`);
  }
  if (failures.length > max) lines.push(`… and ${failures.length - max} more`);
  return lines.join('\n');
}

/** The status histogram as one line (`200: 812, 401: 40, ...`). */
export function formatHistogram(statuses: Map<number, number>): string {
  return [...statuses.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
}

// ── The world the fuzzer needs (through the API itself, plus two journalled rounds) ─────────────

async function adminCall(base: string, adminKey: string, method: string, path: string, body?: unknown) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const timestamp = unixSeconds();
  const nonce = newRequestNonce();
  const res = await fetch(base + path, {
    method,
    headers: {
      'x-provider-api-key': adminKey,
      'x-pp-timestamp': timestamp,
      'x-pp-nonce': nonce,
      'x-pp-signature': signOperatorRequest(adminKey, {
        timestamp,
        nonce,
        method,
        pathAndQuery: path,
        body: raw,
      }),
      ...(raw ? { 'content-type': 'application/json' } : {}),
    },
    ...(raw ? { body: raw } : {}),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function operatorCall(base: string, key: string, method: string, path: string, body?: unknown) {
  return adminCall(base, key, method, path, body);
}

/** The parts of a database the fixtures need (a pg Pool fits). */
export interface FuzzPool {
  query(sql: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

/**
 * Creates the fuzzer's world through the admin API: its operator (`op_fz_main`, never deactivated
 * nor its key revoked by the fuzzer), another operator (for 403s), a victim operator, title and
 * staff account that the admin operations may change at will, a master key, sessions of a slot
 * and a native title, and (with `pool`) two journalled rounds so the audit reads answer 200.
 *
 * Deliberate limits of what the fuzzer may touch (so that it keeps testing rather than locking
 * itself out): admin writes name only the victim operator, titles not assigned to the fuzzer's
 * operator, provider families it does not play (prov_b, prov_d) and the victim staff account; the
 * key revocation names the admin key itself (409) or unknown ids, never the fuzzer's keys.
 */
export async function prepareFuzzWorld(opts: {
  base: string;
  adminKey: string;
  pool?: FuzzPool;
  /** Distinguishes repeated worlds in one database. */
  tag?: string;
}): Promise<FuzzFixtures> {
  const { base, adminKey } = opts;
  const tag = opts.tag ?? randomBytes(3).toString('hex');
  const main = `op_fz_${tag}`;
  const other = `op_fz_${tag}_other`;
  const victim = `op_fz_${tag}_victim`;
  const wallet = (e: (typeof CATALOG)[number]) => e.integration_mode === 'operator-wallet';
  const slots = CATALOG.filter(
    (e) => e.provider_id === 'prov_a' && e.release.status === 'accepted' && wallet(e),
  );
  const slot = slots[0]!;
  const victimSlot = slots[1] ?? slot;
  const natives = CATALOG.filter((e) => e.provider_id === 'prov_c' && wallet(e));
  const mines = natives.find((e) => e.symbol === 'cnmines') ?? natives[0]!;
  const victimNative = natives.find((e) => e.symbol !== mines.symbol) ?? mines;
  const prov4 = CATALOG.find((e) => e.provider_id === 'prov_d');

  const create = async (id: string) => {
    await adminCall(base, adminKey, 'POST', '/api/admin/v1/operators', {
      operator_id: id,
      name: `Fuzz ${id}`,
      default_currency: 'EUR',
      allowed_currencies: ['EUR', 'USD'],
      wallet_base_url: 'https://wallet.fuzz.test/wallet',
    });
    const key = await adminCall(base, adminKey, 'POST', `/api/admin/v1/operators/${id}/api-keys`, {});
    return key.data.api_key as string;
  };
  const operatorKey = await create(main);
  const otherKey = await create(other);
  await create(victim);
  // Keys of the victim operator the revocation may take (each once: 200, then 404).
  const victimKeys: string[] = [];
  for (let i = 0; i < 4; i++) {
    victimKeys.push(
      (await adminCall(base, adminKey, 'POST', `/api/admin/v1/operators/${victim}/api-keys`, {})).data
        .key_id as string,
    );
  }
  const masterKey = (await adminCall(base, adminKey, 'POST', '/api/admin/v1/master-keys', {})).data
    .api_key as string;
  await adminCall(base, adminKey, 'PUT', `/api/admin/v1/games/${mines.symbol}/operator-wallet`, {
    enabled: true,
  });
  for (const op of [main, other]) {
    for (const symbol of [slot.symbol, mines.symbol]) {
      await adminCall(base, adminKey, 'PUT', `/api/admin/v1/operators/${op}/games/${symbol}`, {
        enabled: true,
      });
    }
  }
  await adminCall(base, adminKey, 'PUT', `/api/admin/v1/operators/${victim}/games/${victimSlot.symbol}`, {
    enabled: true,
  });
  const player = `fz-${tag}-player`;
  const launch = async (key: string, symbol: string, ext: string) =>
    (
      await operatorCall(base, key, 'POST', '/api/provider/v1/launch-url', {
        symbol,
        external_player_id: ext,
        currency: 'EUR',
      })
    ).session_id as string;
  const slotSession = await launch(operatorKey, slot.symbol, player);
  const minesSession = await launch(operatorKey, mines.symbol, player);
  const victimSession = await launch(operatorKey, slot.symbol, `fz-${tag}-victim`);
  const otherSession = await launch(otherKey, mines.symbol, `fz-${tag}-other`);
  await adminCall(base, adminKey, 'POST', '/api/admin/v1/staff', {
    username: `fz-${tag}-victim`,
    display_name: 'Fuzz victim',
    password: 'fuzz-victim-password',
    roles: [{ operator_id: victim, role: 'viewer' }],
  });

  const rounds: string[] = [];
  const transactions: string[] = [];
  const nativeRound = `r_fz_${tag}_native`;
  if (opts.pool) {
    for (let i = 0; i < 3; i++) {
      const roundId = `r_fz_${tag}_${i}`;
      await opts.pool.query(
        `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                             bet_minor, win_minor, intent, created_at, settled_at)
         SELECT $1, operator_id, session_id, player_id, symbol, provider_id, currency, 'completed', 100, 40,
                '{}'::jsonb, now() - $2 * interval '1 second', now()
         FROM sessions WHERE session_id = $3`,
        [roundId, 10 - i, slotSession],
      );
      for (const [type, amount] of [
        ['debit', 100],
        ['credit', 40],
      ] as const) {
        const txId = `${roundId}:${type}`;
        await opts.pool.query(
          `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id,
             game_symbol, transaction_type, amount_minor, currency, status, request_body, request_hash, attempts,
             created_at, completed_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'EUR', 'success', '{}', repeat('a', 64), 1, now(), now())`,
          [txId, main, slotSession, roundId, player, slot.symbol, type, amount],
        );
        transactions.push(txId);
      }
      rounds.push(roundId);
    }
    // A native round with one stage (its history reads the stages; the intent is opaque).
    await opts.pool.query(
      `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                           bet_minor, win_minor, intent, created_at)
       SELECT $1, operator_id, session_id, player_id, symbol, provider_id, currency, 'open', 100, 0, '{}'::jsonb, now()
       FROM sessions WHERE session_id = $2`,
      [nativeRound, minesSession],
    );
    await opts.pool.query(
      `INSERT INTO round_stages (round_id, seq, action, inputs, outcome, multiplier)
       VALUES ($1, 0, 'bet', '{}', '{}', null)`,
      [nativeRound],
    );
  }
  // Promotions (issue 34: every promotion route under the fuzzer, reaching its database writes):
  // one of each to read, opt in to and cancel, and bodies that pass the schema so that generated
  // variations reach the statements. Windows are a day ahead (nothing ever runs or pays).
  const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString();
  const jackpotId = `fz-${tag}-jp`;
  const tournamentId = `fz-${tag}-tn`;
  const dropId = `fz-${tag}-pd`;
  const campaignId = `fz-${tag}-campaign`;
  const jackpotLevels = [
    [
      {
        level: 'mini',
        contribution_rate_ppm: 5000,
        currencies: { EUR: { seed_minor: 1000, cap_minor: 50_000, hit_every_minor: 200_000 } },
      },
    ],
    [
      {
        level: 'mini',
        contribution_rate_ppm: 2000,
        currencies: { EUR: { seed_minor: '100', hit_every_minor: '100000' } },
      },
      {
        level: 'mega',
        contribution_rate_ppm: 1000,
        currencies: { EUR: { seed_minor: 0, hit_every_minor: 1_000_000_000 } },
      },
    ],
  ];
  const tournamentCurrencies = [
    { EUR: { min_stake_minor: 10, prizes: [1000, 500] } },
    { USD: { min_stake_minor: '1', prizes: ['5'] } },
  ];
  const dropCurrencies = [
    { EUR: { prize_minor: 100, prizes: 10, award_every_spins: 100 } },
    { USD: { prize_minor: '5', prizes: 1, min_stake_minor: '0', award_every_spins: 1 } },
  ];
  await adminCall(base, adminKey, 'PUT', `/api/admin/v1/jackpots/${jackpotId}`, {
    name: 'Fuzz jackpot',
    scope: 'network',
    titles: [victimSlot.symbol],
    levels: jackpotLevels[0],
  });
  let tournament = false;
  try {
    // Needs Temporal (503 without): the long run's API may have none. The second is the one the
    // cancel may take (a cancelled tournament takes no opt-in: 409).
    for (const id of [tournamentId, `${tournamentId}-x`])
      await adminCall(base, adminKey, 'PUT', `/api/admin/v1/tournaments/${id}`, {
        name: 'Fuzz tournament',
        scoring: 'total_win',
        starts_at: inDays(1),
        ends_at: inDays(2),
        titles: [victimSlot.symbol],
        currencies: tournamentCurrencies[0],
      });
    tournament = true;
  } catch {}
  await adminCall(base, adminKey, 'PUT', `/api/admin/v1/prize-drops/${dropId}`, {
    name: 'Fuzz drop',
    starts_at: inDays(1),
    ends_at: inDays(2),
    titles: [victimSlot.symbol],
    currencies: dropCurrencies[0],
  });
  for (const id of [campaignId, `${campaignId}-x`])
    await operatorCall(base, operatorKey, 'POST', '/api/provider/v1/free-rounds', {
      campaign_id: id,
      symbols: [slot.symbol],
      currency: 'EUR',
      bet_minor: 100,
      rounds: 5,
      valid_from: inDays(1),
      expires_at: inDays(2),
      players: [player],
    });

  let cursor: string | undefined;
  if (rounds.length > 1) {
    const page = await operatorCall(base, operatorKey, 'GET', '/api/operator/v1/rounds?limit=1');
    cursor = page.data.next_cursor ?? undefined;
  }

  const symbols = [slot.symbol, slot.slug, mines.symbol, 'no_such_game'];
  const victimSymbols = [
    victimSlot.symbol,
    victimNative.symbol,
    ...(prov4 ? [prov4.symbol] : []),
    'no_such_game',
  ];
  return {
    operatorId: main,
    operatorKey,
    masterKey,
    adminKey,
    values: {
      symbol: symbols,
      slug: [slot.slug, mines.slug],
      // A launch names the title by symbol or slug; both (of different titles) is a 400.
      'createLaunchUrl.body.slug': [slot.slug],
      'createLaunchUrl.body.symbol': [slot.symbol, mines.symbol],
      'createLaunchUrl.body.currency': ['EUR', 'USD'],
      'createLaunchUrl.body.lang': ['en', 'de'],
      game_symbol: [slot.symbol, mines.symbol],
      // Admin writes: titles the fuzzer's operator does not play.
      'adminSetReleaseRegistry.path.symbol': victimSymbols,
      'adminSetOperatorWalletFlag.path.symbol': victimSymbols,
      'adminUploadArtwork.path.symbol': victimSymbols,
      'adminAssignGame.path.symbol': [...victimSymbols, slot.symbol],
      'adminUnassignGame.path.symbol': [...victimSymbols, slot.symbol],
      // Admin paths name the victim operator (or none that exists); scoped reads name the fuzzer's.
      'path.operator_id': [victim, `op_fz_${tag}_nobody`],
      'query.operator_id': [main, main, other, `op_fz_${tag}_nobody`],
      'header.x-operator-id': [main],
      'body.operator_id': [main],
      'adminCreateOperator.body.operator_id': [`op_fz_${tag}_new`],
      'path.session_id': [slotSession, minesSession, otherSession, 's_fz_missing'],
      'adminRevokeSession.path.session_id': [victimSession, 's_fz_missing'],
      'query.session_id': [minesSession, otherSession, slotSession],
      round_id: [...rounds, 'r_fz_missing'],
      'getNativeRoundHistory.path.round_id': [nativeRound, 'r_fz_missing', ...rounds],
      'getNativeRoundHistory.query.session_id': [minesSession, minesSession, otherSession],
      transaction_id: [...transactions, 't_fz_missing'],
      // adm_bootstrap: the admin key itself (a key cannot revoke itself: 409); never the fuzzer's keys.
      key_id: [...victimKeys, 'adm_bootstrap', 'key_0123456789abcdef'],
      username: [`fz-${tag}-victim`, `fz-${tag}-nobody`],
      provider_id: ['prov_b', 'prov_d', 'prov_z'],
      external_player_id: [player, `fz-${tag}-fresh`],
      player_id: [player],
      currency: ['EUR', 'USD', 'GBP'],
      ...(cursor ? { cursor: [cursor] } : {}),
      'body.wallet_base_url': ['https://wallet.example/api', 'http://127.0.0.1:9/wallet'],
      'body.return_url': ['https://lobby.example/return'],
      // Promotions.
      'path.jackpot_id': [jackpotId, `fz-${tag}-jp-new`, 'fz-nosuch'],
      'path.tournament_id': [...(tournament ? [tournamentId] : []), `fz-${tag}-tn-new`, 'fz-nosuch'],
      'path.drop_id': [dropId, `fz-${tag}-pd-new`, 'fz-nosuch'],
      'path.campaign_id': [campaignId, 'fz-nosuch'],
      // The cancels take the second of each (the first keeps taking opt-ins and players).
      'adminCancelTournament.path.tournament_id': [...(tournament ? [`${tournamentId}-x`] : []), 'fz-nosuch'],
      'cancelFreeRoundCampaign.path.campaign_id': [`${campaignId}-x`, 'fz-nosuch'],
      'adminDefineJackpot.body.titles': [[victimSlot.symbol], [slot.symbol]],
      'adminDefineJackpot.body.levels': jackpotLevels,
      'adminDefineJackpot.body.operator_id': [victim],
      'adminDefineTournament.body.titles': [[victimSlot.symbol]],
      'adminDefineTournament.body.currencies': tournamentCurrencies,
      'adminDefineTournament.body.starts_at': [inDays(1), inDays(3)],
      'adminDefineTournament.body.ends_at': [inDays(2), inDays(4)],
      'adminDefinePrizeDrop.body.titles': [[victimSlot.symbol]],
      'adminDefinePrizeDrop.body.currencies': dropCurrencies,
      'adminDefinePrizeDrop.body.starts_at': [inDays(1), inDays(3)],
      'adminDefinePrizeDrop.body.ends_at': [inDays(2), inDays(4)],
      'createFreeRoundCampaign.body.campaign_id': [campaignId, `fz-${tag}-campaign-2`],
      'createFreeRoundCampaign.body.symbols': [[slot.symbol]],
      'createFreeRoundCampaign.body.bet_minor': [100, '100'],
      'createFreeRoundCampaign.body.valid_from': [inDays(1)],
      'createFreeRoundCampaign.body.expires_at': [inDays(2)],
      'body.players': [[player], [`fz-${tag}-fresh`, player]],
    },
  };
}
