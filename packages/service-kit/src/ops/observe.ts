import { childTrace, traceStore } from '@opi/config/trace';
import type { Context, Next } from 'koa';
import { apiMetrics } from './metrics.js';

/**
 * Right after the request id: the request's trace (a child span of the caller's `traceparent`, else
 * a new trace) for everything the request causes (logs, the wallet callbacks it sends, the rounds
 * it starts), and its latency by route template and status. The response carries the span as
 * `traceresponse` (W3C Trace Context Level 2) so a caller without tracing can still quote it.
 */
export function observe() {
  const { httpDuration } = apiMetrics();
  return async (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint();
    const trace = childTrace(ctx.get('traceparent') || undefined, ctx.state.requestId as string | undefined);
    ctx.state.trace = trace;
    ctx.set('traceresponse', trace.traceparent);
    try {
      await traceStore.run(trace, next);
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
      httpDuration.observe(
        { method: ctx.method, route: typeof route === 'string' ? route : 'unmatched', status: ctx.status },
        seconds,
      );
    }
  };
}
