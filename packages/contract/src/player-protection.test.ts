import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BETS_BLOCKING_CODES,
  BetsBlockedError,
  blocksBets,
  PLAYER_PROTECTION_CODES,
  ROUND_ONLY_REJECTION_CODES,
  walletRefusalMessage,
} from './index.js';
import { accepts, rejects } from './test-support/helpers.js';

test('limit_reached and insufficient_funds reject one round; the other protection codes block bets', () => {
  assert.equal(blocksBets('limit_reached'), false);
  assert.equal(blocksBets('insufficient_funds'), false);
  for (const code of ['self_excluded', 'session_time_limit', 'player_blocked'])
    assert.equal(blocksBets(code), true, code);
  assert.deepEqual(
    PLAYER_PROTECTION_CODES.filter((c) => blocksBets(c)),
    [...BETS_BLOCKING_CODES],
  );
});

test('an unknown refusal code blocks bets (fail safe); the reference wallet request faults do not', () => {
  for (const code of ['rg_cool_off', 'deposit_limit', 'x']) assert.equal(blocksBets(code), true, code);
  for (const code of ROUND_ONLY_REJECTION_CODES) assert.equal(blocksBets(code), false, code);
});

test('every protection code has its own message; an unknown code gets the generic one with the code', () => {
  const seen = new Set<string>();
  for (const code of PLAYER_PROTECTION_CODES) {
    const m = walletRefusalMessage(code);
    assert.doesNotMatch(m, /declined this bet/, code);
    seen.add(m);
  }
  assert.equal(seen.size, PLAYER_PROTECTION_CODES.length);
  assert.match(walletRefusalMessage('limit_reached'), /^You have reached a limit set with your operator\./);
  assert.equal(walletRefusalMessage('rg_cool_off'), 'Your operator declined this bet (rg_cool_off).');
  assert.equal(walletRefusalMessage('constructor'), 'Your operator declined this bet (constructor).');
});

test('BetsBlockedError carries detail, the code and the block', () => {
  accepts(BetsBlockedError, {
    detail: walletRefusalMessage('self_excluded'),
    error: 'self_excluded',
    bets_blocked: {
      code: 'self_excluded',
      message: walletRefusalMessage('self_excluded'),
      since: '2026-01-01T00:00:00.000Z',
      round_id: 'r_1',
    },
  });
  rejects(BetsBlockedError, { detail: 'x', error: 'self_excluded' }, ['bets_blocked']);
});
