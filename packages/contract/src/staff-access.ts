import { z } from 'zod';
import { CurrencyCode } from './primitives.js';

/*
 * The staff API's answers about who is logged in and the operator they opened (/api/staff/v1:
 * `POST /login`, `POST /logout`, `GET /me`, `GET /operators/{operator_id}`). Like every staff
 * response schema (staff-*.ts, issue 36 point 3), the staff routes check what they send against it
 * and the portal reads its type; the JSON is the builders' own (these only describe it).
 */

/** A staff member's role on one operator (viewer reads; admin also acts). */
export const StaffOperatorRole = z.enum(['viewer', 'admin']);

/** An operator the staff member may open, for the portal's header and picker. */
export const StaffOperatorAccess = z.object({
  operator_id: z.string(),
  name: z.string(),
  status: z.string(),
  role: StaffOperatorRole,
});
export type StaffOperatorAccess = z.infer<typeof StaffOperatorAccess>;

/** `GET /me`: who is logged in and which operators they may open. */
export const StaffMe = z.object({
  username: z.string(),
  display_name: z.string(),
  /** Provider staff: this role on every operator; null for operator staff. */
  provider_role: StaffOperatorRole.nullable(),
  operators: z.array(StaffOperatorAccess),
});
export type StaffMe = z.infer<typeof StaffMe>;

/** `POST /login`: the session token (shown once) and who it belongs to. */
export const StaffLoginResult = z.object({
  token: z.string(),
  expires_at: z.string(),
  staff: StaffMe,
});
export type StaffLoginResult = z.infer<typeof StaffLoginResult>;

/** `POST /logout`. */
export const StaffLogoutResult = z.object({ logged_out: z.literal(true) });
export type StaffLogoutResult = z.infer<typeof StaffLogoutResult>;

/** `GET /operators/{operator_id}`: the operator as staff see it (never the wallet secret). */
export const StaffOperatorInfo = z.object({
  operator_id: z.string(),
  name: z.string(),
  status: z.string(),
  default_currency: CurrencyCode,
  allowed_currencies: z.array(CurrencyCode),
  /** Bet limits as strings of minor units. */
  bet_limits: z.object({ min: z.string(), max: z.string() }),
  wallet_base_url: z.string().nullable(),
  wallet_secret_configured: z.boolean(),
  /** The caller's role on this operator. */
  role: StaffOperatorRole,
});
export type StaffOperatorInfo = z.infer<typeof StaffOperatorInfo>;
