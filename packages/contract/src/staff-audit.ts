import { z } from 'zod';

/*
 * The staff API's audit log and wallet diagnostics answers (/api/staff/v1/operators/{operator_id}:
 * `GET /audit-log`, `GET /audit-log/{audit_id}`, `POST /wallet-diagnostics`; docs/portal.md).
 */

/** One row of the staff audit log (append-only: who, when, what, result). */
export const StaffAuditEntry = z.object({
  audit_id: z.string(),
  at: z.string(),
  username: z.string(),
  operator_id: z.string().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  result: z.string(),
  detail: z.record(z.string(), z.unknown()),
  client_ip: z.string().nullable(),
});
export type StaffAuditEntry = z.infer<typeof StaffAuditEntry>;

/** `GET /audit-log`: the operator's audit log, newest first. */
export const StaffAuditList = z.object({ items: z.array(StaffAuditEntry) });
export type StaffAuditList = z.infer<typeof StaffAuditList>;

/**
 * A wallet diagnostics check's outcome: `not_configured` is an optional check the operator has not
 * set up (neither a pass nor a failure; its detail says how to set it up).
 */
export const WalletCheckStatus = z.enum(['passed', 'failed', 'not_configured']);
export type WalletCheckStatus = z.infer<typeof WalletCheckStatus>;

/** One wallet diagnostics check as the API reports it. */
export const WalletCheckResult = z.object({
  id: z.string(),
  name: z.string(),
  /** What a conforming wallet does. */
  expected: z.string(),
  /** true only when the check passed (`status` passed). */
  passed: z.boolean(),
  status: WalletCheckStatus,
  /** What happened, in plain words. */
  detail: z.string(),
  http_status: z.number().int().nullable(),
  duration_ms: z.number(),
});
export type WalletCheckResult = z.infer<typeof WalletCheckResult>;

/** A diagnostics run against the operator's wallet (also the audit row's detail). */
export const StaffDiagnosticsRun = z.object({
  passed: z.boolean(),
  wallet_base_url: z.string(),
  player_id: z.string(),
  currency: z.string(),
  amount_minor: z.string(),
  checks: z.array(WalletCheckResult),
});
export type StaffDiagnosticsRun = z.infer<typeof StaffDiagnosticsRun>;

/** `POST /wallet-diagnostics`: the run with its audit row's id and time. */
export const StaffDiagnosticsResult = StaffDiagnosticsRun.extend({ audit_id: z.string(), at: z.string() });
export type StaffDiagnosticsResult = z.infer<typeof StaffDiagnosticsResult>;
