import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import Koa from 'koa';
import { errorBoundary, HttpError } from './errors.js';
import { createLogger } from './logger.js';
import {
  badGateway,
  badRequest,
  conflict,
  forbidden,
  invalidField,
  misconfigured,
  NOT_FOUND_THINGS,
  notFound,
  notFoundDetail,
  notFoundMessage,
  runtimeNotConfigured,
  tooManyRequests,
  unauthorized,
  unavailable,
  unprocessable,
  unsupportedMediaType,
} from './named-errors.js';

// Issue 36 point 4: each named constructor is the HttpError the literal site built, so what a
// client sees (status, body bytes, headers) is unchanged. Checked on the error boundary over real
// HTTP, each named error beside the `new HttpError(...)` it replaced.

const EXTRA = { error: 'some_code', retry_after_ms: 1500 };
const HEADERS = { 'Retry-After': '2' };

/** [named, the literal it stands for]. */
const PAIRS: [string, HttpError, HttpError][] = [
  ['badRequest', badRequest('Malformed JSON body'), new HttpError(400, 'Malformed JSON body')],
  [
    'badRequest (validation items)',
    badRequest([{ loc: ['query', 'from'], msg: 'a date', type: 'value_error' }]),
    new HttpError(400, [{ loc: ['query', 'from'], msg: 'a date', type: 'value_error' }]),
  ],
  ['unauthorized', unauthorized('Missing API key'), new HttpError(401, 'Missing API key')],
  [
    'unauthorized (code)',
    unauthorized('revoked', { error: 'session_revoked' }),
    new HttpError(401, 'revoked', { error: 'session_revoked' }),
  ],
  ['forbidden', forbidden('Operator is inactive'), new HttpError(403, 'Operator is inactive')],
  ['notFound', notFound('round'), new HttpError(404, 'Round not found')],
  ['notFound (two words)', notFound('prize drop'), new HttpError(404, 'Prize drop not found')],
  [
    'notFound (acronym)',
    notFound('API key', 'or already revoked'),
    new HttpError(404, 'API key not found or already revoked'),
  ],
  [
    'notFound (qualified)',
    notFound('round', 'in this session'),
    new HttpError(404, 'Round not found in this session'),
  ],
  ['notFound (bare)', notFound(), new HttpError(404, 'Not found')],
  [
    'notFoundDetail',
    notFoundDetail('No such SDK tarball', { current: '/x.tgz' }),
    new HttpError(404, 'No such SDK tarball', { current: '/x.tgz' }),
  ],
  ['conflict', conflict('The round is open', EXTRA), new HttpError(409, 'The round is open', EXTRA)],
  [
    'unsupportedMediaType',
    unsupportedMediaType('Request body must be application/json'),
    new HttpError(415, 'Request body must be application/json'),
  ],
  ['unprocessable', unprocessable('Nothing to change'), new HttpError(422, 'Nothing to change')],
  [
    'invalidField',
    invalidField(['body', 'bet_minor'], 'too big'),
    new HttpError(422, [{ loc: ['body', 'bet_minor'], msg: 'too big', type: 'value_error' }]),
  ],
  [
    'invalidField (type)',
    invalidField(['path', 0], 'bad', 'type_error'),
    new HttpError(422, [{ loc: ['path', 0], msg: 'bad', type: 'type_error' }]),
  ],
  [
    'tooManyRequests',
    tooManyRequests('Slow down', EXTRA, HEADERS),
    new HttpError(429, 'Slow down', EXTRA, HEADERS),
  ],
  [
    'misconfigured',
    misconfigured('GAME_BASE_URL must be HTTPS'),
    new HttpError(500, 'GAME_BASE_URL must be HTTPS'),
  ],
  [
    'badGateway',
    badGateway('The operator wallet is unavailable'),
    new HttpError(502, 'The operator wallet is unavailable'),
  ],
  ['unavailable', unavailable('Full', {}, HEADERS), new HttpError(503, 'Full', {}, HEADERS)],
  [
    'runtimeNotConfigured',
    runtimeNotConfigured('settlement service'),
    new HttpError(503, 'Provider runtime not configured (no settlement service)'),
  ],
];

test('each named error is the HttpError of its literal: status, detail, extra, headers', () => {
  for (const [name, named, literal] of PAIRS) {
    assert.ok(named instanceof HttpError, name);
    assert.equal(named.name, 'HttpError', name);
    assert.equal(named.status, literal.status, name);
    assert.equal(named.message, literal.message, name);
    assert.deepEqual(named.detail, literal.detail, name);
    assert.deepEqual(named.extra, literal.extra, name);
    assert.deepEqual(named.headers, literal.headers, name);
    // Key order is part of the JSON bytes: the same keys in the same order.
    assert.equal(JSON.stringify(named.detail), JSON.stringify(literal.detail), name);
    assert.equal(JSON.stringify(named.extra), JSON.stringify(literal.extra), name);
  }
});

test('notFound spells every thing with a capital first letter and nothing else changed', () => {
  assert.equal(notFoundMessage('staff account'), 'Staff account not found');
  assert.equal(notFoundMessage('billing contract'), 'Billing contract not found');
  assert.equal(notFoundMessage('API key'), 'API key not found');
  assert.equal(notFoundMessage(), 'Not found');
  assert.equal(notFoundMessage(undefined, 'here'), 'Not found here');
  for (const thing of NOT_FOUND_THINGS) {
    const e = notFound(thing);
    assert.equal(e.status, 404);
    assert.equal((e.detail as string).toLowerCase(), `${thing.toLowerCase()} not found`);
  }
  assert.equal(new Set(NOT_FOUND_THINGS).size, NOT_FOUND_THINGS.length);
});

let base = '';
let close: () => Promise<void> = async () => {};

before(async () => {
  const app = new Koa();
  app.use(errorBoundary(createLogger('named-errors-test', 'error')));
  app.use(async (ctx) => {
    const m = /^\/(named|literal)\/(\d+)$/.exec(ctx.path);
    if (!m) return;
    const pair = PAIRS[Number(m[2])];
    if (!pair) return;
    throw m[1] === 'named' ? pair[1] : pair[2];
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
});

after(() => close());

test('through the error boundary a named error answers the same bytes and headers as its literal', async () => {
  for (const [i, [name, named]] of PAIRS.entries()) {
    const [a, b] = await Promise.all([fetch(`${base}/named/${i}`), fetch(`${base}/literal/${i}`)]);
    assert.equal(a.status, named.status, name);
    assert.equal(a.status, b.status, name);
    assert.equal(a.headers.get('content-type'), b.headers.get('content-type'), name);
    assert.equal(a.headers.get('retry-after'), b.headers.get('retry-after'), name);
    const [ta, tb] = await Promise.all([a.text(), b.text()]);
    assert.equal(ta, tb, name);
    assert.deepEqual(JSON.parse(ta), { detail: named.detail, ...named.extra }, name);
  }
});
