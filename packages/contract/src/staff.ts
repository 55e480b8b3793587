import { z } from 'zod';
import { OperatorId } from './admin.js';
import { ProviderId } from './constants.js';
import { CurrencyCode, Instant, successEnvelope } from './primitives.js';

/*
 * The staff API (/api/staff/v1, used by the operator staff portal) and the provider-admin routes
 * that manage staff accounts (/api/admin/v1/staff). Not part of the operator contract. Its
 * requests are here; its responses, a file per area (staff-*.ts, re-exported here), are what the
 * staff routes check their answers against and what the portal reads (issue 36 point 3).
 */
export * from './staff-access.js';
export * from './staff-audit.js';
export * from './staff-catalog.js';
export * from './staff-free-rounds.js';
export * from './staff-money.js';
export * from './staff-play.js';
export * from './staff-promotions.js';
export * from './staff-protection.js';

/** Roles: a viewer reads; an admin also cancels stuck settlements and runs wallet diagnostics. */
export const STAFF_ROLES = ['viewer', 'admin'] as const;
export const StaffRole = z.enum(STAFF_ROLES);
export type StaffRole = z.infer<typeof StaffRole>;

/** Login names: lower-case letters, digits and `._@-`, 2 to 64 characters. */
export const StaffUsername = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9._@-]{1,63}$/, 'letters, digits and . _ @ -, 2 to 64 characters');

/** Passwords: 12 to 256 characters (long passphrases welcome). */
export const StaffPassword = z.string().min(12, 'at least 12 characters').max(256);

export const StaffRoleGrant = z.object({ operator_id: OperatorId, role: StaffRole });

/** `POST /api/admin/v1/staff`. */
export const CreateStaffRequest = z.object({
  username: StaffUsername,
  display_name: z.string().trim().min(1).max(100).optional(),
  /** Generated (and returned once) when absent. */
  password: StaffPassword.optional(),
  /** Provider staff: this role on every operator. */
  provider_role: StaffRole.nullable().optional(),
  /** Operator staff: a role per operator. */
  roles: z.array(StaffRoleGrant).max(500).optional(),
});
export type CreateStaffRequest = z.infer<typeof CreateStaffRequest>;

/** `PATCH /api/admin/v1/staff/{username}`. */
export const UpdateStaffRequest = z
  .object({
    display_name: z.string().trim().min(1).max(100),
    password: StaffPassword,
    /** Generate a new password (returned once). */
    reset_password: z.literal(true),
    provider_role: StaffRole.nullable(),
    /** A disabled account cannot log in; its sessions end at once. */
    disabled: z.boolean(),
  })
  .partial()
  .refine((v) => !(v.password && v.reset_password), 'password and reset_password exclude each other');
export type UpdateStaffRequest = z.infer<typeof UpdateStaffRequest>;

/** `PUT /api/admin/v1/staff/{username}/roles/{operator_id}`. */
export const StaffRoleRequest = z.object({ role: StaffRole });

/** `POST /api/staff/v1/login`. */
export const StaffLoginRequest = z.object({
  username: z.string().max(100),
  password: z.string().max(256),
});
export type StaffLoginRequest = z.infer<typeof StaffLoginRequest>;

const Id = z.string().min(1).max(200);

/** `GET /api/staff/v1/operators/{operator_id}/sessions`: newest first, keyset pages. */
export const StaffSessionSearchQuery = z.strictObject({
  player_id: Id.optional(),
  game_symbol: Id.optional(),
  currency: CurrencyCode.optional(),
  status: z.enum(['active', 'closed', 'revoked']).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(400).optional(),
});
export type StaffSessionSearchQuery = z.infer<typeof StaffSessionSearchQuery>;

/** `GET /api/staff/v1/operators/{operator_id}/catalog`. */
export const StaffCatalogQuery = z.strictObject({
  provider_id: ProviderId.optional(),
  family: z.string().max(100).optional(),
  /** `launchable`: no blockers; `blocked`: at least one. */
  status: z.enum(['launchable', 'blocked']).optional(),
});
export type StaffCatalogQuery = z.infer<typeof StaffCatalogQuery>;

/** `GET /api/staff/v1/operators/{operator_id}/charts`: rounds created in [from, to). */
export const StaffChartsQuery = z.strictObject({
  /** An instant as the reconciliation's `from` (default: 30 days before `to`). */
  from: Instant.optional(),
  /** An instant as the reconciliation's `to` (default: now). */
  to: Instant.optional(),
});
export type StaffChartsQuery = z.infer<typeof StaffChartsQuery>;

/** `POST /api/staff/v1/operators/{operator_id}/rounds/{round_id}/cancel`. */
export const StaffCancelRequest = z.object({ reason: z.string().trim().min(3).max(500) });

/** `POST /api/staff/v1/operators/{operator_id}/wallet-diagnostics`: the operator's test player. */
export const WalletDiagnosticsRequest = z.object({
  player_id: z
    .string()
    .min(1)
    .max(64)
    .refine((v) => v.trim() === v, 'no surrounding whitespace'),
  currency: CurrencyCode,
});
export type WalletDiagnosticsRequest = z.infer<typeof WalletDiagnosticsRequest>;

/** `GET /api/staff/v1/operators/{operator_id}/audit-log`. */
export const StaffAuditQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  action: z.string().max(64).optional(),
});
export type StaffAuditQuery = z.infer<typeof StaffAuditQuery>;

/** A staff account as the admin API shows it: never the password or its hash. */
export const StaffAccount = z.object({
  staff_id: z.string(),
  username: z.string(),
  display_name: z.string(),
  /** Provider staff: this role on every operator; null for operator staff. */
  provider_role: StaffRole.nullable(),
  /** Operator staff: a role per operator. */
  roles: z.array(StaffRoleGrant),
  /** A disabled account cannot log in. */
  disabled: z.boolean(),
  created_at: z.string(),
  /** Only in the answer that generated it (create without a password, reset_password): shown once. */
  password: z.string().optional(),
});
export type StaffAccount = z.infer<typeof StaffAccount>;
/** `POST /api/admin/v1/staff` (201), `GET`/`PATCH /api/admin/v1/staff/{username}`, role PUT and DELETE. */
export const StaffAccountResponse = successEnvelope(StaffAccount);
/** `GET /api/admin/v1/staff`. */
export const StaffAccountsResponse = successEnvelope(
  z.object({ items: z.array(StaffAccount), total: z.int().nonnegative() }),
);
