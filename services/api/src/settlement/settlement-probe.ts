import type { ApiDeps } from '../deps.js';

/**
 * Whether the settlement runtime (Temporal) is known to be unreachable, for the launch's 502
 * ("provider runtime unavailable"). Every money action of every family runs through a settlement
 * workflow, so a launch while Temporal does not answer would hand out a page whose first wager
 * cannot be taken. The launch must not pay a network round trip for this: `verdict()` is
 * synchronous and answers from the last probe; a stale verdict starts one probe in the background
 * (never more than one at a time, never awaited by the launch).
 *
 * - unavailable: the last `failuresToTrip` probes in a row failed (`GetSystemInfo` refused, or no
 *   answer within `timeoutMs`), and the latest of them is at most `trustForMs` old;
 * - available: the latest probe answered (or fewer than `failuresToTrip` failed in a row);
 * - unknown: no probe has finished yet, or the latest is older than `trustForMs` (no launch for a
 *   while). Unknown lets launches through (fail open): an old or missing verdict is no proof.
 *
 * A settlement worker that does not poll is not "unavailable" here: a round started meanwhile
 * waits in Temporal and settles when a worker returns (GET /ready reports that case).
 */
export interface ProbeOptions {
  /** A verdict this old is refreshed in the background by the next call to `verdict()`. */
  refreshAfterMs: number;
  /** A verdict older than this counts as unknown. */
  trustForMs: number;
  /** One probe's time limit. */
  timeoutMs: number;
  /** Consecutive failed probes before the runtime counts as unavailable. */
  failuresToTrip: number;
}

export const DEFAULT_PROBE_OPTIONS: Readonly<ProbeOptions> = Object.freeze({
  refreshAfterMs: 5_000,
  trustForMs: 30_000,
  timeoutMs: 2_000,
  failuresToTrip: 2,
});

export type ProbeVerdict =
  | { state: 'unknown' }
  | { state: 'available'; checkedAt: number }
  | { state: 'unavailable'; checkedAt: number; error: string; failures: number };

export class RuntimeProbe {
  readonly options: ProbeOptions;
  /** Probes started so far (each is one network round trip). */
  probes = 0;
  private checkedAt = 0;
  private failures = 0;
  private lastError = '';
  private inFlight: Promise<void> | null = null;
  /** The checks themselves, which may outlive their verdict (a client's own retries). */
  private readonly checks = new Set<Promise<unknown>>();

  constructor(
    /** One probe: must give up by `deadline` (ms since the epoch). */
    private readonly check: (deadline: number) => Promise<unknown>,
    options: Partial<ProbeOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.options = { ...DEFAULT_PROBE_OPTIONS, ...options };
  }

  /** The cached verdict; never waits. A stale one starts a background probe. */
  verdict(): ProbeVerdict {
    const age = this.now() - this.checkedAt;
    if (this.checkedAt === 0 || age >= this.options.refreshAfterMs) void this.refresh();
    if (this.checkedAt === 0 || age > this.options.trustForMs) return { state: 'unknown' };
    if (this.failures >= this.options.failuresToTrip) {
      return {
        state: 'unavailable',
        checkedAt: this.checkedAt,
        error: this.lastError,
        failures: this.failures,
      };
    }
    return { state: 'available', checkedAt: this.checkedAt };
  }

  /** Runs one probe unless one is already running (then answers that one). Never rejects. */
  refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    this.probes++;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
    });
    const check = Promise.resolve().then(() => this.check(Date.now() + this.options.timeoutMs));
    const tracked = check.then(
      () => undefined,
      () => undefined,
    );
    this.checks.add(tracked);
    void tracked.then(() => this.checks.delete(tracked));
    const run = Promise.race([check, limit])
      .then(
        () => {
          this.failures = 0;
          this.lastError = '';
        },
        (err: unknown) => {
          this.failures++;
          this.lastError = err instanceof Error ? err.message : String(err);
        },
      )
      .finally(() => {
        clearTimeout(timer);
        this.checkedAt = this.now();
        this.inFlight = null;
      });
    this.inFlight = run;
    return run;
  }

  /** Resolves once no check is running any more (before closing the client, in tests). */
  async settled(): Promise<void> {
    while (this.checks.size > 0) await Promise.all([...this.checks]);
  }
}

const probes = new WeakMap<object, RuntimeProbe>();

/**
 * The process's probe of its settlement runtime (one per Temporal client), or null when Temporal
 * is not configured (the launch does not check then; the money routes answer 503 themselves).
 */
export function settlementProbe(deps: Pick<ApiDeps, 'temporal'>): RuntimeProbe | null {
  const t = deps.temporal;
  if (!t) return null;
  let probe = probes.get(t);
  if (!probe) {
    // The deadline also ends the client's own retries of an unanswered call.
    probe = new RuntimeProbe((deadline) =>
      t.client.withDeadline(deadline, () => t.client.workflowService.getSystemInfo({})),
    );
    probes.set(t, probe);
  }
  return probe;
}
