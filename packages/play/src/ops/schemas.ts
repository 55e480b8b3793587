import { z } from 'zod';

/* Bodies of the operations endpoints (documented in the OpenAPI document from these). */

/** 200 of `GET /health`: the process answers (liveness; no dependency is checked). */
export const HealthResponse = z.object({ status: z.literal('ok') });

const Check = z.object({
  ok: z.boolean(),
  /** How long the check took, milliseconds. */
  ms: z.number().nonnegative(),
});

/**
 * `GET /ready`: 200 when every check passes, else 503 with the same body. Which check failed,
 * never why: the reasons (driver and Temporal messages) go to the log and to `/ready` on the
 * metrics port.
 */
export const ReadinessResponse = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({
    /** `SELECT 1` on the API's pool. */
    postgres: Check,
    /** The Temporal frontend answers (GetSystemInfo) in the configured namespace. */
    temporal: Check,
    /** A settlement worker polled the task queue recently (DescribeTaskQueue pollers). */
    worker: Check.extend({
      /** Workers seen polling the task queue within the last 90 s. */
      pollers: z.int().nonnegative(),
    }),
  }),
});
export type ReadinessResponse = z.infer<typeof ReadinessResponse>;
