/** Valid sample shapes taken from the spec, shared by the tests. */

export const featureFlags = {
  bonus: true,
  collect: false,
  free_spins: true,
  buy_feature: false,
  special_bet: true,
};

export const operatorIntegration = { mode: 'operator-wallet', wallet_callback: true, balance_refresh: true };

export const operatorAvailability = {
  enabled: true,
  assigned: true,
  configuration_ready: true,
  launch_available: true,
  blockers: [],
};

export const releaseReadiness = {
  status: 'accepted',
  accepted: true,
  registry_version: '1.4.2',
  detail: 'accepted for integrated staging',
  reasons: [],
  evidence: ['acceptance-run-42'],
  deployment_identity: null,
};

/** A Game with only the required fields. */
export const minimalGame = {
  symbol: 'vs20sample',
  slug: 'sample-slot',
  title: 'Sample Slot',
  provider_id: 'prov_a',
  provider: 'Provider A',
  features: featureFlags,
  launch_path: '/games/sample-slot',
};

/** A Game with every field. */
export const fullGame = {
  ...minimalGame,
  family: 'slots',
  rtp: 96.5,
  lines: 20,
  asset_version: '3',
  asset_symbol: 'vs20sample',
  asset_source: 'local',
  has_local_assets: true,
  game_service_version: '5.1',
  loader_mode: 'shell',
  provider_tagline: 'Spin it',
  shell_strategy: 'iframe',
  launch_status: 'live',
  live_catalog_enabled: true,
  certified_browsers: ['chrome', 'safari'],
  special_bet_profile: {
    symbol: 'vs20sample',
    buttons: 2,
    bls: [20, 25],
    default_bl: 20,
    service_version: '5.1',
    cver: '123',
  },
  thumbnail: {
    symbol: 'vs20sample',
    slug: 'sample-slot',
    title: 'Sample Slot',
    url: 'https://games.example.com/api/provider/v1/game-art/vs20sample',
  },
  thumbnail_url: 'https://games.example.com/api/provider/v1/game-art/vs20sample',
  operator_integration: operatorIntegration,
  operator_availability: operatorAvailability,
  release_readiness: releaseReadiness,
};

export const launchUrlData = {
  symbol: 'vs20sample',
  slug: 'sample-slot',
  operator_id: 'op_1',
  currency: 'EUR',
  lang: 'en',
  session_id: 'sess_1',
  launch_url: 'https://games.example.com/gs2c/launch?token=secret',
  expires_at: '2026-09-01T12:00:00Z',
  contract_version: '2026-09-01',
  amount_unit: 'minor',
  provider_session_id: null,
  test_launch: false,
  operator_integration: operatorIntegration,
};

export const operatorTransaction = {
  transaction_id: 'tx_1',
  operator_id: 'op_1',
  session_id: 'sess_1',
  round_id: 'round_1',
  player_id: 'op1-player-7',
  game_symbol: 'vs20sample',
  transaction_type: 'debit',
  amount_minor: 250,
  currency: 'EUR',
  status: 'success',
  error_code: null,
  contract_version: '2026-09-01',
  request_hash: 'a'.repeat(64),
};

export const walletCallback = {
  contract_version: '2026-09-01',
  operator_id: 'op_1',
  player_id: 'op1-player-7',
  session_id: 'sess_1',
  game_symbol: 'vs20sample',
  currency: 'EUR',
  request_id: 'req_1',
  transaction_id: 'tx_1',
  round_id: 'round_1',
  transaction_type: 'debit',
  action_type: 'spin',
  amount: 2.5,
  amount_minor: 250,
};

export const balanceRefreshData = {
  operator_id: 'op_1',
  external_player_id: 'op1-player-7',
  request_id: 'corr-1',
  reason: 'deposit',
  sessions_found: 1,
  sessions_notified: 1,
  subscribers_notified: 2,
  sessions: [
    {
      session_id: 'sess_1',
      game_symbol: 'vs20sample',
      currency: 'EUR',
      active_subscribers: 2,
      notified: true,
    },
  ],
};
