import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FeatureFlags,
  Game,
  GameResponse,
  GamesListResponse,
  OperatorAvailability,
  OperatorIntegration,
  ReleaseReadiness,
  SpecialBetProfile,
  Thumbnail,
} from './index.js';
import {
  featureFlags,
  fullGame,
  minimalGame,
  operatorAvailability,
  operatorIntegration,
  releaseReadiness,
} from './test-support/fixtures.js';
import { accepts, rejects, without } from './test-support/helpers.js';

test('FeatureFlags requires all five booleans', () => {
  accepts(FeatureFlags, featureFlags);
  for (const key of Object.keys(featureFlags) as (keyof typeof featureFlags)[]) {
    rejects(FeatureFlags, without(featureFlags, key), [key]);
    rejects(FeatureFlags, { ...featureFlags, [key]: 'true' }, [key]);
  }
});

test('SpecialBetProfile fields are all optional but typed', () => {
  accepts(SpecialBetProfile, {});
  accepts(SpecialBetProfile, fullGame.special_bet_profile);
  rejects(SpecialBetProfile, { buttons: 1.5 }, ['buttons']);
  rejects(SpecialBetProfile, { bls: [20, 'x'] }, ['bls', 1]);
  rejects(SpecialBetProfile, { default_bl: '20' }, ['default_bl']);
});

test('Thumbnail fields are optional and url must be a URI', () => {
  accepts(Thumbnail, {});
  accepts(Thumbnail, fullGame.thumbnail);
  rejects(Thumbnail, { url: 'not a url' }, ['url']);
});

test('OperatorIntegration requires mode, wallet_callback, balance_refresh', () => {
  accepts(OperatorIntegration, operatorIntegration);
  for (const mode of ['demo-only', 'sandbox-only'])
    accepts(OperatorIntegration, { ...operatorIntegration, mode });
  rejects(OperatorIntegration, { ...operatorIntegration, mode: 'live' }, ['mode']);
  rejects(OperatorIntegration, without(operatorIntegration, 'wallet_callback'), ['wallet_callback']);
  rejects(OperatorIntegration, without(operatorIntegration, 'balance_refresh'), ['balance_refresh']);
});

test('OperatorAvailability allows null scope fields and only listed blockers', () => {
  accepts(OperatorAvailability, operatorAvailability);
  accepts(OperatorAvailability, {
    enabled: true,
    assigned: null,
    configuration_ready: null,
    launch_available: false,
    blockers: ['operator_scope_required', 'release_acceptance'],
  });
  rejects(OperatorAvailability, { ...operatorAvailability, blockers: ['not_a_blocker'] }, ['blockers', 0]);
  rejects(OperatorAvailability, { ...operatorAvailability, enabled: null }, ['enabled']);
  rejects(OperatorAvailability, without(operatorAvailability, 'assigned'), ['assigned']);
  rejects(OperatorAvailability, without(operatorAvailability, 'blockers'), ['blockers']);
});

test('ReleaseReadiness requires every field; deployment_identity may be null', () => {
  accepts(ReleaseReadiness, releaseReadiness);
  accepts(ReleaseReadiness, {
    ...releaseReadiness,
    status: 'blocked',
    accepted: false,
    deployment_identity: 'd-1',
  });
  rejects(ReleaseReadiness, { ...releaseReadiness, status: 'pending' }, ['status']);
  for (const key of Object.keys(releaseReadiness) as (keyof typeof releaseReadiness)[]) {
    rejects(ReleaseReadiness, without(releaseReadiness, key), [key]);
  }
});

test('Game accepts the required-only and the full shape', () => {
  accepts(Game, minimalGame);
  const full = accepts(Game, fullGame);
  assert.deepEqual(full, fullGame);
  accepts(Game, { ...minimalGame, launch_path: null, rtp: '96.50', special_bet_profile: null });
  accepts(Game, { ...minimalGame, rtp: null });
});

test('Game rejects missing required fields and wrong types', () => {
  for (const key of [
    'symbol',
    'slug',
    'title',
    'provider_id',
    'provider',
    'features',
    'launch_path',
  ] as const) {
    rejects(Game, without(minimalGame, key), [key]);
  }
  rejects(Game, { ...minimalGame, provider_id: 'crash' }, ['provider_id']);
  rejects(Game, { ...minimalGame, rtp: true }, ['rtp']);
  rejects(Game, { ...minimalGame, lines: 20.5 }, ['lines']);
  rejects(Game, { ...minimalGame, thumbnail_url: 'nope' }, ['thumbnail_url']);
  rejects(Game, { ...minimalGame, certified_browsers: 'chrome' }, ['certified_browsers']);
  rejects(Game, { ...minimalGame, features: { bonus: true } }, ['features', 'collect']);
  rejects(Game, { ...minimalGame, operator_availability: { ...operatorAvailability, blockers: ['x'] } }, [
    'operator_availability',
    'blockers',
    0,
  ]);
});

test('GamesListResponse wraps items with total and nullable scope', () => {
  const body = {
    success: true,
    data: { items: [minimalGame, fullGame], total: 2, operator_id: 'op_1', provider_id: 'prov_a' },
  };
  accepts(GamesListResponse, body);
  accepts(GamesListResponse, {
    success: true,
    data: { items: [], total: 0, operator_id: null, provider_id: null },
  });
  rejects(GamesListResponse, { ...body, success: false }, ['success']);
  rejects(GamesListResponse, { success: true, data: { ...body.data, total: -1 } }, ['data', 'total']);
  rejects(GamesListResponse, { success: true, data: { items: [], total: 0, operator_id: null } }, [
    'data',
    'provider_id',
  ]);
  rejects(GamesListResponse, { success: true, data: { ...body.data, items: [{ symbol: 'x' }] } }, [
    'data',
    'items',
    0,
    'slug',
  ]);
});

test('GameResponse is {success: true, data: Game}', () => {
  accepts(GameResponse, { success: true, data: fullGame });
  rejects(GameResponse, { success: true }, ['data']);
  rejects(GameResponse, { data: fullGame }, ['success']);
});
