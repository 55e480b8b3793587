import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import {
  LaunchUrlRequest,
  NativeHistoryQuery,
  ServiceErrorResponse,
  ValidationErrorItem,
  zodIssuesToDetail,
} from './index.js';
import { accepts, rejects } from './test-support/helpers.js';

test('zodIssuesToDetail prefixes body paths and keeps messages and codes', () => {
  const result = LaunchUrlRequest.safeParse({
    symbol: 'vs20sample',
    external_player_id: ' x',
    currency: 'usd',
  });
  assert.ok(!result.success);
  const detail = zodIssuesToDetail(result.error.issues, 'body');
  assert.deepEqual(
    detail.map((d) => d.loc),
    [
      ['body', 'external_player_id'],
      ['body', 'currency'],
    ],
  );
  assert.equal(detail[0]?.msg, 'no leading or trailing whitespace');
  assert.equal(detail[0]?.type, 'custom');
  assert.equal(detail[1]?.type, 'invalid_format');
  for (const item of detail) accepts(ValidationErrorItem, item);
  accepts(ServiceErrorResponse, { detail });
});

test('zodIssuesToDetail reports query parameters and numeric path segments', () => {
  const query = NativeHistoryQuery.safeParse({});
  assert.ok(!query.success);
  assert.deepEqual(zodIssuesToDetail(query.error.issues, 'query'), [
    { loc: ['query', 'session_id'], msg: query.error.issues[0]?.message, type: 'invalid_type' },
  ]);
  const nested = z.object({ items: z.array(z.int()) }).safeParse({ items: [1, 'x'] });
  assert.ok(!nested.success);
  assert.deepEqual(zodIssuesToDetail(nested.error.issues, 'body')[0]?.loc, ['body', 'items', 1]);
  assert.deepEqual(zodIssuesToDetail(nested.error.issues, 'header')[0]?.loc, ['header', 'items', 1]);
  assert.deepEqual(zodIssuesToDetail([], 'path'), []);
});

test('ServiceErrorResponse accepts the spec shapes', () => {
  accepts(ServiceErrorResponse, { detail: 'game not found' });
  accepts(ServiceErrorResponse, {
    success: false,
    detail: 'conflict',
    error: 'currency_conflict',
    message: 'm',
  });
  accepts(ServiceErrorResponse, { detail: [{ loc: ['body', 'coin'], msg: 'bad', type: 'too_small' }] });
  accepts(ServiceErrorResponse, { error: 'runtime_unavailable' });
});

test('ServiceErrorResponse rejects malformed bodies', () => {
  rejects(ServiceErrorResponse, {});
  rejects(ServiceErrorResponse, { success: true, detail: 'x' }, ['success']);
  rejects(ServiceErrorResponse, { detail: 404 }, ['detail']);
  rejects(ServiceErrorResponse, { detail: [{ loc: 'body', msg: 'bad', type: 't' }] }, ['detail']);
  rejects(ServiceErrorResponse, { detail: [{ loc: ['body', true], msg: 'bad', type: 't' }] }, ['detail']);
  rejects(ValidationErrorItem, { loc: ['body'], msg: 'bad' }, ['type']);
});
