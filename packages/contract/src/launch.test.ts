import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Coin, LaunchUrlData, LaunchUrlRequest, LaunchUrlResponse } from './index.js';
import { launchUrlData } from './test-support/fixtures.js';
import { accepts, rejects, without } from './test-support/helpers.js';

const minimalRequest = { symbol: 'vs20sample', external_player_id: 'op1-player-7' };

test('LaunchUrlRequest accepts symbol, slug or both with optional fields', () => {
  accepts(LaunchUrlRequest, minimalRequest);
  accepts(LaunchUrlRequest, { slug: 'sample-slot', external_player_id: 'op1-player-7' });
  accepts(LaunchUrlRequest, {
    symbol: 'vs20sample',
    slug: 'sample-slot',
    operator_id: 'op_1',
    external_player_id: 'op1-player-7',
    coin: 0.1,
    currency: 'EUR',
    lang: 'en',
    return_url: 'https://casino.example.com/lobby',
    device: 'tablet',
  });
  accepts(LaunchUrlRequest, { ...minimalRequest, coin: '0.20' });
  accepts(LaunchUrlRequest, { ...minimalRequest, return_url: 'http://casino.example.com/lobby' });
});

test('LaunchUrlRequest requires symbol or slug, with a clear message', () => {
  const issues = rejects(LaunchUrlRequest, { external_player_id: 'op1-player-7' }, ['symbol']);
  assert.ok(issues.some((issue) => issue.message === 'symbol or slug is required'));
  rejects(LaunchUrlRequest, { symbol: '', external_player_id: 'op1-player-7' }, ['symbol']);
  // Reported together with other field errors.
  const both = rejects(LaunchUrlRequest, {}, ['external_player_id']);
  assert.ok(both.some((issue) => issue.message === 'symbol or slug is required'));
});

test('LaunchUrlRequest validates external_player_id', () => {
  rejects(LaunchUrlRequest, without(minimalRequest, 'external_player_id'), ['external_player_id']);
  for (const id of ['', ' abc', 'abc\n', 'x'.repeat(65)]) {
    rejects(LaunchUrlRequest, { ...minimalRequest, external_player_id: id }, ['external_player_id']);
  }
});

test('LaunchUrlRequest validates currency, device, lang and return_url', () => {
  for (const currency of ['usd', 'US', 'USDT', '']) {
    rejects(LaunchUrlRequest, { ...minimalRequest, currency }, ['currency']);
  }
  rejects(LaunchUrlRequest, { ...minimalRequest, device: 'phone' }, ['device']);
  rejects(LaunchUrlRequest, { ...minimalRequest, lang: 'x'.repeat(17) }, ['lang']);
  rejects(LaunchUrlRequest, { ...minimalRequest, return_url: 'not a url' }, ['return_url']);
});

test('Coin is a finite number > 0 or a string that parses as one', () => {
  for (const coin of [0.01, 1, 2.5, '0.10', '1', '1e-2', '.5']) accepts(Coin, coin);
  for (const coin of [0, -1, -0.01, Number.POSITIVE_INFINITY, Number.NaN]) rejects(Coin, coin);
  for (const coin of ['0', '-1', '0.0', 'abc', '', 'Infinity', '1e999', ' 1', '0x10', 'NaN'])
    rejects(Coin, coin);
  for (const coin of [0, -1, Number.POSITIVE_INFINITY, '0']) {
    rejects(LaunchUrlRequest, { ...minimalRequest, coin }, ['coin']);
  }
});

test('LaunchUrlRequest ignores and strips unknown fields', () => {
  const parsed = accepts(LaunchUrlRequest, { ...minimalRequest, extra: 1 });
  assert.equal('extra' in parsed, false);
});

test('LaunchUrlData accepts the spec shape and null expiry', () => {
  accepts(LaunchUrlData, launchUrlData);
  accepts(LaunchUrlData, { ...launchUrlData, expires_at: null, operator_id: null });
  accepts(LaunchUrlData, { ...launchUrlData, expires_at: '2026-09-01T12:00:00.123456+02:00' });
  const required = without(
    without(
      without(without(without(launchUrlData, 'operator_id'), 'lang'), 'provider_session_id'),
      'test_launch',
    ),
    'operator_integration',
  );
  accepts(LaunchUrlData, required);
});

test('LaunchUrlData rejects wrong constants, bad URLs and missing fields', () => {
  rejects(LaunchUrlData, { ...launchUrlData, contract_version: '2025-01-01' }, ['contract_version']);
  rejects(LaunchUrlData, { ...launchUrlData, amount_unit: 'major' }, ['amount_unit']);
  rejects(LaunchUrlData, { ...launchUrlData, launch_url: 'javascript:alert(1)' }, ['launch_url']);
  rejects(LaunchUrlData, { ...launchUrlData, expires_at: 'tomorrow' }, ['expires_at']);
  for (const key of [
    'symbol',
    'slug',
    'currency',
    'session_id',
    'launch_url',
    'expires_at',
    'contract_version',
    'amount_unit',
  ] as const) {
    rejects(LaunchUrlData, without(launchUrlData, key), [key]);
  }
});

test('LaunchUrlResponse repeats LaunchUrlData at top level and under data', () => {
  accepts(LaunchUrlResponse, { ...launchUrlData, success: true, data: launchUrlData });
  rejects(LaunchUrlResponse, { ...launchUrlData, success: true }, ['data']);
  rejects(LaunchUrlResponse, { ...launchUrlData, data: launchUrlData }, ['success']);
  rejects(LaunchUrlResponse, { success: true, data: launchUrlData }, ['symbol']);
  rejects(
    LaunchUrlResponse,
    { ...launchUrlData, success: true, data: { ...launchUrlData, session_id: 'other' } },
    ['data', 'session_id'],
  );
});
