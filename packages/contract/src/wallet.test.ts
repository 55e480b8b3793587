import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WalletCallbackRequest, WalletErrorResponse, WalletSuccessResponse } from './index.js';
import { walletCallback } from './test-support/fixtures.js';
import { accepts, rejects, without } from './test-support/helpers.js';

test('WalletCallbackRequest accepts each non-rollback operation', () => {
  for (const transaction_type of ['balance', 'debit', 'credit', 'cancel']) {
    accepts(WalletCallbackRequest, { ...walletCallback, transaction_type });
  }
  accepts(WalletCallbackRequest, {
    ...walletCallback,
    transaction_type: 'balance',
    action_type: 'balance',
    amount: 0,
    amount_minor: 0,
  });
  const big = accepts(WalletCallbackRequest, { ...walletCallback, amount_minor: 2n ** 63n - 1n });
  assert.equal(big.amount_minor, 2n ** 63n - 1n);
});

test('a rollback carries original_transaction_id, and only a rollback does', () => {
  accepts(WalletCallbackRequest, {
    ...walletCallback,
    transaction_type: 'rollback',
    original_transaction_id: 'tx_0',
  });
  rejects(WalletCallbackRequest, { ...walletCallback, transaction_type: 'rollback' }, [
    'original_transaction_id',
  ]);
  rejects(WalletCallbackRequest, { ...walletCallback, original_transaction_id: 'tx_0' }, [
    'original_transaction_id',
  ]);
});

test('WalletCallbackRequest rejects bad fields and every missing required field', () => {
  rejects(WalletCallbackRequest, { ...walletCallback, contract_version: '2026-09-02' }, ['contract_version']);
  rejects(WalletCallbackRequest, { ...walletCallback, transaction_type: 'refund' }, ['transaction_type']);
  rejects(WalletCallbackRequest, { ...walletCallback, amount: '2.50' }, ['amount']);
  rejects(WalletCallbackRequest, { ...walletCallback, amount: Number.POSITIVE_INFINITY }, ['amount']);
  for (const amount_minor of [2.5, 2n ** 63n, Number.NaN, '250']) {
    rejects(WalletCallbackRequest, { ...walletCallback, amount_minor }, ['amount_minor']);
  }
  rejects(WalletCallbackRequest, { ...walletCallback, player_id: ' op1-player-7' }, ['player_id']);
  for (const key of Object.keys(walletCallback) as (keyof typeof walletCallback)[]) {
    rejects(WalletCallbackRequest, without(walletCallback, key), [key]);
  }
});

test('WalletSuccessResponse needs success true and a decimal string balance', () => {
  accepts(WalletSuccessResponse, { success: true, balance: '10.00' });
  accepts(WalletSuccessResponse, { success: true, balance: '-3.5', currency: 'EUR', transaction_id: 'tx_1' });
  rejects(WalletSuccessResponse, { success: true, balance: 10 }, ['balance']);
  rejects(WalletSuccessResponse, { success: true, balance: '1e5' }, ['balance']);
  rejects(WalletSuccessResponse, { success: true }, ['balance']);
  rejects(WalletSuccessResponse, { success: false, balance: '10.00' }, ['success']);
});

test('WalletErrorResponse needs success false and an error code', () => {
  accepts(WalletErrorResponse, { success: false, error: 'insufficient_funds', message: 'not enough' });
  accepts(WalletErrorResponse, { success: false, error: 'invalid_signature' });
  rejects(WalletErrorResponse, { success: false }, ['error']);
  rejects(WalletErrorResponse, { success: false, error: '' }, ['error']);
  rejects(WalletErrorResponse, { success: true, error: 'insufficient_funds' }, ['success']);
});

test('WalletCallbackRequest: the optional jackpot and promotion fields (issue 25)', () => {
  accepts(WalletCallbackRequest, {
    ...walletCallback,
    transaction_type: 'debit',
    jackpot_id: 'mega',
    jackpot_contribution_micros: '1500000',
  });
  accepts(WalletCallbackRequest, {
    ...walletCallback,
    transaction_type: 'credit',
    action_type: 'jackpot_win',
    jackpot_id: 'mega',
    jackpot_level: 'mini',
  });
  accepts(WalletCallbackRequest, {
    ...walletCallback,
    transaction_type: 'credit',
    action_type: 'promo_win',
    round_id: 'pp_t_spring_cup_0123456789abcdef0123456789abcdef',
    promo_type: 'tournament',
    promo_id: 'spring_cup',
    rank: 1,
  });
  rejects(WalletCallbackRequest, { ...walletCallback, jackpot_contribution_micros: '1.5' }, [
    'jackpot_contribution_micros',
  ]);
  rejects(WalletCallbackRequest, { ...walletCallback, promo_type: 'raffle' }, ['promo_type']);
  rejects(WalletCallbackRequest, { ...walletCallback, rank: 0 }, ['rank']);
});
