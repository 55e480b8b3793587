import { notFound, redirect } from 'next/navigation';
import { cache } from 'react';
import { env } from './env';
import { sessionToken } from './session';
import type { Me } from './types';

/*
 * The portal reads through the API's staff routes only (/api/staff/v1), with the staff member's
 * session token: the API decides scope in one place. Nothing here talks to the database.
 */

export type Loaded<T> = { ok: true; data: T } | { ok: false; status: number; detail: string };

export interface ApiCall {
  method?: 'GET' | 'POST';
  body?: unknown;
  token?: string;
  /** The browser's address, forwarded with the portal secret (login rate limits, audit log). */
  clientIp?: string | undefined;
}

function detailOf(json: unknown, status: number): string {
  const d = (json as { detail?: unknown } | undefined)?.detail;
  if (typeof d === 'string') return d;
  if (Array.isArray(d))
    return d
      .map((x: { loc?: unknown[]; msg?: string }) => `${(x.loc ?? []).slice(1).join('.')}: ${x.msg}`)
      .join('; ');
  return `HTTP ${status}`;
}

/** One call to the staff API; answers status, parsed JSON (or text) and headers. */
export async function staffApi(path: string, call: ApiCall = {}) {
  const { OPI_API_URL, STAFF_PORTAL_SECRET } = env();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  if (STAFF_PORTAL_SECRET && call.clientIp) {
    headers['x-staff-portal'] = STAFF_PORTAL_SECRET;
    headers['x-staff-client-ip'] = call.clientIp;
  }
  const res = await fetch(`${OPI_API_URL.replace(/\/+$/, '')}/api/staff/v1${path}`, {
    method: call.method ?? 'GET',
    headers,
    cache: 'no-store',
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  return res;
}

/**
 * A read for a page: no session → the login page; 401 → the login page (session ended);
 * 404 → the not-found page; 403 and other failures → `{ok: false}` for the page to explain.
 */
export async function load<T>(path: string): Promise<Loaded<T>> {
  const token = await sessionToken();
  if (!token) redirect('/login');
  const res = await staffApi(path, { token });
  if (res.status === 401) redirect('/login?expired=1');
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (res.status === 404) notFound();
  if (!res.ok) return { ok: false, status: res.status, detail: detailOf(json, res.status) };
  return { ok: true, data: (json as { data: T }).data };
}

/** Who is logged in (once per request, shared by the layout and the page). */
export const loadMe = cache(async (): Promise<Me> => {
  const me = await load<Me>('/me');
  if (!me.ok) redirect('/login?expired=1');
  return me.data;
});

/** The query string of the given parameters, empty values left out. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

export { detailOf };

/** A path segment for the API from a URL parameter: encoded; `.` and `..` are never a record. */
export function seg(id: string): string {
  if (id === '.' || id === '..' || id.length === 0 || id.length > 200) notFound();
  return encodeURIComponent(id);
}

/** What Next hands an /o/{operator} page: its path's parameters (the operator, and `P`) and its query. */
export interface OperatorPageProps<P extends Record<string, string> = Record<never, string>> {
  params: Promise<{ operator: string } & P>;
  searchParams: Promise<Record<string, string | undefined>>;
}

/** The operator of an /o/{operator} page (operator ids: lower-case letters, digits, _ and -). */
export async function operatorParam(params: Promise<{ operator: string }>): Promise<string> {
  const { operator } = await params;
  if (!/^[a-z0-9][a-z0-9_-]{1,63}$/.test(operator)) notFound();
  return operator;
}
