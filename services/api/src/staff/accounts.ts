import { randomBytes } from 'node:crypto';
import type { CreateStaffRequest, StaffRole, UpdateStaffRequest } from '@opi/contract';
import { type Pool, withTransaction } from '@opi/db';
import { conflict, notFound, notFoundDetail, unprocessable } from '@opi/service-kit/http/named-errors';
import { generatePassword, hashPassword } from './password.js';

/** A staff account as the admin API shows it: never the password hash. */
export interface StaffAccount {
  staff_id: string;
  username: string;
  display_name: string;
  provider_role: StaffRole | null;
  roles: { operator_id: string; role: StaffRole }[];
  disabled: boolean;
  created_at: string;
}

interface AccountRow {
  staff_id: string;
  username: string;
  display_name: string;
  provider_role: StaffRole | null;
  roles: { operator_id: string; role: StaffRole }[] | null;
  disabled: boolean;
  created_at: Date;
}

const ACCOUNT_SELECT = `SELECT u.staff_id, u.username, u.display_name, u.provider_role, u.disabled, u.created_at,
  (SELECT json_agg(json_build_object('operator_id', r.operator_id, 'role', r.role) ORDER BY r.operator_id)
   FROM staff_roles r WHERE r.staff_id = u.staff_id) AS roles
  FROM staff_users u`;

const present = (r: AccountRow): StaffAccount => ({
  staff_id: r.staff_id,
  username: r.username,
  display_name: r.display_name,
  provider_role: r.provider_role,
  roles: r.roles ?? [],
  disabled: r.disabled,
  created_at: r.created_at.toISOString(),
});

export async function listStaff(pool: Pool): Promise<StaffAccount[]> {
  const { rows } = await pool.query<AccountRow>(`${ACCOUNT_SELECT} ORDER BY u.username`);
  return rows.map(present);
}

export async function getStaff(pool: Pool, username: string): Promise<StaffAccount> {
  const { rows } = await pool.query<AccountRow>(`${ACCOUNT_SELECT} WHERE u.username = $1`, [
    username.trim().toLowerCase(),
  ]);
  if (!rows[0]) throw notFound('staff account');
  return present(rows[0]);
}

async function requireOperators(pool: Pool, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const { rows } = await pool.query<{ operator_id: string }>(
    `SELECT operator_id FROM operators WHERE operator_id = ANY($1)`,
    [ids],
  );
  const known = new Set(rows.map((r) => r.operator_id));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length) throw notFoundDetail(`Operator not found: ${missing.join(', ')}`);
}

/**
 * Creates an account; without a password one is generated and returned once (`password`).
 * A staff member is either provider staff (provider_role) or holds roles per operator.
 */
export async function createStaff(
  pool: Pool,
  input: CreateStaffRequest,
): Promise<StaffAccount & { password?: string }> {
  const roles = input.roles ?? [];
  if (input.provider_role && roles.length) {
    throw unprocessable('Provider staff hold one role on every operator: give provider_role or roles');
  }
  await requireOperators(
    pool,
    roles.map((r) => r.operator_id),
  );
  const password = input.password ?? generatePassword();
  const hash = await hashPassword(password);
  const staffId = `stf_${randomBytes(8).toString('hex')}`;
  const created = await withTransaction(pool, async (c) => {
    const { rowCount } = await c.query(
      `INSERT INTO staff_users (staff_id, username, display_name, password_hash, provider_role)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (username) DO NOTHING`,
      [staffId, input.username, input.display_name ?? input.username, hash, input.provider_role ?? null],
    );
    if (!rowCount) return false;
    for (const r of roles) {
      await c.query(
        `INSERT INTO staff_roles (staff_id, operator_id, role) VALUES ($1, $2, $3)
         ON CONFLICT (staff_id, operator_id) DO UPDATE SET role = EXCLUDED.role`,
        [staffId, r.operator_id, r.role],
      );
    }
    return true;
  });
  if (!created) throw conflict(`Staff account ${input.username} already exists`);
  const account = await getStaff(pool, input.username);
  return input.password ? account : { ...account, password };
}

/** Changes an account; a new password, a disabled account or a role change ends its sessions. */
export async function updateStaff(
  pool: Pool,
  username: string,
  input: UpdateStaffRequest,
): Promise<StaffAccount & { password?: string }> {
  const current = await getStaff(pool, username);
  if (input.provider_role && current.roles.length) {
    throw conflict('Remove the operator roles before making this account provider staff');
  }
  const password = input.reset_password ? generatePassword() : input.password;
  const hash = password ? await hashPassword(password) : null;
  await withTransaction(pool, async (c) => {
    await c.query(
      `UPDATE staff_users SET
         display_name = coalesce($2, display_name),
         password_hash = coalesce($3, password_hash),
         password_changed_at = CASE WHEN $3::text IS NULL THEN password_changed_at ELSE now() END,
         provider_role = CASE WHEN $4 THEN $5 ELSE provider_role END,
         disabled = coalesce($6, disabled),
         updated_at = now()
       WHERE staff_id = $1`,
      [
        current.staff_id,
        input.display_name ?? null,
        hash,
        input.provider_role !== undefined,
        input.provider_role ?? null,
        input.disabled ?? null,
      ],
    );
    if (hash || input.disabled || input.provider_role !== undefined) {
      await c.query(
        `UPDATE staff_sessions SET revoked_at = now() WHERE staff_id = $1 AND revoked_at IS NULL`,
        [current.staff_id],
      );
    }
  });
  const account = await getStaff(pool, username);
  return input.reset_password ? { ...account, password: password! } : account;
}

export async function grantRole(
  pool: Pool,
  username: string,
  operatorId: string,
  role: StaffRole,
): Promise<StaffAccount> {
  const current = await getStaff(pool, username);
  if (current.provider_role) throw conflict('Provider staff already hold a role on every operator');
  await requireOperators(pool, [operatorId]);
  await pool.query(
    `INSERT INTO staff_roles (staff_id, operator_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (staff_id, operator_id) DO UPDATE SET role = EXCLUDED.role`,
    [current.staff_id, operatorId, role],
  );
  return getStaff(pool, username);
}

export async function revokeRole(pool: Pool, username: string, operatorId: string): Promise<StaffAccount> {
  const current = await getStaff(pool, username);
  const { rowCount } = await pool.query(`DELETE FROM staff_roles WHERE staff_id = $1 AND operator_id = $2`, [
    current.staff_id,
    operatorId,
  ]);
  if (!rowCount) throw notFoundDetail('This account holds no role on that operator');
  return getStaff(pool, username);
}

/**
 * The default stack's demo account: created with `password` when missing; with `resetPassword`
 * an existing account takes that password (the stack generated a new one). Admin of `operatorId`.
 */
export async function ensureDemoStaff(
  pool: Pool,
  options: { username: string; password: string; operatorId: string; resetPassword: boolean },
): Promise<{ created: boolean }> {
  const { rows } = await pool.query<{ staff_id: string }>(
    `SELECT staff_id FROM staff_users WHERE username = $1`,
    [options.username],
  );
  if (!rows[0]) {
    await createStaff(pool, {
      username: options.username,
      display_name: 'Demo staff',
      password: options.password,
      roles: [{ operator_id: options.operatorId, role: 'admin' }],
    });
    return { created: true };
  }
  if (options.resetPassword) await updateStaff(pool, options.username, { password: options.password });
  return { created: false };
}
