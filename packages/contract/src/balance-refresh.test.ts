import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BalanceRefreshData, BalanceRefreshRequest, BalanceRefreshResponse } from './index.js';
import { balanceRefreshData } from './test-support/fixtures.js';
import { accepts, rejects, without } from './test-support/helpers.js';

test('BalanceRefreshRequest needs only external_player_id', () => {
  accepts(BalanceRefreshRequest, { external_player_id: 'op1-player-7' });
  accepts(BalanceRefreshRequest, {
    external_player_id: 'op1-player-7',
    operator_id: 'op_1',
    currency: 'EUR',
    game_symbol: 'sample-slot',
    session_id: 'sess_1',
    request_id: 'corr-1',
    reason: 'deposit',
  });
  const parsed = accepts(BalanceRefreshRequest, { external_player_id: 'p', balance: 100 });
  assert.equal('balance' in parsed, false, 'the request carries no balance');
});

test('BalanceRefreshRequest rejects bad player ids, currencies and missing player', () => {
  rejects(BalanceRefreshRequest, {}, ['external_player_id']);
  for (const id of ['', ' abc', 'abc\n', 'x'.repeat(65)]) {
    rejects(BalanceRefreshRequest, { external_player_id: id }, ['external_player_id']);
  }
  for (const currency of ['usd', 'US', 'USDT']) {
    rejects(BalanceRefreshRequest, { external_player_id: 'p', currency }, ['currency']);
  }
  rejects(BalanceRefreshRequest, { external_player_id: 'p', session_id: 7 }, ['session_id']);
  accepts(BalanceRefreshRequest, {
    external_player_id: 'p',
    request_id: 'r'.repeat(128),
    reason: 'x'.repeat(256),
  });
  rejects(BalanceRefreshRequest, { external_player_id: 'p', request_id: 'r'.repeat(129) }, ['request_id']);
  rejects(BalanceRefreshRequest, { external_player_id: 'p', reason: 'x'.repeat(257) }, ['reason']);
});

test('BalanceRefreshData requires every field with integer counters', () => {
  accepts(BalanceRefreshData, balanceRefreshData);
  accepts(BalanceRefreshData, { ...balanceRefreshData, request_id: null, reason: null, sessions: [] });
  for (const key of Object.keys(balanceRefreshData) as (keyof typeof balanceRefreshData)[]) {
    rejects(BalanceRefreshData, without(balanceRefreshData, key), [key]);
  }
  rejects(BalanceRefreshData, { ...balanceRefreshData, sessions_found: 1.5 }, ['sessions_found']);
  rejects(BalanceRefreshData, { ...balanceRefreshData, subscribers_notified: -1 }, ['subscribers_notified']);
  const session = balanceRefreshData.sessions[0];
  rejects(BalanceRefreshData, { ...balanceRefreshData, sessions: [{ ...session, notified: 'yes' }] }, [
    'sessions',
    0,
    'notified',
  ]);
  rejects(
    BalanceRefreshData,
    { ...balanceRefreshData, sessions: [without(session!, 'active_subscribers')] },
    ['sessions', 0, 'active_subscribers'],
  );
});

test('BalanceRefreshResponse has success plus the fields twice', () => {
  const body = { success: true, ...balanceRefreshData, data: balanceRefreshData };
  const parsed = accepts(BalanceRefreshResponse, body);
  assert.equal('success' in parsed.data, false);
  rejects(BalanceRefreshResponse, { ...body, success: false }, ['success']);
  rejects(BalanceRefreshResponse, without(body, 'data'), ['data']);
  rejects(BalanceRefreshResponse, { ...body, data: { ...balanceRefreshData, sessions_notified: 0 } }, [
    'data',
    'sessions_notified',
  ]);
});
