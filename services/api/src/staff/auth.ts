import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type AddressSet, normalizeIp } from '@opi/config';
import { OperatorId, type StaffRole } from '@opi/contract';
import type { Pool } from '@opi/db';
import { clientAddress } from '@opi/service-kit/http/client-address';
import { forbidden, notFound, unauthorized } from '@opi/service-kit/http/named-errors';
import type { Context, Next } from 'koa';
import { loadOperator, type OperatorRow } from '../auth/operator-scope.js';

/** A staff session lasts 12 hours at most, and ends after 2 hours without a request. */
export const SESSION_MAX_SECONDS = 12 * 3600;
export const SESSION_IDLE_SECONDS = 2 * 3600;
const TOKEN_PREFIX = 'stf_';

/** Who is asking, resolved once per request from the session token. */
export interface StaffPrincipal {
  staffId: string;
  username: string;
  displayName: string;
  /** Provider staff: this role on every operator; null for operator staff. */
  providerRole: StaffRole | null;
  /** Operator staff: role per operator id. */
  roles: Record<string, StaffRole>;
  tokenHash: string;
}

export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** Opens a session: 256 random bits returned once; only their SHA-256 is stored. */
export async function openSession(
  pool: Pool,
  staffId: string,
  meta: { clientIp: string | null; userAgent: string | null },
): Promise<{ token: string; expires_at: string }> {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const { rows } = await pool.query<{ expires_at: Date }>(
    `INSERT INTO staff_sessions (token_hash, staff_id, expires_at, client_ip, user_agent)
     VALUES ($1, $2, now() + make_interval(secs => $3), $4, $5) RETURNING expires_at`,
    [tokenHash(token), staffId, SESSION_MAX_SECONDS, meta.clientIp, meta.userAgent?.slice(0, 300) ?? null],
  );
  return { token, expires_at: rows[0]!.expires_at.toISOString() };
}

export async function revokeSession(pool: Pool, hash: string): Promise<void> {
  await pool.query(
    `UPDATE staff_sessions SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL`,
    [hash],
  );
}

/** The session's staff member, or null when the token is unknown, revoked, expired or idle. */
export async function findSession(pool: Pool, token: string): Promise<StaffPrincipal | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 100) return null;
  const hash = tokenHash(token);
  const { rows } = await pool.query<{
    staff_id: string;
    username: string;
    display_name: string;
    provider_role: StaffRole | null;
    roles: Record<string, StaffRole> | null;
    refresh: boolean;
  }>(
    `SELECT u.staff_id, u.username, u.display_name, u.provider_role,
            (SELECT json_object_agg(r.operator_id, r.role) FROM staff_roles r WHERE r.staff_id = u.staff_id) AS roles,
            s.last_seen_at < now() - interval '1 minute' AS refresh
     FROM staff_sessions s JOIN staff_users u ON u.staff_id = s.staff_id
     WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
       AND s.last_seen_at > now() - make_interval(secs => $2) AND NOT u.disabled`,
    [hash, SESSION_IDLE_SECONDS],
  );
  const row = rows[0];
  if (!row) return null;
  // The idle clock moves at most once a minute (one write per minute per session, not per request).
  if (row.refresh) {
    await pool.query(`UPDATE staff_sessions SET last_seen_at = now() WHERE token_hash = $1`, [hash]);
  }
  return {
    staffId: row.staff_id,
    username: row.username,
    displayName: row.display_name,
    providerRole: row.provider_role,
    roles: row.roles ?? {},
    tokenHash: hash,
  };
}

/** The session token from `Authorization: Bearer stf_...`. */
function presentedToken(ctx: Context): string | undefined {
  return /^Bearer\s+(stf_[A-Za-z0-9_-]{1,96})\s*$/.exec(ctx.get('authorization'))?.[1];
}

/** Every staff route after login: 401 without a live session. */
export function authenticateStaff(pool: Pool) {
  return async (ctx: Context, next: Next) => {
    const token = presentedToken(ctx);
    const staff = token ? await findSession(pool, token) : null;
    if (!staff) throw unauthorized('Not logged in, or the session has ended');
    ctx.state.staff = staff;
    await next();
  };
}

/** The role a staff member holds on an operator (provider staff hold theirs on every one). */
export function roleOn(staff: StaffPrincipal, operatorId: string): StaffRole | null {
  return staff.providerRole ?? staff.roles[operatorId] ?? null;
}

/**
 * The one place that decides staff scope: the operator named by the path must be one the staff
 * member holds a role on (provider staff: every operator), and `minRole: 'admin'` routes need the
 * admin role. Without a role the answer is 403 whether or not the operator exists (no probing);
 * provider staff get 404 for an unknown operator. Handlers read ctx.state.operator only.
 */
export function staffScope(pool: Pool, minRole: StaffRole) {
  return async (ctx: Context, next: Next) => {
    const staff = ctx.state.staff as StaffPrincipal;
    const operatorId = ctx.params.operator_id ?? '';
    const role = OperatorId.safeParse(operatorId).success ? roleOn(staff, operatorId) : null;
    if (!role) throw forbidden('You have no role on this operator');
    if (minRole === 'admin' && role !== 'admin') throw forbidden('This action needs the admin role');
    const operator = await loadOperator(pool, operatorId);
    if (!operator) throw notFound('operator');
    ctx.state.operator = operator;
    ctx.state.staffRole = role;
    await next();
  };
}

export const operatorOf = (ctx: Context) => ctx.state.operator as OperatorRow;
export const staffOf = (ctx: Context) => ctx.state.staff as StaffPrincipal;

/**
 * The client's address for rate limits and the audit log. The portal calls the API server-side,
 * so it forwards the browser's address in `x-staff-client-ip`, which is believed only with the
 * portal's shared secret (`x-staff-portal`, STAFF_PORTAL_SECRET; the portal's server resolves it
 * from its own socket and TRUSTED_PROXIES). Otherwise the socket's peer, or, only when that peer
 * is one of TRUSTED_PROXIES, the first untrusted X-Forwarded-For hop from the right
 * (http/client-address.ts): a client's own X-Forwarded-For is never believed.
 */
export function clientIp(ctx: Context, portalSecret: string | undefined, trustedProxies: AddressSet): string {
  const forwarded = ctx.get('x-staff-client-ip');
  const presented = ctx.get('x-staff-portal');
  if (portalSecret && presented && forwarded) {
    const a = createHash('sha256').update(presented).digest();
    const b = createHash('sha256').update(portalSecret).digest();
    const address = normalizeIp(forwarded);
    if (timingSafeEqual(a, b) && address) return address;
  }
  return clientAddress(ctx, { trustedProxies });
}
