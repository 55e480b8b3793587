import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  OperatorContract,
  OperatorContractResponse,
  OperatorTransaction,
  OperatorTransactionResponse,
} from './index.js';
import { operatorTransaction } from './test-support/fixtures.js';
import { accepts, rejects, without } from './test-support/helpers.js';

const contract = {
  operator_id: 'op_1',
  version: '2026-09-01',
  amount_unit: 'minor',
  allowed_currencies: ['EUR', 'USD'],
  bet_limits: { min: '10', max: '100000' },
  wallet_callbacks: ['balance', 'debit', 'credit', 'cancel', 'rollback'],
  idempotency_key: 'transaction_id',
};

test('OperatorContract accepts the spec shape; bet limit bounds and idempotency_key are optional', () => {
  accepts(OperatorContract, contract);
  accepts(OperatorContract, { ...without(contract, 'idempotency_key'), bet_limits: {} });
  accepts(OperatorContract, { ...contract, bet_limits: { max: '5000' } });
});

test('OperatorContract rejects wrong constants, currencies, limits and callbacks', () => {
  rejects(OperatorContract, { ...contract, version: '2026-01-01' }, ['version']);
  rejects(OperatorContract, { ...contract, amount_unit: 'major' }, ['amount_unit']);
  rejects(OperatorContract, { ...contract, idempotency_key: 'request_id' }, ['idempotency_key']);
  rejects(OperatorContract, { ...contract, allowed_currencies: ['EUR', 'usd'] }, ['allowed_currencies', 1]);
  rejects(OperatorContract, { ...contract, bet_limits: { min: 10 } }, ['bet_limits', 'min']);
  rejects(OperatorContract, { ...contract, bet_limits: { max: '10.50' } }, ['bet_limits', 'max']);
  rejects(OperatorContract, { ...contract, wallet_callbacks: ['debit', 'refund'] }, ['wallet_callbacks', 1]);
  for (const key of [
    'operator_id',
    'version',
    'amount_unit',
    'allowed_currencies',
    'bet_limits',
    'wallet_callbacks',
  ] as const) {
    rejects(OperatorContract, without(contract, key), [key]);
  }
});

test('OperatorTransaction accepts every type and status, number or bigint amounts', () => {
  for (const transaction_type of ['balance', 'debit', 'credit', 'cancel', 'rollback']) {
    for (const status of ['pending', 'success', 'failed']) {
      accepts(OperatorTransaction, { ...operatorTransaction, transaction_type, status });
    }
  }
  for (const amount_minor of [0, -5, Number.MAX_SAFE_INTEGER, 2n ** 63n - 1n]) {
    assert.equal(
      accepts(OperatorTransaction, { ...operatorTransaction, amount_minor }).amount_minor,
      amount_minor,
    );
  }
});

test('OperatorTransaction rejects bad fields and every missing field', () => {
  for (const amount_minor of [1.5, 2n ** 63n, Number.NaN, Number.POSITIVE_INFINITY, '12']) {
    rejects(OperatorTransaction, { ...operatorTransaction, amount_minor }, ['amount_minor']);
  }
  rejects(OperatorTransaction, { ...operatorTransaction, transaction_type: 'refund' }, ['transaction_type']);
  rejects(OperatorTransaction, { ...operatorTransaction, status: 'done' }, ['status']);
  rejects(OperatorTransaction, { ...operatorTransaction, currency: 'eur' }, ['currency']);
  rejects(OperatorTransaction, { ...operatorTransaction, request_hash: 'A'.repeat(64) }, ['request_hash']);
  rejects(OperatorTransaction, { ...operatorTransaction, request_hash: 'a'.repeat(63) }, ['request_hash']);
  rejects(OperatorTransaction, { ...operatorTransaction, contract_version: '2.0.0' }, ['contract_version']);
  for (const key of Object.keys(operatorTransaction) as (keyof typeof operatorTransaction)[]) {
    rejects(OperatorTransaction, without(operatorTransaction, key), [key]);
  }
});

test('operator envelopes are {success: true, data}', () => {
  // The audit read's transaction carries its round's replay link, or null (issue 26).
  const audited = { ...operatorTransaction, round_details_url: 'http://games.test/replay/r_1?sig=x' };
  accepts(OperatorContractResponse, { success: true, data: contract });
  accepts(OperatorTransactionResponse, { success: true, data: audited });
  accepts(OperatorTransactionResponse, { success: true, data: { ...audited, round_details_url: null } });
  rejects(OperatorContractResponse, { success: false, data: contract }, ['success']);
  rejects(OperatorTransactionResponse, { success: true, data: without(audited, 'status') }, [
    'data',
    'status',
  ]);
  rejects(OperatorTransactionResponse, { success: true, data: operatorTransaction }, [
    'data',
    'round_details_url',
  ]);
});
