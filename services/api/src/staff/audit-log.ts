import type { StaffAuditEntry } from '@opi/contract';
import type { Pool } from '@opi/db';

/** One row of the staff audit log (append-only: who, when, what, result): the contract's StaffAuditEntry. */
export type AuditEntry = StaffAuditEntry;

export interface AuditWrite {
  staffId: string | null;
  username: string;
  operatorId: string | null;
  action: string;
  target?: string | null;
  result: string;
  detail?: Record<string, unknown>;
  clientIp?: string | null;
}

export async function writeAudit(pool: Pool, e: AuditWrite): Promise<AuditEntry> {
  const { rows } = await pool.query<AuditRow>(
    `INSERT INTO staff_audit_log (staff_id, username, operator_id, action, target, result, detail, client_ip)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      e.staffId,
      e.username,
      e.operatorId,
      e.action,
      e.target ?? null,
      e.result,
      JSON.stringify(e.detail ?? {}),
      e.clientIp ?? null,
    ],
  );
  return present(rows[0]!);
}

interface AuditRow {
  audit_id: string;
  at: Date;
  username: string;
  operator_id: string | null;
  action: string;
  target: string | null;
  result: string;
  detail: Record<string, unknown>;
  client_ip: string | null;
}
const COLUMNS = 'audit_id::text, at, username, operator_id, action, target, result, detail, client_ip';
const present = (r: AuditRow): AuditEntry => ({ ...r, at: r.at.toISOString() });

/** The operator's audit log, newest first. */
export async function listAudit(
  pool: Pool,
  operatorId: string,
  q: { limit: number; action?: string | undefined },
): Promise<AuditEntry[]> {
  const { rows } = await pool.query<AuditRow>(
    `SELECT ${COLUMNS} FROM staff_audit_log
     WHERE operator_id = $1 AND ($2::text IS NULL OR action = $2)
     ORDER BY at DESC, audit_id DESC LIMIT $3`,
    [operatorId, q.action ?? null, q.limit],
  );
  return rows.map(present);
}

/** One entry of the operator's audit log, or null. */
export async function getAudit(pool: Pool, operatorId: string, auditId: string): Promise<AuditEntry | null> {
  if (!/^[0-9]{1,18}$/.test(auditId)) return null;
  const { rows } = await pool.query<AuditRow>(
    `SELECT ${COLUMNS} FROM staff_audit_log WHERE operator_id = $1 AND audit_id = $2`,
    [operatorId, auditId],
  );
  return rows[0] ? present(rows[0]) : null;
}
