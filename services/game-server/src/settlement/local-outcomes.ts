import type { RoundOutcome } from '@opi/wallet/intent';

/**
 * Round outcomes announced inside one process. A worker's settlement activities announce a round's
 * outcome as soon as the statement that records its last money step commits (the journal row and
 * the round's final status, in one transaction). Whoever started the round in the same process
 * (a game-server process whose hosted worker took the eager start) can answer from it instead of asking
 * Temporal for the workflow's result: one server round trip and the wait for the workflow's last
 * task to be persisted fewer per round. The outcome is the one the workflow returns (the same
 * fields, built from the same step result), and it is announced only after the database holds it.
 *
 * A round this process does not settle (its task went to another worker, a retry after a crash, a
 * step answered from the journal without a send) is never announced here: the waiter falls back to
 * the workflow's result.
 */
/**
 * How long a round started eagerly waits for its outcome from this process's own worker before it
 * also asks Temporal for the workflow's result (its task may have gone to another worker).
 */
export const LOCAL_OUTCOME_GRACE_MS = 3_000;

export interface LocalOutcomes {
  /** Waits for `roundId`'s outcome; register before the round starts. `cancel` drops the wait. */
  wait(roundId: string): { outcome: Promise<RoundOutcome>; cancel(): void };
  /** Called by the activities; a round nobody waits for is ignored. */
  announce(roundId: string, outcome: RoundOutcome): void;
}

export function createLocalOutcomes(): LocalOutcomes {
  const waiting = new Map<string, (outcome: RoundOutcome) => void>();
  return {
    wait(roundId) {
      let resolve!: (outcome: RoundOutcome) => void;
      const outcome = new Promise<RoundOutcome>((r) => {
        resolve = r;
      });
      waiting.set(roundId, resolve);
      return {
        outcome,
        cancel: () => {
          if (waiting.get(roundId) === resolve) waiting.delete(roundId);
        },
      };
    },
    announce(roundId, outcome) {
      const resolve = waiting.get(roundId);
      if (!resolve) return;
      waiting.delete(roundId);
      resolve(outcome);
    },
  };
}

/**
 * Whichever comes first: the outcome announced in this process (when the round was started
 * eagerly here), else, after `graceMs` (or at once when not eager), the workflow's result; null
 * once `waitMs` has passed. Timers and the local wait are dropped when it settles.
 */
export function firstOutcome<T>(o: {
  local: { outcome: Promise<RoundOutcome>; cancel(): void } | undefined;
  eager: boolean;
  result: () => Promise<T>;
  graceMs: number;
  waitMs?: number;
}): Promise<{ outcome: RoundOutcome | T; announced: boolean } | null> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const end = () => {
      done = true;
      for (const t of timers) clearTimeout(t);
      o.local?.cancel();
    };
    const finish = (value: { outcome: RoundOutcome | T; announced: boolean } | null) => {
      if (done) return;
      end();
      resolve(value);
    };
    const fail = (err: unknown) => {
      if (done) return;
      end();
      reject(err);
    };
    const fromServer = () => o.result().then((outcome) => finish({ outcome, announced: false }), fail);
    if (o.eager && o.local) {
      void o.local.outcome.then((outcome) => finish({ outcome, announced: true }));
      timers.push(setTimeout(fromServer, o.graceMs));
    } else {
      o.local?.cancel();
      void fromServer();
    }
    if (o.waitMs !== undefined) timers.push(setTimeout(() => finish(null), o.waitMs));
    for (const t of timers) (t as { unref?: () => void }).unref?.();
  });
}
