import { AsyncLocalStorage } from 'node:async_hooks';
import { randomHex } from '@opi/signing';

/**
 * W3C trace context (https://www.w3.org/TR/trace-context/) carried from an incoming request to
 * the wallet callbacks it causes: the API runs each request inside `traceStore`; a wallet call made
 * while handling it (a balance read) sends a child `traceparent`; a round started by it stores the
 * context in its settlement intent, so the worker's callbacks carry the same trace id.
 */
export interface TraceContext {
  /** 32 lower-case hex characters, shared by every span of the trace. */
  traceId: string;
  /** 16 lower-case hex characters: this span. */
  spanId: string;
  /** Trace flags, two hex characters (`01` sampled). */
  flags: string;
  /** `00-<traceId>-<spanId>-<flags>`: the header to send downstream. */
  traceparent: string;
  /** The request id (`x-request-id`) of the request that started the trace here, when known. */
  requestId?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The parts of a valid `traceparent` header (version ff and all-zero ids are invalid), or null. */
export function parseTraceparent(
  header: string | undefined | null,
): { traceId: string; parentId: string; flags: string } | null {
  if (!header) return null;
  const m = TRACEPARENT.exec(header.trim().toLowerCase());
  if (!m) return null;
  const [, version, traceId, parentId, flags] = m as unknown as [string, string, string, string, string];
  if (version === 'ff' || traceId === ZERO_TRACE || parentId === ZERO_SPAN) return null;
  // Version 00 has exactly four fields; later versions may append more.
  if (version === '00' && header.trim().length !== 55) return null;
  return { traceId, parentId, flags };
}

/** New ids from the CSPRNG's pooled buffer (@opi/signing): one per request and wallet call. */
export const newSpanId = () => randomHex(8);
export const newTraceId = () => randomHex(16);

/**
 * A new span: a child of `parent` (a traceparent header or a context) when it is valid, else the
 * root of a new trace (sampled).
 */
export function childTrace(parent?: string | TraceContext | null, requestId?: string): TraceContext {
  const p = typeof parent === 'string' || parent == null ? parseTraceparent(parent) : parent;
  const traceId = p?.traceId ?? newTraceId();
  const flags = p?.flags ?? '01';
  const spanId = newSpanId();
  const ctx: TraceContext = { traceId, spanId, flags, traceparent: `00-${traceId}-${spanId}-${flags}` };
  const rid = requestId ?? (typeof parent === 'object' && parent ? parent.requestId : undefined);
  if (rid !== undefined) ctx.requestId = rid;
  return ctx;
}

/** The trace of the work in progress (the API request being handled), if any. */
export const traceStore = new AsyncLocalStorage<TraceContext>();
export const currentTrace = (): TraceContext | undefined => traceStore.getStore();
