import { z } from 'zod';
import { ReleaseRegistryRequest } from './admin.js';
import { Game } from './catalog.js';
import { IntegrationMode, ProviderId, ThumbnailFormat } from './constants.js';
import { CurrencyCode, successEnvelope } from './primitives.js';

/*
 * Provider-admin API (/api/admin/v1) response bodies. Internal to provider staff; not part of the
 * operator contract. The OpenAPI document and its conformance test use these.
 */

/** An operator as the admin API shows it: never the wallet secret; bet limits as strings of minor units. */
export const AdminOperator = z.object({
  operator_id: z.string(),
  name: z.string(),
  status: z.enum(['active', 'inactive']),
  default_currency: CurrencyCode,
  allowed_currencies: z.array(CurrencyCode),
  bet_limits: z.object({ min: z.string(), max: z.string() }),
  wallet_base_url: z.string().nullable(),
  /** Whether a wallet secret is stored (it is never shown again). */
  wallet_secret_configured: z.boolean(),
  artwork_format: ThumbnailFormat,
  /** Jurisdiction of launches that name none, or null. */
  default_jurisdiction: z.string().nullable(),
  /** Seconds between reality checks on the game pages (slot, native, crash), or null: none. */
  reality_check_interval_seconds: z.number().int().nullable(),
  /** The wallet diagnostics' protection test player (always refused by the wallet), or null: not configured. */
  diagnostics_protection_player_id: z.string().nullable(),
  /** Only in the answer that generated or rotated it: the wallet callback secret, shown once. */
  wallet_secret: z.string().optional(),
});
export type AdminOperator = z.infer<typeof AdminOperator>;
export const AdminOperatorResponse = successEnvelope(AdminOperator);

/** A created key: `api_key` is shown once (only its lookup hash and sealed form are stored). */
export const AdminApiKeyCreated = z.object({ key_id: z.string(), api_key: z.string() });
export const AdminApiKeyCreatedResponse = successEnvelope(AdminApiKeyCreated);
export const AdminApiKeyRevokedResponse = successEnvelope(
  z.object({ key_id: z.string(), revoked: z.literal(true) }),
);

/** Every title with its installed version, flags and family switch (the admin catalog). */
export const AdminGame = Game.extend({
  installed_version: z.string(),
  integration_mode: IntegrationMode,
  flags: z.object({ enabled: z.boolean(), operator_wallet_enabled: z.boolean() }),
  provider_switch_enabled: z.boolean(),
});
export const AdminGamesResponse = successEnvelope(
  z.object({ items: z.array(AdminGame), total: z.int().nonnegative() }),
);

/** An operator's assigned titles, blocked ones included, with the blockers spelled out. */
export const AdminOperatorGame = Game.extend({
  /** Human-readable text of each `operator_availability.blockers` item, in the same order. */
  blocker_text: z.array(z.string()),
});
export const AdminOperatorGamesResponse = successEnvelope(
  z.object({
    operator_id: z.string(),
    items: z.array(AdminOperatorGame),
    total: z.int().nonnegative(),
    /** Symbols launchable now. */
    launchable_games: z.array(z.string()),
    /** Symbols whose installed version is accepted in the release registry. */
    ready_games: z.array(z.string()),
  }),
);

export const AdminAssignmentResponse = successEnvelope(
  z.object({ operator_id: z.string(), symbol: z.string(), enabled: z.boolean() }),
);
export const AdminUnassignedResponse = successEnvelope(
  z.object({ operator_id: z.string(), symbol: z.string(), assigned: z.literal(false) }),
);
export const AdminReleaseRegistryResponse = successEnvelope(
  ReleaseRegistryRequest.extend({ symbol: z.string() }),
);
export const AdminProviderSwitchResponse = successEnvelope(
  z.object({ provider_id: ProviderId, enabled: z.boolean() }),
);
export const AdminOperatorWalletFlagResponse = successEnvelope(
  z.object({ symbol: z.string(), operator_wallet_enabled: z.boolean() }),
);
export const AdminArtworkResponse = successEnvelope(
  z.object({
    symbol: z.string(),
    format: ThumbnailFormat,
    content_type: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml']),
    /** Stored size in bytes. */
    bytes: z.int().nonnegative(),
  }),
);
/** A revoked session: its tokens (and crash authorizations) stop working at once. */
export const AdminSessionRevokedResponse = successEnvelope(
  z.object({ session_id: z.string(), status: z.string(), revoked_authorizations: z.int().nonnegative() }),
);
