import { Agent, request } from 'undici';
import { signedHeaders } from '../lib/stack.js';

export { signedHeaders };

export interface HttpResult {
  status: number;
  text: string;
  json: any;
  headers: Record<string, string | string[] | undefined>;
  ms: number;
}

/** One keep-alive agent for every request the suite makes (its own, not the global one). */
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256, pipelining: 1 });

/**
 * One HTTP request; `status` 0 with the error text when no answer came (reset, refused, timeout).
 * The body is sent exactly as given.
 */
export async function http(
  origin: string,
  method: string,
  pathAndQuery: string,
  opts: { headers?: Record<string, string>; body?: string | Buffer; timeoutMs?: number } = {},
): Promise<HttpResult> {
  const t0 = performance.now();
  try {
    const res = await request(origin + pathAndQuery, {
      dispatcher: agent,
      method: method as 'GET',
      headers: opts.headers ?? {},
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      headersTimeout: opts.timeoutMs ?? 30_000,
      bodyTimeout: opts.timeoutMs ?? 30_000,
    });
    const text = await res.body.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, text, json, headers: res.headers, ms: performance.now() - t0 };
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return {
      status: 0,
      text: `${e.code ?? 'error'}: ${e.message ?? String(err)}`,
      json: undefined,
      headers: {},
      ms: performance.now() - t0,
    };
  }
}

/** A signed request with an operator or admin key (pp-operator-v1, fresh timestamp and nonce). */
export function signedCall(
  origin: string,
  key: string,
  method: string,
  pathAndQuery: string,
  body?: unknown,
  timeoutMs?: number,
): Promise<HttpResult> {
  const raw = body === undefined ? '' : JSON.stringify(body);
  return http(origin, method, pathAndQuery, {
    headers: signedHeaders(key, method, pathAndQuery, raw),
    ...(raw ? { body: raw } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  });
}

/** Like signedCall, but throws unless the status is 2xx; returns the JSON body. */
export async function signedOk(
  origin: string,
  key: string,
  method: string,
  pathAndQuery: string,
  body?: unknown,
): Promise<any> {
  const res = await signedCall(origin, key, method, pathAndQuery, body);
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${method} ${pathAndQuery}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

export async function closeHttp(): Promise<void> {
  await agent.close();
}
