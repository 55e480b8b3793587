import { z } from 'zod';
import { ProviderId, ReleaseStatus, ThumbnailFormat } from './constants.js';
import { Jurisdiction, RealityCheckIntervalSeconds } from './jurisdiction.js';
import { ExternalPlayerId, PlayableCurrencyCode } from './primitives.js';

/* Provider-admin API (/api/admin/v1) request bodies. Not part of the operator contract. */

/** Operator ids: lower-case, 2 to 64 characters of letters, digits, `_` and `-`. */
export const OperatorId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{1,63}$/, 'lower-case letters, digits, _ and -, 2 to 64');

/** A positive integer of minor units as a decimal string (bet limits are strings in the contract). */
export const MinorUnitsString = z
  .string()
  .regex(/^[1-9][0-9]{0,17}$/, 'a positive integer of minor units, as a string')
  .refine((v) => !/^[0-9]+$/.test(v) || BigInt(v) <= 2n ** 63n - 1n, 'at most 2^63-1');

export const AdminBetLimits = z
  .object({
    /** Smallest stake, minor units. */
    min: MinorUnitsString,
    /** Largest stake, minor units. */
    max: MinorUnitsString,
  })
  .refine((l) => !/^[0-9]+$/.test(l.min) || !/^[0-9]+$/.test(l.max) || BigInt(l.min) <= BigInt(l.max), {
    message: 'min must not exceed max',
    path: ['max'],
  });

const WalletBaseUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && !u.hash;
    } catch {
      return false;
    }
  }, 'an http(s) URL without credentials or fragment (HTTPS required in production)');

export const CreateOperatorRequest = z.object({
  operator_id: OperatorId,
  name: z.string().trim().min(1).max(200),
  status: z.enum(['active', 'inactive']).default('active'),
  /** Default currency; launches without a currency use it. A currency of the registry (docs/currencies.md). */
  default_currency: PlayableCurrencyCode.default('USD'),
  /** The currencies the operator accepts (fiat or crypto codes of the registry); the default is added. */
  allowed_currencies: z.array(PlayableCurrencyCode).min(1).max(50).optional(),
  bet_limits: AdminBetLimits.default({ min: '10', max: '100000' }),
  /**
   * The operator's wallet, `POST {wallet_base_url}/debit` etc. Never a link-local or cloud metadata
   * address (169.254.0.0/16, fe80::/10, 100.100.100.200, fd00:ec2::254); in production HTTPS, and
   * not loopback or a private network unless the platform sets WALLET_ALLOW_PRIVATE_NETWORKS=1
   * (422). A name is judged by the addresses it resolves to, again at every connection.
   */
  wallet_base_url: WalletBaseUrl.nullable().optional(),
  /** The wallet callback HMAC secret; generated (and returned once) when absent. */
  wallet_secret: z.string().min(16).max(256).optional(),
  artwork_format: ThumbnailFormat.default('vertical'),
  /** Jurisdiction of launches that name none (`GB`, `CA-ON`); null: none. */
  default_jurisdiction: Jurisdiction.nullable().optional(),
  /** Seconds between reality checks on the game pages (slot, native, crash; 1 to 86400); null: none. */
  reality_check_interval_seconds: RealityCheckIntervalSeconds.nullable().optional(),
  /**
   * A test player the operator's wallet always refuses with a player-protection code (a known
   * self-excluded or blocked test account): the wallet diagnostics' protection refusal check debits
   * it. null: the check is not configured.
   */
  diagnostics_protection_player_id: ExternalPlayerId.nullable().optional(),
});
export type CreateOperatorRequest = z.infer<typeof CreateOperatorRequest>;

export const UpdateOperatorRequest = z
  .object({
    name: z.string().trim().min(1).max(200),
    status: z.enum(['active', 'inactive']),
    /** A currency of the registry (docs/currencies.md). */
    default_currency: PlayableCurrencyCode,
    /** The currencies the operator accepts (fiat or crypto codes of the registry); the default is added. */
    allowed_currencies: z.array(PlayableCurrencyCode).min(1).max(50),
    bet_limits: AdminBetLimits,
    /**
     * The operator's wallet, `POST {wallet_base_url}/debit` etc. Never a link-local or cloud metadata
     * address (169.254.0.0/16, fe80::/10, 100.100.100.200, fd00:ec2::254); in production HTTPS, and
     * not loopback or a private network unless the platform sets WALLET_ALLOW_PRIVATE_NETWORKS=1
     * (422). A name is judged by the addresses it resolves to, again at every connection.
     */
    wallet_base_url: WalletBaseUrl.nullable(),
    /** Rotates the wallet secret to this value. */
    wallet_secret: z.string().min(16).max(256),
    /** true: generate a new wallet secret and return it once. */
    rotate_wallet_secret: z.literal(true),
    artwork_format: ThumbnailFormat,
    /** Jurisdiction of launches that name none; null clears it. */
    default_jurisdiction: Jurisdiction.nullable(),
    /** Seconds between reality checks on the game pages (slot, native, crash); null: none. */
    reality_check_interval_seconds: RealityCheckIntervalSeconds.nullable(),
    /** The wallet diagnostics' protection test player (always refused by the wallet); null: none. */
    diagnostics_protection_player_id: ExternalPlayerId.nullable(),
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, 'at least one field to change');
export type UpdateOperatorRequest = z.infer<typeof UpdateOperatorRequest>;

export const CreateApiKeyRequest = z.object({ label: z.string().max(200).optional() });
export const EnabledRequest = z.object({ enabled: z.boolean() });

export const ReleaseRegistryRequest = z.object({
  status: ReleaseStatus,
  /** The exact version this entry is for; it unblocks only when it equals the installed version. */
  registry_version: z.string().min(1).max(64),
  detail: z.string().max(2000).default(''),
  reasons: z.array(z.string().max(500)).max(50).default([]),
  evidence: z.array(z.string().max(500)).max(50).default([]),
  deployment_identity: z.string().max(200).nullable().default(null),
});
export type ReleaseRegistryRequest = z.infer<typeof ReleaseRegistryRequest>;

export const ProviderSwitchPath = z.object({ provider_id: ProviderId });
