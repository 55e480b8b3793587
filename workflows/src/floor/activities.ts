import type { RoundIntent, RoundOutcome } from '@opi/wallet/intent';

/** What a floor step receives: the shape of a settlement wallet step (same payload size in history). */
export interface FloorStepInput {
  intent: RoundIntent;
  operation: 'debit' | 'credit';
  amountMinor: string;
}

/** What a floor step returns: the shape of a wallet step's success, and the process that ran it. */
export interface FloorStepResult {
  status: 'success';
  balance: string;
  /** The pid of the worker process that ran the step (local activities run beside the workflow task). */
  pid: number;
}

/**
 * The activities of the floor workflow: no I/O at all. They stand where settlement's debit and
 * credit stand, so the floor measures what Temporal alone costs a round.
 */
export function createFloorActivities(announce?: (roundId: string, outcome: RoundOutcome) => void) {
  const noop = async (_input: FloorStepInput): Promise<FloorStepResult> => ({
    status: 'success',
    balance: '0',
    pid: process.pid,
  });
  return {
    floorDebit: noop,
    // The last step tells the process that started the round, as settlement's last step does.
    floorCredit: async (input: FloorStepInput): Promise<FloorStepResult> => {
      const result = await noop(input);
      announce?.(input.intent.roundId, { status: 'completed', winMinor: input.amountMinor, balance: '0' });
      return result;
    },
  };
}

export type FloorActivities = ReturnType<typeof createFloorActivities>;
