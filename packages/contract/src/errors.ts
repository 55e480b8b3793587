import { z } from 'zod';

/* Service error bodies, and the conversion of zod issues into the 422 `detail` array. */

/** One item of a 422 `detail` array. */
export const ValidationErrorItem = z.object({
  /** Where: `body`, `query`, `path` or `header`, then the field path. */
  loc: z.array(z.union([z.string(), z.number()])),
  /** Human-readable message. */
  msg: z.string(),
  /** Machine-readable error type. */
  type: z.string(),
});
export type ValidationErrorItem = z.infer<typeof ValidationErrorItem>;

/**
 * A service error body. Services commonly return only `detail` (a string, or for 422 an array of
 * validation errors); an empty object is not an error body, so at least one of `detail`, `error` or
 * `message` is required.
 */
export const ServiceErrorResponse = z
  .object({
    success: z.literal(false).optional(),
    detail: z.union([z.string(), z.array(ValidationErrorItem)]).optional(),
    error: z.string().optional(),
    message: z.string().optional(),
  })
  .refine((body) => body.detail !== undefined || body.error !== undefined || body.message !== undefined, {
    message: 'an error body carries detail, error or message',
  });
export type ServiceErrorResponse = z.infer<typeof ServiceErrorResponse>;

export type ValidationLocation = 'body' | 'query' | 'path' | 'header';

/**
 * Turns zod issues into the spec's 422 `detail` array: `loc` is the location followed by the issue
 * path (`['body', 'currency']`, `['query', 'session_id']`), `msg` the issue message and `type` the
 * zod issue code (`invalid_type`, `too_small`, `invalid_format`, `custom`, ...).
 */
export function zodIssuesToDetail(
  issues: readonly z.core.$ZodIssue[],
  location: ValidationLocation,
): ValidationErrorItem[] {
  return issues.map((issue) => ({
    loc: [location, ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key))],
    msg: issue.message,
    type: issue.code,
  }));
}
