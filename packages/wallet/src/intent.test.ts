import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONTRACT_VERSION, WalletCallbackRequest } from '@opi/contract';
import { keepsDurableIntent, type RoundIntent, transactionIdsFor } from './intent.js';
import { buildCallbackBody } from './journal.js';

test('transaction ids derive from the round id alone', () => {
  assert.deepEqual(transactionIdsFor('r_1'), {
    debit: 'r_1:debit',
    credit: 'r_1:credit',
    rollback: 'r_1:rollback',
    cancel: 'r_1:cancel',
  });
  assert.deepEqual(transactionIdsFor('r_1'), transactionIdsFor('r_1'));
});

test('family rule: prov_a may compensate; prov_b, prov_c and prov_d keep the durable intent', () => {
  assert.equal(keepsDurableIntent('prov_a'), false);
  for (const f of ['prov_b', 'prov_c', 'prov_d'] as const) assert.equal(keepsDurableIntent(f), true);
});

const intent: RoundIntent = {
  roundId: 'r_9',
  operatorId: 'op_x',
  sessionId: 's_9',
  playerId: 'op-x-player-1',
  gameSymbol: 'vs20emberfox',
  providerId: 'prov_a',
  currency: 'BHD',
  actionType: 'spin',
  stakeMinor: '1500',
  winMinor: '0',
  transactions: transactionIdsFor('r_9'),
};

test('callback bodies carry every field of the spec; amount at the currency exponent', () => {
  for (const op of ['debit', 'credit', 'cancel', 'rollback'] as const) {
    const body = JSON.parse(buildCallbackBody(intent, op, '1500'));
    assert.ok(
      WalletCallbackRequest.safeParse(body).success,
      `${op}: ${JSON.stringify(WalletCallbackRequest.safeParse(body).error)}`,
    );
    assert.equal(body.contract_version, CONTRACT_VERSION);
    assert.equal(body.transaction_type, op);
    assert.equal(body.transaction_id, `r_9:${op}`);
    assert.equal(body.amount, 1.5);
    assert.equal(body.amount_minor, 1500);
    assert.equal(body.player_id, 'op-x-player-1', 'the external id, unchanged');
    assert.equal(
      body.original_transaction_id,
      op === 'rollback' ? 'r_9:debit' : undefined,
      'only on rollback',
    );
  }
  assert.equal(JSON.parse(buildCallbackBody({ ...intent, currency: 'JPY' }, 'debit', '1500')).amount, 1500);
  assert.equal(JSON.parse(buildCallbackBody({ ...intent, currency: 'EUR' }, 'debit', '1500')).amount, 15);
});
