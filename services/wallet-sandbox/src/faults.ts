import type { Context, Next } from 'koa';
import { z } from 'zod';
import { errorBody, sendJsonText } from './http.js';

const rate = z.number().min(0).max(1);
const millis = z.number().int().min(0).max(120_000);

/**
 * Fault injection for the /wallet routes, each rate a probability from 0 to 1:
 * - latencyMs [min, max] with latencyRate: wait a uniform delay before handling;
 * - resetRate: destroy the socket before doing anything (the client sees a connection reset);
 * - timeoutRate: never answer; the socket is held until the client gives up;
 * - error5xxRate: answer HTTP 500 `injected_fault` without handling the request;
 * - dropAfterCommitRate: handle the request (money moved and committed) then destroy the socket
 *   without answering: the caller cannot know it succeeded until it retries.
 * - refuseActionTypes: a money callback (debit, credit, cancel, rollback) whose `action_type` is
 *   listed is answered HTTP 400 `unsupported_action_type`, as by a wallet that does not know it
 *   (e.g. `promo_win`, `jackpot_win`): nothing applied, recorded as an invalid request. Not a rate.
 */
export const FaultConfigSchema = z
  .object({
    latencyMs: z
      .tuple([millis, millis])
      .refine(([min, max]) => min <= max, 'latencyMs is [min, max] with min <= max')
      .default([0, 0]),
    latencyRate: rate.default(0),
    error5xxRate: rate.default(0),
    resetRate: rate.default(0),
    timeoutRate: rate.default(0),
    dropAfterCommitRate: rate.default(0),
    refuseActionTypes: z.array(z.string().min(1).max(128)).max(32).default([]),
  })
  .strict();

export type FaultConfig = z.infer<typeof FaultConfigSchema>;
export type FaultConfigInput = z.input<typeof FaultConfigSchema>;

export const NO_FAULTS: FaultConfig = Object.freeze({
  latencyMs: [0, 0] as [number, number],
  latencyRate: 0,
  error5xxRate: 0,
  resetRate: 0,
  timeoutRate: 0,
  dropAfterCommitRate: 0,
  refuseActionTypes: [],
});

export interface FaultCounters {
  latency: number;
  reset: number;
  timeout: number;
  error5xx: number;
  dropAfterCommit: number;
  refusedActionType: number;
}

/** The current fault configuration (changed at run time by the admin API) and its middleware. */
export class FaultInjector {
  private config: FaultConfig;
  readonly counters: FaultCounters = {
    latency: 0,
    reset: 0,
    timeout: 0,
    error5xx: 0,
    dropAfterCommit: 0,
    refusedActionType: 0,
  };

  constructor(
    initial: FaultConfigInput = {},
    private readonly random: () => number = Math.random,
  ) {
    this.config = FaultConfigSchema.parse(initial);
  }

  get(): FaultConfig {
    return {
      ...this.config,
      latencyMs: [...this.config.latencyMs] as [number, number],
      refuseActionTypes: [...this.config.refuseActionTypes],
    };
  }

  /** Whether a money callback with this action_type is refused (`refuseActionTypes`); counts it. */
  refusesActionType(actionType: string): boolean {
    if (!this.config.refuseActionTypes.includes(actionType)) return false;
    this.counters.refusedActionType++;
    return true;
  }

  /** Replaces the whole configuration (omitted fields reset to 0). Throws a ZodError when invalid. */
  set(input: unknown): FaultConfig {
    this.config = FaultConfigSchema.parse(input);
    return this.get();
  }

  private roll(p: number): boolean {
    return p > 0 && this.random() < p;
  }

  /** Koa middleware applying the configured faults around the wallet handler. */
  middleware() {
    return async (ctx: Context, next: Next) => {
      const f = this.config;
      if (this.roll(f.latencyRate)) {
        this.counters.latency++;
        const [min, max] = f.latencyMs;
        const ms = min + Math.floor(this.random() * (max - min + 1));
        if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      }
      if (this.roll(f.resetRate)) {
        this.counters.reset++;
        ctx.respond = false;
        ctx.req.socket.destroy();
        return;
      }
      if (this.roll(f.timeoutRate)) {
        this.counters.timeout++;
        // Koa leaves the response alone: nothing is written, the socket stays open until the
        // client aborts (or the server is closed).
        ctx.respond = false;
        return;
      }
      if (this.roll(f.error5xxRate)) {
        this.counters.error5xx++;
        sendJsonText(ctx, 500, errorBody('injected_fault', 'fault injection: simulated server error'));
        return;
      }
      await next();
      if (this.roll(f.dropAfterCommitRate)) {
        this.counters.dropAfterCommit++;
        ctx.respond = false;
        ctx.req.socket.destroy();
      }
    };
  }
}
