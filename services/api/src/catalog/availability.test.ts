import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AvailabilityInput, operatorAvailability, operatorIntegration } from './availability.js';

const base = (over: Partial<AvailabilityInput['game']> = {}): AvailabilityInput => ({
  game: {
    provider_id: 'prov_a',
    integration_mode: 'operator-wallet',
    enabled: true,
    operator_wallet_enabled: false,
    ...over,
  },
  release: { status: 'accepted' },
  providerSwitchOn: true,
  scope: { assignment: { enabled: true }, configurationReady: true },
});

describe('operator availability', () => {
  test('an enabled, assigned, accepted prov_a title is launchable', () => {
    assert.deepEqual(operatorAvailability(base()), {
      enabled: true,
      assigned: true,
      configuration_ready: true,
      launch_available: true,
      blockers: [],
    });
  });
  test('prov_b is blocked by its switch, and open with it', () => {
    const off = { ...base({ provider_id: 'prov_b' }), providerSwitchOn: false };
    assert.deepEqual(operatorAvailability(off).blockers, ['transport_unavailable']);
    assert.deepEqual(operatorAvailability({ ...off, providerSwitchOn: true }).blockers, []);
  });
  test('prov_c and prov_d need the per-title flag', () => {
    for (const provider_id of ['prov_c', 'prov_d'] as const) {
      assert.deepEqual(operatorAvailability(base({ provider_id })).blockers, ['transport_unavailable']);
      assert.deepEqual(
        operatorAvailability(base({ provider_id, operator_wallet_enabled: true })).blockers,
        [],
      );
    }
  });
  test('demo-only and sandbox-only never offer operator-wallet transport', () => {
    for (const integration_mode of ['demo-only', 'sandbox-only'] as const) {
      const input = base({ provider_id: 'prov_d', integration_mode, operator_wallet_enabled: true });
      assert.deepEqual(operatorAvailability(input).blockers, ['transport_unavailable']);
      assert.deepEqual(operatorIntegration(input), {
        mode: integration_mode,
        wallet_callback: false,
        balance_refresh: false,
      });
    }
  });
  test('release registry fails closed: missing or blocked entries block', () => {
    assert.deepEqual(operatorAvailability({ ...base(), release: null }).blockers, ['release_acceptance']);
    assert.deepEqual(operatorAvailability({ ...base(), release: { status: 'blocked' } }).blockers, [
      'release_acceptance',
    ]);
  });
  test('unassigned, disabled assignment, disabled title, unconfigured operator', () => {
    assert.deepEqual(
      operatorAvailability({ ...base(), scope: { assignment: null, configurationReady: true } }),
      {
        enabled: true,
        assigned: false,
        configuration_ready: true,
        launch_available: false,
        blockers: ['unassigned'],
      },
    );
    const disabledAssignment = {
      ...base(),
      scope: { assignment: { enabled: false }, configurationReady: true },
    };
    assert.deepEqual(operatorAvailability(disabledAssignment).blockers, ['disabled']);
    assert.equal(operatorAvailability(disabledAssignment).enabled, false);
    assert.deepEqual(operatorAvailability(base({ enabled: false })).blockers, ['disabled']);
    const unconfigured = { ...base(), scope: { assignment: { enabled: true }, configurationReady: false } };
    assert.deepEqual(operatorAvailability(unconfigured).blockers, ['operator_configuration']);
  });
  test('without operator scope assigned and configuration_ready are null', () => {
    const result = operatorAvailability({ ...base(), scope: null });
    assert.equal(result.assigned, null);
    assert.equal(result.configuration_ready, null);
    assert.deepEqual(result.blockers, ['operator_scope_required']);
  });
  test('several blockers are all reported', () => {
    const input: AvailabilityInput = {
      game: {
        provider_id: 'prov_b',
        integration_mode: 'operator-wallet',
        enabled: false,
        operator_wallet_enabled: false,
      },
      release: null,
      providerSwitchOn: false,
      scope: { assignment: null, configurationReady: false },
    };
    assert.deepEqual(operatorAvailability(input).blockers, [
      'unassigned',
      'disabled',
      'release_acceptance',
      'transport_unavailable',
      'operator_configuration',
    ]);
  });
  test('balance refresh is prov_a only', () => {
    assert.equal(operatorIntegration(base()).balance_refresh, true);
    assert.equal(operatorIntegration({ ...base({ provider_id: 'prov_b' }) }).balance_refresh, false);
  });
});
