import { type ValidationLocation, zodIssuesToDetail } from '@opi/contract';
import type { z } from 'zod';
import { HttpError } from './errors.js';

/** Parses `value` with `schema` or throws the spec's 422 with `detail` built from the zod issues. */
export function parseOr422<S extends z.ZodType>(
  schema: S,
  value: unknown,
  location: ValidationLocation,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(422, zodIssuesToDetail(result.error.issues, location));
  return result.data;
}

/** Koa's query object, with repeated parameters collapsed to their last value. */
export function flatQuery(query: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? (v[v.length - 1] ?? '') : v;
  }
  return out;
}
