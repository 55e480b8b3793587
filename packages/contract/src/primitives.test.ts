import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CallbackNonce,
  CurrencyCode,
  DecimalString,
  ExternalPlayerId,
  INSTANT_MAX,
  INSTANT_MAX_MICROS,
  INSTANT_MIN,
  INT64_MAX,
  INT64_MIN,
  Instant,
  instantToUtc,
  MinorAmount,
  MinorAmountString,
  OperatorNonce,
  RequestHash,
} from './index.js';
import { accepts, rejects } from './test-support/helpers.js';

test('CurrencyCode is exactly three upper-case letters', () => {
  for (const code of ['USD', 'EUR', 'GBP', 'XXX']) accepts(CurrencyCode, code);
  for (const code of ['usd', 'Usd', 'US', 'USDT', '', 'U1D', ' USD', 'USD\n', 'ÄBC'])
    rejects(CurrencyCode, code);
  rejects(CurrencyCode, 840);
});

test('RequestHash is 64 lower-case hex characters', () => {
  accepts(RequestHash, '0123456789abcdef'.repeat(4));
  rejects(RequestHash, '0123456789ABCDEF'.repeat(4));
  rejects(RequestHash, 'a'.repeat(63));
  rejects(RequestHash, 'a'.repeat(65));
  rejects(RequestHash, `${'a'.repeat(63)}g`);
  rejects(RequestHash, '');
});

test('ExternalPlayerId is 1 to 64 characters without surrounding whitespace', () => {
  accepts(ExternalPlayerId, 'a');
  accepts(ExternalPlayerId, 'op1-player-7');
  accepts(ExternalPlayerId, 'x'.repeat(64));
  accepts(ExternalPlayerId, 'op1 player 7'); // inner whitespace is fine
  accepts(ExternalPlayerId, '€'.repeat(64)); // counted in characters
  accepts(ExternalPlayerId, '😀'.repeat(64)); // 64 characters, 128 UTF-16 units
  rejects(ExternalPlayerId, '');
  rejects(ExternalPlayerId, 'x'.repeat(65));
  rejects(ExternalPlayerId, '😀'.repeat(65));
  for (const id of [' abc', 'abc ', 'abc\n', '\tabc', ' ', '\u00a0abc']) rejects(ExternalPlayerId, id);
  rejects(ExternalPlayerId, 42);
  rejects(ExternalPlayerId, null);
});

test('MinorAmount accepts safe integers and int64 bigints', () => {
  for (const v of [0, -5, 250, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
    assert.equal(accepts(MinorAmount, v), v);
  }
  for (const v of [0n, -5n, 2n ** 63n - 1n, -(2n ** 63n), INT64_MAX, INT64_MIN]) {
    assert.equal(accepts(MinorAmount, v), v);
  }
});

test('MinorAmount rejects floats, non-finite, unsafe, out-of-range and non-numbers', () => {
  for (const v of [
    1.5,
    -0.1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    2 ** 53,
    -(2 ** 53),
  ]) {
    rejects(MinorAmount, v);
  }
  for (const v of [2n ** 63n, -(2n ** 63n) - 1n]) rejects(MinorAmount, v);
  for (const v of ['12', '0', '', null, undefined, true, {}]) rejects(MinorAmount, v);
});

test('MinorAmountString is a canonical decimal integer within int64', () => {
  for (const s of ['0', '1', '100', '-5', '9223372036854775807', '-9223372036854775808'])
    accepts(MinorAmountString, s);
  for (const s of [
    '',
    '01',
    '-0',
    '1.5',
    '1e3',
    '+1',
    ' 1',
    'abc',
    '9223372036854775808',
    '-9223372036854775809',
  ]) {
    rejects(MinorAmountString, s);
  }
  rejects(MinorAmountString, 100);
});

test('DecimalString accepts decimal numbers only', () => {
  for (const s of ['10.00', '-3.5', '0', '123456789012345678901234567890.12', '0.01'])
    accepts(DecimalString, s);
  for (const s of ['1e5', 'abc', '', '.5', '5.', '+1', ' 1', '1,00', 'NaN', 'Infinity', '--1'])
    rejects(DecimalString, s);
  rejects(DecimalString, 10);
});

test('CallbackNonce is 32 lower-case hex characters', () => {
  accepts(CallbackNonce, '0123456789abcdef0123456789abcdef');
  rejects(CallbackNonce, '0123456789ABCDEF0123456789ABCDEF');
  rejects(CallbackNonce, 'a'.repeat(31));
  rejects(CallbackNonce, 'a'.repeat(33));
  rejects(CallbackNonce, 'z'.repeat(32));
});

test('OperatorNonce is 16 to 128 visible characters', () => {
  accepts(OperatorNonce, 'n'.repeat(16));
  accepts(OperatorNonce, 'n'.repeat(128));
  accepts(OperatorNonce, 'Abc-123_xyz.~!@#$');
  rejects(OperatorNonce, 'n'.repeat(15));
  rejects(OperatorNonce, 'n'.repeat(129));
  rejects(OperatorNonce, `${'n'.repeat(16)}\n`);
  rejects(OperatorNonce, `${'n'.repeat(8)} ${'n'.repeat(8)}`);
});

test('Instant: any RFC 3339 offset, read as the UTC instant; 1970 to 9999 only (PostgreSQL takes every one)', () => {
  const cases: [string, string][] = [
    ['2026-01-17T11:27:59+18:06', '2026-01-16T17:21:59Z'],
    ['2026-01-17T11:27:59-23:59', '2026-01-18T11:26:59Z'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'],
    ['1970-01-01T01:00:00+01:00', '1970-01-01T00:00:00Z'],
    ['9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59.999999Z'],
    ['9999-12-31T23:59:59.99999999Z', '9999-12-31T23:59:59.999999Z'],
    ['2026-03-01T00:00:00.120000+00:00', '2026-03-01T00:00:00.12Z'],
    ['2024-02-29T12:00:00.5-00:30', '2024-02-29T12:30:00.5Z'],
  ];
  for (const [input, utc] of cases) {
    assert.equal(accepts(Instant, input), utc, input);
    assert.equal(instantToUtc(input), utc, input);
  }
  for (const input of [
    '0000-01-01T00:00:00Z',
    '0080-01-01T00:00:00Z',
    '1969-12-31T23:59:59.999999Z',
    '1970-01-01T00:59:59+01:00',
    '9999-12-31T23:59:59-15:59',
    '2026-02-30T00:00:00Z',
    '2026-01-01T00:00:60Z',
    '2026-01-01T00:00:00',
    '2026-01-01T00:00Z',
    '2026-01-01 00:00:00Z',
    '+002026-01-01T00:00:00Z',
    '',
  ]) {
    rejects(Instant, input, []);
  }
  assert.equal(instantToUtc('9999-12-31T23:59:59-15:59'), null);
  assert.equal(INSTANT_MAX_MICROS, BigInt(Date.parse(INSTANT_MAX)) * 1000n + 999n);
  assert.equal(Date.parse(INSTANT_MIN), 0);
});
