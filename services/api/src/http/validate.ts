import { type ValidationErrorItem, type ValidationLocation, zodIssuesToDetail } from '@opi/contract';
import type { z } from 'zod';
import { HttpError } from './errors.js';

/** Paths of the strings in `value` that contain U+0000 (PostgreSQL text cannot store it). */
function nulStrings(value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []) {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) out.push(path);
  } else if (Array.isArray(value)) {
    if (path.length < 32) for (const [i, v] of value.entries()) nulStrings(v, [...path, i], out);
  } else if (value !== null && typeof value === 'object') {
    if (path.length < 32) for (const [k, v] of Object.entries(value)) nulStrings(v, [...path, k], out);
  }
  return out;
}

/**
 * Parses `value` with `schema` or throws the spec's 422 with `detail` built from the zod issues.
 * A validated string containing a NUL character is a 422 as well (never a database error).
 */
export function parseOr422<S extends z.ZodType>(
  schema: S,
  value: unknown,
  location: ValidationLocation,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(422, zodIssuesToDetail(result.error.issues, location));
  const nul = nulStrings(result.data);
  if (nul.length > 0) {
    throw new HttpError(
      422,
      nul.map(
        (p): ValidationErrorItem => ({
          loc: [location, ...p],
          msg: 'must not contain NUL characters',
          type: 'invalid_format',
        }),
      ),
    );
  }
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
