import { type ValidationErrorItem, type ValidationLocation, zodIssuesToDetail } from '@opi/contract';
import type { z } from 'zod';
import { unprocessable } from './named-errors.js';

/** A UTF-16 surrogate without its pair: no UTF-8 (and so no PostgreSQL text) can hold it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The strings in `value` PostgreSQL text cannot store as given: with U+0000 (refused), or with a
 * lone surrogate (it would be stored as U+FFFD, another string than the one validated).
 */
function badStrings(
  value: unknown,
  path: (string | number)[] = [],
  out: ValidationErrorItem[] = [],
): ValidationErrorItem[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      out.push({ loc: path, msg: 'must not contain NUL characters', type: 'invalid_format' });
    else if (LONE_SURROGATE.test(value))
      out.push({ loc: path, msg: 'must be well-formed Unicode (no lone surrogate)', type: 'invalid_format' });
  } else if (Array.isArray(value)) {
    if (path.length < 32) for (const [i, v] of value.entries()) badStrings(v, [...path, i], out);
  } else if (value !== null && typeof value === 'object') {
    if (path.length < 32) for (const [k, v] of Object.entries(value)) badStrings(v, [...path, k], out);
  }
  return out;
}

/**
 * Parses `value` with `schema` or throws the spec's 422 with `detail` built from the zod issues.
 * A validated string PostgreSQL cannot store as given (a NUL character, a lone surrogate) is a 422
 * as well (never a database error, never a silently altered value).
 */
export function parseOr422<S extends z.ZodType>(
  schema: S,
  value: unknown,
  location: ValidationLocation,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw unprocessable(zodIssuesToDetail(result.error.issues, location));
  const bad = badStrings(result.data);
  if (bad.length > 0) throw unprocessable(bad.map((b) => ({ ...b, loc: [location, ...b.loc] })));
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
