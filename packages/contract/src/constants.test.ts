import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AMOUNT_UNIT,
  AmountUnit,
  BLOCKERS,
  Blocker,
  CONTRACT_VERSION,
  ContractVersion,
  DEVICES,
  Device,
  IDEMPOTENCY_KEY,
  IdempotencyKey,
  INTEGRATION_MODES,
  IntegrationMode,
  NATIVE_HISTORY_MODES,
  NativeHistoryMode,
  PROVIDER_IDS,
  ProviderId,
  RELEASE_STATUSES,
  ReleaseStatus,
  SERVICE_INTERFACE_VERSION,
  THUMBNAIL_FORMATS,
  ThumbnailFormat,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  TransactionStatus,
  TransactionType,
  WALLET_CALLBACKS,
  WalletCallback,
} from './index.js';
import { accepts, rejects } from './test-support/helpers.js';

test('scalar constants match the spec', () => {
  assert.equal(CONTRACT_VERSION, '2026-09-01');
  assert.equal(AMOUNT_UNIT, 'minor');
  assert.equal(SERVICE_INTERFACE_VERSION, '2.0.0');
  assert.equal(IDEMPOTENCY_KEY, 'transaction_id');
});

test('enumerations match the spec exactly, in order', () => {
  assert.deepEqual(PROVIDER_IDS, ['prov_a', 'prov_b', 'prov_c', 'prov_d']);
  assert.deepEqual(BLOCKERS, [
    'release_acceptance',
    'disabled',
    'transport_unavailable',
    'unassigned',
    'operator_configuration',
    'operator_scope_required',
  ]);
  assert.deepEqual(TRANSACTION_TYPES, ['balance', 'debit', 'credit', 'cancel', 'rollback']);
  assert.deepEqual(TRANSACTION_STATUSES, ['pending', 'success', 'failed']);
  assert.deepEqual(INTEGRATION_MODES, ['operator-wallet', 'demo-only', 'sandbox-only']);
  assert.deepEqual(NATIVE_HISTORY_MODES, ['operator-wallet', 'sandbox-only']);
  assert.deepEqual(RELEASE_STATUSES, ['accepted', 'blocked']);
  assert.deepEqual(DEVICES, ['desktop', 'mobile', 'tablet']);
  assert.deepEqual(WALLET_CALLBACKS, ['balance', 'debit', 'credit', 'cancel', 'rollback']);
  assert.deepEqual(THUMBNAIL_FORMATS, ['vertical', 'horizontal']);
});

test('literal schemas accept only their constant', () => {
  accepts(ContractVersion, '2026-09-01');
  rejects(ContractVersion, '2026-09-02');
  rejects(ContractVersion, '2.0.0');
  accepts(AmountUnit, 'minor');
  rejects(AmountUnit, 'major');
  accepts(IdempotencyKey, 'transaction_id');
  rejects(IdempotencyKey, 'request_id');
});

test('every enum schema accepts each listed value and nothing else', () => {
  const cases = [
    [ProviderId, PROVIDER_IDS, ['prov_e', 'PROV_A', 'crash', '']],
    [Blocker, BLOCKERS, ['blocked', 'Disabled', '']],
    [TransactionType, TRANSACTION_TYPES, ['refund', 'Debit', '']],
    [TransactionStatus, TRANSACTION_STATUSES, ['done', 'succeeded', '']],
    [IntegrationMode, INTEGRATION_MODES, ['operator_wallet', 'disabled', '']],
    [NativeHistoryMode, NATIVE_HISTORY_MODES, ['demo-only', '']],
    [ReleaseStatus, RELEASE_STATUSES, ['pending', 'Accepted', '']],
    [Device, DEVICES, ['phone', 'Desktop', '']],
    [WalletCallback, WALLET_CALLBACKS, ['refund', '']],
    [ThumbnailFormat, THUMBNAIL_FORMATS, ['square', '']],
  ] as const;
  for (const [schema, allowed, wrong] of cases) {
    for (const value of allowed) accepts(schema, value);
    for (const value of wrong) rejects(schema, value);
    rejects(schema, 1);
    rejects(schema, null);
  }
});
