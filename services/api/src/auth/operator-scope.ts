import { OperatorId } from '@opi/contract';
import type { Pool } from '@opi/db';
import { loadOperator, type OperatorRow } from '@opi/play/sessions/operators';
import type { ConfigCache } from '@opi/service-kit/cache/change-feed';
import { badRequest, forbidden, notFound, unauthorized } from '@opi/service-kit/http/named-errors';
import type { Context, Next } from 'koa';
import type { AuthState } from './authenticate.js';

export { loadOperator, type OperatorRow } from '@opi/play/sessions/operators';

/** Where a request names an operator inside what its signature covers: the query and the body. */
function signedOperators(ctx: Context): string[] {
  const names: string[] = [];
  const q = ctx.query.operator_id;
  for (const v of Array.isArray(q) ? q : q === undefined ? [] : [q]) names.push(v);
  const body = ctx.state.body as unknown;
  if (body && typeof body === 'object' && !Array.isArray(body) && 'operator_id' in body) {
    const v = (body as { operator_id: unknown }).operator_id;
    if (v !== undefined && v !== null) names.push(typeof v === 'string' ? v : JSON.stringify(v));
  }
  return names;
}

/** Every place a request can name an operator: query, `x-operator-id`, body. */
function namedOperators(ctx: Context): string[] {
  const header = ctx.get('x-operator-id');
  return [...signedOperators(ctx), ...(header ? [header] : [])];
}

/**
 * Issue 23 point 9: the signed string (fixed by the contract) does not cover headers, so on a
 * signed request `x-operator-id` alone cannot choose the operator: a captured request replayed
 * with another header value would act for another operator. A master key's signed request that
 * sends it must name the same operator in the signed query or body too (docs/signing.md).
 */
export const UNSIGNED_OPERATOR_HEADER =
  'x-operator-id is not covered by the signature: a signed request names its operator as operator_id in the query or the body (x-operator-id may repeat it)';

/**
 * Resolves the operator scope once, for every handler after it: an operator key resolves its
 * own operator and naming any other (through any channel) is 403; a provider master key must
 * name one operator (400 without). Unknown operator 404, inactive operator 403.
 */
export function operatorScope(pool: Pool, cache: ConfigCache<OperatorRow | null>) {
  return async (ctx: Context, next: Next) => {
    const auth = ctx.state.auth as AuthState;
    const named = namedOperators(ctx);
    let operatorId: string;
    if (auth.kind === 'operator') {
      if (named.some((n) => n !== auth.operatorId)) {
        throw forbidden('This key belongs to another operator');
      }
      operatorId = auth.operatorId!;
    } else {
      const header = ctx.get('x-operator-id');
      if (header && auth.signed && !signedOperators(ctx).includes(header)) {
        throw unauthorized(UNSIGNED_OPERATOR_HEADER);
      }
      const distinct = [...new Set(named)];
      if (distinct.length === 0) {
        throw badRequest('Provider master keys must name the operator (operator_id or x-operator-id)');
      }
      if (distinct.length > 1) throw badRequest('The request names more than one operator');
      operatorId = distinct[0]!;
    }
    // An id that cannot exist (too long, a NUL PostgreSQL would refuse, ...) is not looked up.
    const operator = !OperatorId.safeParse(operatorId).success
      ? null
      : await cache.get(operatorId, () => loadOperator(pool, operatorId));
    if (!operator) throw notFound('operator');
    if (operator.status !== 'active') throw forbidden('Operator is inactive');
    ctx.state.operator = operator;
    await next();
  };
}
