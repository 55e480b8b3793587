import { sendJson } from '@opi/service-kit/http/json';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { ApiDeps } from '../deps.js';

/*
 * Contract-first staff responses (issue 36 point 3): every staff route answers through `respond`,
 * naming the response schema of @opi/contract (staff-*.ts) that its `data` must match. The builder
 * is typed by the schema (a field the contract does not have, or of another type, fails to
 * compile), and the answer is checked against it at run time before it is sent. The JSON written is
 * the builder's own object, unchanged (a parse would drop or reorder keys), so the schema describes
 * the answer and never rewrites it. A mismatch is our bug, never the caller's: outside production
 * it fails the request loudly (tests see it); in production it is logged and the answer still sent.
 */

export type Respond = <S extends z.ZodType>(ctx: Context, schema: S, data: z.input<S>) => void;

export function staffResponder(deps: Pick<ApiDeps, 'isProduction' | 'logger'>): Respond {
  return (ctx, schema, data) => {
    const checked = schema.safeParse(data);
    if (!checked.success) {
      const issues = checked.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ');
      const message = `staff response of ${ctx.method} ${ctx.path} does not match its contract schema: ${issues}`;
      if (!deps.isProduction) throw new Error(message);
      deps.logger.error(message);
    }
    sendJson(ctx, { success: true, data });
  };
}
