import { test } from 'node:test';
import { NativeRoundHistory, NativeRoundHistoryResponse, NativeSessionHistory } from './index.js';
import { accepts, rejects, without } from './test-support/helpers.js';

const session = {
  session_id: 'sess_1',
  currency: 'EUR',
  stages: [{ stage: 'spin' }, {}],
  mode: 'operator-wallet',
};
const round = {
  round_id: 'round_1',
  session_id: 'sess_1',
  operator_id: 'op_1',
  currency: 'EUR',
  mode: 'sandbox-only',
  status: 'settled',
  intent: { debit_minor: 100 },
  stages: [{ stage: 'spin' }],
  ledger: [],
  wallet: [{ transaction_id: 'tx_1' }],
};

test('NativeSessionHistory requires its four fields', () => {
  accepts(NativeSessionHistory, session);
  accepts(NativeSessionHistory, { ...session, mode: 'sandbox-only', stages: [] });
  rejects(NativeSessionHistory, { ...session, mode: 'demo-only' }, ['mode']);
  rejects(NativeSessionHistory, { ...session, stages: ['spin'] }, ['stages', 0]);
  for (const key of Object.keys(session) as (keyof typeof session)[]) {
    rejects(NativeSessionHistory, without(session, key), [key]);
  }
});

test('NativeRoundHistory requires every field with object/array types', () => {
  accepts(NativeRoundHistory, round);
  rejects(NativeRoundHistory, { ...round, intent: [] }, ['intent']);
  rejects(NativeRoundHistory, { ...round, ledger: {} }, ['ledger']);
  rejects(NativeRoundHistory, { ...round, wallet: [1] }, ['wallet', 0]);
  rejects(NativeRoundHistory, { ...round, mode: 'live' }, ['mode']);
  for (const key of Object.keys(round) as (keyof typeof round)[]) {
    rejects(NativeRoundHistory, without(round, key), [key]);
  }
});

test('NativeRoundHistoryResponse wraps the round in {success: true, data}', () => {
  accepts(NativeRoundHistoryResponse, { success: true, data: round });
  rejects(NativeRoundHistoryResponse, round, ['success']);
  rejects(NativeRoundHistoryResponse, { success: true, data: without(round, 'round_id') }, [
    'data',
    'round_id',
  ]);
});
