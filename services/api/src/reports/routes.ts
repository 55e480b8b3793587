import Router from '@koa/router';
import {
  AdminRevenueReportQuery,
  ReconciliationDiffRequest,
  ReportingTimeZoneRequest,
  RevenueReportQuery,
} from '@opi/contract';
import { sendJson } from '@opi/service-kit/http/json';
import { invalidField, notFound } from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import { reconciliationDiff } from './diff.js';
import { type RevenueParams, revenueCsv, revenueReport } from './revenue.js';

/*
 * Reports (issue 38 points 1 and 2; docs/reports-and-invoices.md):
 *
 *   GET /api/operator/v1/reports/revenue(.csv)   the operator's own figures, GGR and GGY (signed, like every audit read)
 *   GET /api/admin/v1/reports/revenue(.csv)      the same across operators (provider-admin key)
 *   PUT /api/admin/v1/operators/{operator_id}/reporting-time-zone   the operator's reporting days
 *   POST /api/operator/v1/reconciliation/diff    the operator's totals against the journal (point 4; diff.ts)
 */

/** The query without `operator_id` (a master key's scope, already resolved by operatorScope). */
function operatorQuery(ctx: Context): Record<string, string> {
  const { operator_id: _scope, ...rest } = flatQuery(ctx.query);
  return rest;
}

function csv(ctx: Context, name: string, text: string) {
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/csv; charset=utf-8; header=present';
  ctx.set('Content-Disposition', `attachment; filename="${name}.csv"`);
  ctx.body = text;
}

export function reportRoutes(deps: ApiDeps, operatorGuard: Middleware[], adminGuard: Middleware[]): Router {
  const r = new Router();

  const operatorParams = (ctx: Context): RevenueParams => {
    const q = parseOr422(RevenueReportQuery, operatorQuery(ctx), 'query');
    return {
      operatorId: (ctx.state.operator as OperatorRow).operator_id,
      from: q.from,
      to: q.to,
      groupBy: q.group_by,
      currency: q.currency,
      gameSymbol: q.game_symbol,
    };
  };
  // Registered before the JSON routes so `.csv` is not taken for part of another path.
  r.get('/api/operator/v1/reports/revenue.csv', ...operatorGuard, async (ctx) => {
    const p = operatorParams(ctx);
    csv(ctx, `revenue-${p.operatorId}-${p.from}-${p.to}`, revenueCsv(await revenueReport(deps.pool, p)));
  });
  r.get('/api/operator/v1/reports/revenue', ...operatorGuard, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    sendJson(ctx, { success: true, data: await revenueReport(deps.pool, operatorParams(ctx)) });
  });

  // A read (nothing is written): answered 200, safe to retry.
  r.post('/api/operator/v1/reconciliation/diff', ...operatorGuard, async (ctx) => {
    // A master key may name its operator in the body (operatorScope has read it).
    let input: unknown = ctx.state.body ?? {};
    if (input && typeof input === 'object' && !Array.isArray(input)) {
      const { operator_id: _scope, ...rest } = input as Record<string, unknown>;
      input = rest;
    }
    const body = parseOr422(ReconciliationDiffRequest, input, 'body');
    const data = await reconciliationDiff(deps.pool, (ctx.state.operator as OperatorRow).operator_id, body);
    ctx.set('Cache-Control', 'no-store');
    sendJson(ctx, { success: true, data });
  });

  const adminParams = (ctx: Context): RevenueParams => {
    const q = parseOr422(AdminRevenueReportQuery, flatQuery(ctx.query), 'query');
    return {
      operatorId: q.operator_id ?? null,
      from: q.from,
      to: q.to,
      groupBy: q.group_by,
      currency: q.currency,
      gameSymbol: q.game_symbol,
    };
  };
  const knownOperator = async (id: string | null) => {
    if (id === null) return;
    const { rowCount } = await deps.pool.query('SELECT 1 FROM operators WHERE operator_id = $1', [id]);
    if (!rowCount) throw notFound('operator');
  };
  r.get('/api/admin/v1/reports/revenue.csv', ...adminGuard, async (ctx) => {
    const p = adminParams(ctx);
    await knownOperator(p.operatorId);
    csv(
      ctx,
      `revenue-${p.operatorId ?? 'all'}-${p.from}-${p.to}`,
      revenueCsv(await revenueReport(deps.pool, p)),
    );
  });
  r.get('/api/admin/v1/reports/revenue', ...adminGuard, async (ctx) => {
    const p = adminParams(ctx);
    await knownOperator(p.operatorId);
    ctx.set('Cache-Control', 'no-store');
    sendJson(ctx, { success: true, data: await revenueReport(deps.pool, p) });
  });

  r.put('/api/admin/v1/operators/:operator_id/reporting-time-zone', ...adminGuard, async (ctx) => {
    const body = parseOr422(ReportingTimeZoneRequest, ctx.state.body ?? {}, 'body');
    const known = await deps.pool.query('SELECT 1 FROM pg_timezone_names WHERE name = $1', [body.time_zone]);
    if (!known.rowCount) throw invalidField(['body', 'time_zone'], 'a time zone name PostgreSQL knows');
    const id = ctx.params.operator_id ?? '';
    if (!/^[a-z0-9][a-z0-9_-]{1,63}$/.test(id)) throw notFound('operator');
    const { rows } = await deps.pool.query<{ operator_id: string; time_zone: string }>(
      `UPDATE operators SET reporting_time_zone = $2, updated_at = now() WHERE operator_id = $1
       RETURNING operator_id, reporting_time_zone AS time_zone`,
      [id, body.time_zone],
    );
    if (!rows[0]) throw notFound('operator');
    sendJson(ctx, { success: true, data: rows[0] });
  });
  return r;
}
