import type { z } from 'zod';

/**
 * Refinement for responses that repeat their fields under `data` (launch URL, balance refresh):
 * every field of `shape` must serialize identically at top level and in `data`. Runs on parsed
 * output, whose key order follows the schema, so `JSON.stringify` comparison is stable.
 * Returns the first differing key, or undefined.
 */
export function firstMirrorMismatch(
  shape: z.ZodRawShape,
  value: Record<string, unknown> & { data: Record<string, unknown> },
): string | undefined {
  for (const key of Object.keys(shape)) {
    if (JSON.stringify(value[key]) !== JSON.stringify(value.data[key])) return key;
  }
  return undefined;
}
