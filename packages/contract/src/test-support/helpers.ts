import assert from 'node:assert/strict';
import type { z } from 'zod';

/** Asserts the schema accepts `value` and returns the parsed output. */
export function accepts<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  assert.ok(
    result.success,
    `expected ${JSON.stringify(value, bigintSafe)} to be accepted: ${result.error?.message}`,
  );
  return result.data;
}

/**
 * Asserts the schema rejects `value`. With `path`, also asserts that some issue points at exactly
 * that path (so the rejection is for the reason under test).
 */
export function rejects(
  schema: z.ZodType,
  value: unknown,
  path?: readonly (string | number)[],
): z.core.$ZodIssue[] {
  const result = schema.safeParse(value);
  assert.ok(!result.success, `expected ${JSON.stringify(value, bigintSafe)} to be rejected`);
  if (path !== undefined) {
    const paths = result.error.issues.map((issue) => JSON.stringify(issue.path));
    assert.ok(
      paths.includes(JSON.stringify(path)),
      `expected an issue at ${JSON.stringify(path)}, got ${paths.join(', ')}`,
    );
  }
  return result.error.issues;
}

/** `obj` without `key`. */
export function without<T extends object>(obj: T, key: keyof T): Partial<T> {
  const copy: Partial<T> = { ...obj };
  delete copy[key];
  return copy;
}

function bigintSafe(_key: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v;
}
