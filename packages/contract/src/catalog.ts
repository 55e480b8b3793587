import { z } from 'zod';
import { Blocker, IntegrationMode, ProviderId, ReleaseStatus } from './constants.js';
import { successEnvelope } from './primitives.js';

/*
 * Catalog resources (spec: Game and its parts) and the catalog responses. Response schemas are plain
 * `z.object`: unknown fields are stripped, not rejected, so a newer service stays readable.
 */

/** Declared feature support of a title. Declares support only; it does not prove replay data exists. */
export const FeatureFlags = z.object({
  bonus: z.boolean(),
  collect: z.boolean(),
  free_spins: z.boolean(),
  buy_feature: z.boolean(),
  special_bet: z.boolean(),
});
export type FeatureFlags = z.infer<typeof FeatureFlags>;

/** Special-bet configuration of a title (all optional). */
export const SpecialBetProfile = z.object({
  symbol: z.string().optional(),
  /** Number of special-bet buttons. */
  buttons: z.int().optional(),
  /** Bet levels. */
  bls: z.array(z.int()).optional(),
  /** Default bet level. */
  default_bl: z.int().optional(),
  service_version: z.string().optional(),
  cver: z.string().optional(),
});
export type SpecialBetProfile = z.infer<typeof SpecialBetProfile>;

/** Artwork reference (all optional). */
export const Thumbnail = z.object({
  symbol: z.string().optional(),
  slug: z.string().optional(),
  title: z.string().optional(),
  /** Artwork URI. */
  url: z.url().optional(),
});
export type Thumbnail = z.infer<typeof Thumbnail>;

/** Transport support of a title. Not RTP certification or production approval. */
export const OperatorIntegration = z.object({
  /** `operator-wallet`, `demo-only` or `sandbox-only`; demo/sandbox-only are excluded from production offers. */
  mode: IntegrationMode,
  /** The service settles through the operator's signed wallet callbacks. */
  wallet_callback: z.boolean(),
  /** Balance refresh signalling is supported (only `prov_a`). */
  balance_refresh: z.boolean(),
});
export type OperatorIntegration = z.infer<typeof OperatorIntegration>;

/** Transport availability checks for a title; not live-funds approval. */
export const OperatorAvailability = z.object({
  enabled: z.boolean(),
  /** Assigned to the operator; null without operator scope. */
  assigned: z.boolean().nullable(),
  /** Operator configuration is complete; null without operator scope. */
  configuration_ready: z.boolean().nullable(),
  /** Launchable now. Operator catalogs contain only launch-available entries. */
  launch_available: z.boolean(),
  /** Why the title is not launchable. */
  blockers: z.array(Blocker),
});
export type OperatorAvailability = z.infer<typeof OperatorAvailability>;

/**
 * Status of the exact installed version in the fail-closed release registry. `accepted` permits
 * integrated staging and operator assignment; production needs further platform gates.
 */
export const ReleaseReadiness = z.object({
  status: ReleaseStatus,
  accepted: z.boolean(),
  /** The exact installed game version the status refers to. */
  registry_version: z.string(),
  detail: z.string(),
  /** Blocker reasons. */
  reasons: z.array(z.string()),
  evidence: z.array(z.string()),
  deployment_identity: z.string().nullable(),
});
export type ReleaseReadiness = z.infer<typeof ReleaseReadiness>;

/**
 * A catalog item. Catalog presence is not proof of wallet support or certification; RTP is stored
 * metadata, not a measured payout rate.
 */
export const Game = z.object({
  /** Game symbol. */
  symbol: z.string(),
  slug: z.string(),
  title: z.string(),
  /** Stable machine id of the provider family; group by this. */
  provider_id: ProviderId,
  /** Human-readable provider name. */
  provider: z.string(),
  /** Game family label. */
  family: z.string().optional(),
  /** Stored RTP metadata. */
  rtp: z.union([z.number(), z.string()]).nullable().optional(),
  lines: z.int().optional(),
  asset_version: z.string().optional(),
  asset_symbol: z.string().optional(),
  asset_source: z.string().optional(),
  has_local_assets: z.boolean().optional(),
  game_service_version: z.string().optional(),
  loader_mode: z.string().optional(),
  provider_tagline: z.string().optional(),
  shell_strategy: z.string().optional(),
  launch_status: z.string().optional(),
  live_catalog_enabled: z.boolean().optional(),
  certified_browsers: z.array(z.string()).optional(),
  features: FeatureFlags,
  special_bet_profile: SpecialBetProfile.nullable().optional(),
  thumbnail: Thumbnail.optional(),
  /** Artwork endpoint URL. */
  thumbnail_url: z.url().optional(),
  launch_path: z.string().nullable(),
  operator_integration: OperatorIntegration.optional(),
  operator_availability: OperatorAvailability.optional(),
  release_readiness: ReleaseReadiness.optional(),
});
export type Game = z.infer<typeof Game>;

/** 200 of `GET /api/provider/v1/games`. */
export const GamesListResponse = successEnvelope(
  z.object({
    items: z.array(Game),
    total: z.int().nonnegative(),
    /** The operator scope applied, or null. */
    operator_id: z.string().nullable(),
    /** The canonical provider filter applied, or null when unfiltered. */
    provider_id: z.string().nullable(),
  }),
);
export type GamesListResponse = z.infer<typeof GamesListResponse>;

/** 200 of `GET /api/provider/v1/games/{symbol}`. */
export const GameResponse = successEnvelope(Game);
export type GameResponse = z.infer<typeof GameResponse>;
