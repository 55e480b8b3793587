import { z } from 'zod';

/**
 * Constants of the operator game integration contract (spec: Versioning, Limits, States), each with
 * a zod schema of the same name in PascalCase singular. All lists are `as const` so their items are
 * literal types.
 */

/** Contract version carried by the contract read, LaunchUrlData, wallet callbacks and transaction records. */
export const CONTRACT_VERSION = '2026-09-01' as const;
/** Every money amount is an integer in minor units. */
export const AMOUNT_UNIT = 'minor' as const;
/** Service interface version. */
export const SERVICE_INTERFACE_VERSION = '2.0.0' as const;
/** The wallet idempotency key field: a repeated successful `transaction_id` returns the original result. */
export const IDEMPOTENCY_KEY = 'transaction_id' as const;

/**
 * Canonical provider family ids: `prov_a` callback-wallet slots, `prov_b` native-settlement slots
 * (behind a default-off switch), `prov_c` native per-title, `prov_d` crash-style.
 */
export const PROVIDER_IDS = ['prov_a', 'prov_b', 'prov_c', 'prov_d'] as const;

/** Allowed items of `OperatorAvailability.blockers`. */
export const BLOCKERS = [
  'release_acceptance',
  'disabled',
  'transport_unavailable',
  'unassigned',
  'operator_configuration',
  'operator_scope_required',
] as const;

/** Wallet operations; also the `transaction_type` of callbacks and transaction records. */
export const TRANSACTION_TYPES = ['balance', 'debit', 'credit', 'cancel', 'rollback'] as const;

/** `OperatorTransaction.status`. */
export const TRANSACTION_STATUSES = ['pending', 'success', 'failed'] as const;

/** `OperatorIntegration.mode`. */
export const INTEGRATION_MODES = ['operator-wallet', 'demo-only', 'sandbox-only'] as const;

/** `mode` of native session and round history. */
export const NATIVE_HISTORY_MODES = ['operator-wallet', 'sandbox-only'] as const;

/** `ReleaseReadiness.status`. */
export const RELEASE_STATUSES = ['accepted', 'blocked'] as const;

/** Launch `device` hint; slot families normalize tablet to mobile. */
export const DEVICES = ['desktop', 'mobile', 'tablet'] as const;

/** Items of `OperatorContract.wallet_callbacks`: the operator-hosted wallet endpoints. */
export const WALLET_CALLBACKS = ['balance', 'debit', 'credit', 'cancel', 'rollback'] as const;

/** `thumbnail_format` query parameter of the artwork endpoint. */
export const THUMBNAIL_FORMATS = ['vertical', 'horizontal'] as const;

export const ContractVersion = z.literal(CONTRACT_VERSION);
export type ContractVersion = z.infer<typeof ContractVersion>;

export const AmountUnit = z.literal(AMOUNT_UNIT);
export type AmountUnit = z.infer<typeof AmountUnit>;

export const IdempotencyKey = z.literal(IDEMPOTENCY_KEY);
export type IdempotencyKey = z.infer<typeof IdempotencyKey>;

export const ProviderId = z.enum(PROVIDER_IDS);
export type ProviderId = z.infer<typeof ProviderId>;

export const Blocker = z.enum(BLOCKERS);
export type Blocker = z.infer<typeof Blocker>;

export const TransactionType = z.enum(TRANSACTION_TYPES);
export type TransactionType = z.infer<typeof TransactionType>;

export const TransactionStatus = z.enum(TRANSACTION_STATUSES);
export type TransactionStatus = z.infer<typeof TransactionStatus>;

export const IntegrationMode = z.enum(INTEGRATION_MODES);
export type IntegrationMode = z.infer<typeof IntegrationMode>;

export const NativeHistoryMode = z.enum(NATIVE_HISTORY_MODES);
export type NativeHistoryMode = z.infer<typeof NativeHistoryMode>;

export const ReleaseStatus = z.enum(RELEASE_STATUSES);
export type ReleaseStatus = z.infer<typeof ReleaseStatus>;

export const Device = z.enum(DEVICES);
export type Device = z.infer<typeof Device>;

export const WalletCallback = z.enum(WALLET_CALLBACKS);
export type WalletCallback = z.infer<typeof WalletCallback>;

export const ThumbnailFormat = z.enum(THUMBNAIL_FORMATS);
export type ThumbnailFormat = z.infer<typeof ThumbnailFormat>;
