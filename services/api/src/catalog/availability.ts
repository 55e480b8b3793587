import type {
  Blocker,
  IntegrationMode,
  OperatorAvailability,
  OperatorIntegration,
  ProviderId,
} from '@opi/contract';

export interface AvailabilityInput {
  game: {
    provider_id: ProviderId;
    integration_mode: IntegrationMode;
    enabled: boolean;
    /** prov_c per-title flag / prov_d crash opt-in. */
    operator_wallet_enabled: boolean;
  };
  /** The release registry's entry for the exact installed version, or null (fail closed). */
  release: { status: 'accepted' | 'blocked' } | null;
  /** provider_switches.enabled for the game's family (prov_b is off by default). */
  providerSwitchOn: boolean;
  /** null without operator scope (the admin's view of every title). */
  scope: null | {
    assignment: { enabled: boolean } | null;
    configurationReady: boolean;
  };
}

/**
 * Whether the family's operator-wallet transport is available for this title: demo-only and
 * sandbox-only titles never; prov_a when its family is on; prov_b only with its switch on;
 * prov_c and prov_d only when the title's own flag (per-title enable / crash opt-in) is on too.
 */
export function transportAvailable(input: Pick<AvailabilityInput, 'game' | 'providerSwitchOn'>): boolean {
  const { game, providerSwitchOn } = input;
  if (game.integration_mode !== 'operator-wallet' || !providerSwitchOn) return false;
  if (game.provider_id === 'prov_c' || game.provider_id === 'prov_d') return game.operator_wallet_enabled;
  return true;
}

/** Transport support only: not RTP certification, not production approval. */
export function operatorIntegration(
  input: Pick<AvailabilityInput, 'game' | 'providerSwitchOn'>,
): OperatorIntegration {
  const wallet = transportAvailable(input);
  return {
    mode: input.game.integration_mode,
    wallet_callback: wallet,
    balance_refresh: wallet && input.game.provider_id === 'prov_a',
  };
}

/** The spec's OperatorAvailability; every blocked entry is explained by its blockers. */
export function operatorAvailability(input: AvailabilityInput): OperatorAvailability {
  const blockers: Blocker[] = [];
  const { scope, game } = input;
  const enabled = game.enabled && (scope?.assignment?.enabled ?? true);
  if (!scope) blockers.push('operator_scope_required');
  else if (!scope.assignment) blockers.push('unassigned');
  if (!enabled) blockers.push('disabled');
  if (input.release?.status !== 'accepted') blockers.push('release_acceptance');
  if (!transportAvailable(input)) blockers.push('transport_unavailable');
  if (scope && !scope.configurationReady) blockers.push('operator_configuration');
  return {
    enabled,
    assigned: scope ? scope.assignment !== null : null,
    configuration_ready: scope ? scope.configurationReady : null,
    launch_available: blockers.length === 0,
    blockers,
  };
}

/** Plain words for each blocker, for people (the portal, admin views). */
export const BLOCKER_TEXT: Record<Blocker, string> = {
  release_acceptance: 'The installed version has no accepted release registry entry.',
  disabled: 'The title is disabled (globally or for this operator).',
  transport_unavailable: 'The operator-wallet transport is not available for this title or family.',
  unassigned: 'The title is not assigned to this operator.',
  operator_configuration: 'The operator wallet is not configured (URL and secret; HTTPS in production).',
  operator_scope_required: 'Availability depends on an operator; none was given.',
};
