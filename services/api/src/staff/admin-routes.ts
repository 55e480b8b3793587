import Router from '@koa/router';
import {
  CreateStaffRequest,
  OperatorId,
  StaffRoleRequest,
  StaffUsername,
  UpdateStaffRequest,
} from '@opi/contract';
import { notFound, unprocessable } from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import type { ApiDeps } from '../deps.js';
import { createStaff, getStaff, grantRole, listStaff, revokeRole, updateStaff } from './accounts.js';

const body = (ctx: Context) => ctx.state.body ?? {};

function username(ctx: Context): string {
  const parsed = StaffUsername.safeParse(ctx.params.username ?? '');
  if (!parsed.success) throw notFound('staff account');
  return parsed.data;
}
function operatorId(ctx: Context): string {
  const id = ctx.params.operator_id ?? '';
  if (!OperatorId.safeParse(id).success) throw notFound('operator');
  return id;
}

/**
 * Staff accounts of the portal, managed by provider admins (/api/admin/v1/staff, provider-admin
 * keys): create (a generated password is shown once), list, change, reset the password, disable,
 * and grant or remove a role per operator.
 */
export function staffAdminRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const r = new Router({ prefix: '/api/admin/v1/staff' });
  const pool = deps.pool;
  r.get('/', ...guard, async (ctx) => {
    const items = await listStaff(pool);
    ctx.body = { success: true, data: { items, total: items.length } };
  });
  r.post('/', ...guard, async (ctx) => {
    const input = parseOr422(CreateStaffRequest, body(ctx), 'body');
    ctx.status = 201;
    ctx.body = { success: true, data: await createStaff(pool, input) };
  });
  r.get('/:username', ...guard, async (ctx) => {
    ctx.body = { success: true, data: await getStaff(pool, username(ctx)) };
  });
  r.patch('/:username', ...guard, async (ctx) => {
    const input = parseOr422(UpdateStaffRequest, body(ctx), 'body');
    if (Object.keys(input).length === 0) throw unprocessable('Nothing to change');
    ctx.body = { success: true, data: await updateStaff(pool, username(ctx), input) };
  });
  r.put('/:username/roles/:operator_id', ...guard, async (ctx) => {
    const input = parseOr422(StaffRoleRequest, body(ctx), 'body');
    ctx.body = { success: true, data: await grantRole(pool, username(ctx), operatorId(ctx), input.role) };
  });
  r.delete('/:username/roles/:operator_id', ...guard, async (ctx) => {
    ctx.body = { success: true, data: await revokeRole(pool, username(ctx), operatorId(ctx)) };
  });
  return r;
}
