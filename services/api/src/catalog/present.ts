import type { Game, ReleaseReadiness } from '@opi/contract';
import type { OperatorRow } from '../auth/operator-scope.js';
import { operatorAvailability, operatorIntegration } from './availability.js';
import type { CatalogRow } from './repository.js';

export interface PresentContext {
  publicBaseUrl: string;
  /** The operator scope, or null (admin view). */
  operator: OperatorRow | null;
  isProduction: boolean;
}

/** The operator wallet is configured: a URL and a secret, and HTTPS in production. */
export function walletConfigured(operator: OperatorRow, isProduction: boolean): boolean {
  if (!operator.wallet_base_url || !operator.wallet_secret_enc) return false;
  if (!isProduction) return true;
  try {
    return new URL(operator.wallet_base_url).protocol === 'https:';
  } catch {
    return false;
  }
}

export function releaseReadiness(row: CatalogRow): ReleaseReadiness {
  if (!row.release_status) {
    return {
      status: 'blocked',
      accepted: false,
      registry_version: row.installed_version,
      detail: `No release registry entry for installed version ${row.installed_version}`,
      reasons: [`missing registry entry for ${row.symbol}@${row.installed_version}`],
      evidence: [],
      deployment_identity: null,
    };
  }
  return {
    status: row.release_status,
    accepted: row.release_status === 'accepted',
    registry_version: row.installed_version,
    detail: row.release_detail ?? '',
    reasons: row.release_reasons ?? [],
    evidence: row.release_evidence ?? [],
    deployment_identity: row.deployment_identity,
  };
}

export function availabilityOf(row: CatalogRow, ctx: Pick<PresentContext, 'operator' | 'isProduction'>) {
  const input = {
    game: row,
    release: row.release_status ? { status: row.release_status } : null,
    providerSwitchOn: row.switch_on,
    scope: ctx.operator
      ? {
          assignment: row.assigned ? { enabled: row.assignment_enabled ?? false } : null,
          configurationReady: walletConfigured(ctx.operator, ctx.isProduction),
        }
      : null,
  };
  return { availability: operatorAvailability(input), integration: operatorIntegration(input) };
}

const OPTIONAL_METADATA = [
  'lines',
  'asset_version',
  'asset_symbol',
  'asset_source',
  'has_local_assets',
  'game_service_version',
  'loader_mode',
  'provider_tagline',
  'shell_strategy',
  'launch_status',
  'live_catalog_enabled',
  'certified_browsers',
  'special_bet_profile',
] as const;

/** A catalog row as the spec's Game. */
export function presentGame(row: CatalogRow, ctx: PresentContext): Game {
  const { availability, integration } = availabilityOf(row, ctx);
  const m = row.metadata;
  const art = new URL(`/api/provider/v1/game-art/${encodeURIComponent(row.symbol)}`, ctx.publicBaseUrl);
  if (ctx.operator) art.searchParams.set('operator_id', ctx.operator.operator_id);
  const game: Record<string, unknown> = {
    symbol: row.symbol,
    slug: row.slug,
    title: row.title,
    provider_id: row.provider_id,
    provider: row.provider,
    family: row.family ?? undefined,
    rtp: row.rtp,
    features: m.features,
    thumbnail: { symbol: row.symbol, slug: row.slug, title: row.title, url: art.toString() },
    thumbnail_url: art.toString(),
    launch_path: (m.launch_path as string | null | undefined) ?? null,
    operator_integration: integration,
    operator_availability: availability,
    release_readiness: releaseReadiness(row),
  };
  for (const key of OPTIONAL_METADATA) if (m[key] !== undefined) game[key] = m[key];
  if (game.family === undefined) delete game.family;
  return game as Game;
}
