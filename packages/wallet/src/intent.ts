// Deterministic data shared by the game server (which writes the intent), the workflow and its activities.
// No I/O and no Node built-ins here: the workflow bundle imports this file.

export type FamilyId = 'prov_a' | 'prov_b' | 'prov_c' | 'prov_d';

/** What happens to a multi-step round nobody finishes. */
export interface MultiStepRule {
  /** Seconds without a stage or a finish after which the round is settled by `rule`. */
  abandonAfterSeconds: number;
  /** `cashout`: credit the last offered cash-out amount; `loss`: credit zero. */
  rule: 'cashout' | 'loss';
}

/**
 * A round's settlement intent, fixed before its first wallet call and never changed: the stake,
 * the win (null while a multi-step round is open), and the transaction ids it will ever use.
 * Amounts are decimal strings of integer minor units (JSON has no int64).
 */
export interface RoundIntent {
  roundId: string;
  operatorId: string;
  sessionId: string;
  /** The operator's external_player_id, sent to the wallet unchanged. */
  playerId: string;
  gameSymbol: string;
  providerId: FamilyId;
  currency: string;
  actionType: string;
  stakeMinor: string;
  /** Known at once for a single-step round (a spin); null until finish for a multi-step one. */
  winMinor: string | null;
  transactions: RoundTransactionIds;
  multiStep?: MultiStepRule;
  /**
   * The trace of the request that created the round (W3C traceparent and the API request id):
   * the worker's wallet callbacks carry the same trace id and log the request id. Informational;
   * added by recordRound/startSettlement from the request being handled when absent.
   */
  trace?: RoundTrace;
  /**
   * Journal ahead (slot spins): the debit's pending journal row was written with the round, in the
   * statement that recorded it, and a single-step round's credit row is written with the debit's
   * success, so the first attempt of either step sends at once (the bytes are deterministic:
   * buildCallbackBody). Absent on rounds recorded otherwise: every attempt claims its row first.
   */
  journalAhead?: boolean;
  /**
   * The round's stable replay page (issue 26: `round_details_url`), fixed by the game server when
   * it records the round, so that the round's credit carries the same bytes whichever process
   * builds it (a worker's own configuration never enters the body). Absent on older rounds.
   */
  detailsUrl?: string;
  /**
   * One step first (slot spins, with journalAhead and a known win): the workflow's first attempt
   * sends the debit and then the credit in one local activity (`debitThenCredit`), which never
   * throws; whatever it did not settle continues through the ordinary steps (each claiming its
   * journal row), so every rule below still holds. Carried by the intent (the workflow's input),
   * so a round started without it replays as it ran.
   */
  oneStep?: boolean;
  /**
   * Credit ahead (slot spins with oneStep, issue 36): the credit's pending journal row was written
   * with the round too, in the spin's statement, so the first attempt sends the debit and then the
   * credit and records both outcomes (debit and credit applied, the round completed) in one
   * statement: one transaction instead of two. A debit refused, or rolled back, closes that credit
   * row as never sent. Absent on rounds recorded otherwise (their credit row is written with the
   * debit's success).
   */
  creditAhead?: boolean;
  /**
   * A free round of an operator's campaign (issue 18): no debit is ever sent (stakeMinor is '0';
   * `betMinor` is the campaign's stake, recorded for the record), the win is paid with a credit
   * whose body carries `action_type: free_round`, `campaign_id` and, on the player's last round of
   * the campaign, `free_round_last: true`. Journal ahead: the spin writes the credit's row.
   */
  freeRound?: FreeRoundIntent;
  /**
   * A paid spin of a title in a progressive jackpot (issue 25, docs/jackpots-and-promotions.md):
   * the jackpot it fed and its contribution (millionths of a minor unit), carried by the debit as
   * optional fields; and, when the spin's statement awarded one or more levels at the pools' row
   * locks, the wins, each paid after the round's credit by a credit of its own (`action_type:
   * jackpot_win`, transaction `<round>:jackpot:<level>`). Absent on every other round.
   */
  jackpot?: JackpotIntent;
  /**
   * A prize drop's award to this spin (issue 25), set by the spin's statement at the drop pool's
   * row lock: paid after the round's credit (and its jackpot wins) by the promotional payout's own
   * credit (`action_type: promo_win`, `promo_type: prize_drop`, round reference = the payout id).
   * A round that never completes never pays it (the award is void).
   */
  prizeDrop?: PrizeDropIntent;
}

export interface PrizeDropIntent {
  dropId: string;
  payoutId: string;
  amountMinor: string;
}

export interface JackpotIntent {
  jackpotId: string;
  /** Summed over the levels, in millionths of a minor unit (a decimal string). */
  contributionMicros: string;
  /** Set by the spin's statement (never by the caller): the levels this spin won, and how much. */
  wins?: JackpotWinIntent[];
}

export interface JackpotWinIntent {
  level: string;
  amountMinor: string;
}

/** The transaction id of a jackpot win's credit: one per round and level, never invented again. */
export function jackpotWinTransactionId(roundId: string, level: string): string {
  return `${roundId}:jackpot:${level}`;
}

export interface FreeRoundIntent {
  campaignId: string;
  betMinor: string;
  /** The player's last round of the campaign. */
  last: boolean;
}

export interface RoundTrace {
  traceparent: string;
  requestId?: string;
}

export interface RoundTransactionIds {
  debit: string;
  credit: string;
  rollback: string;
  cancel: string;
}

/** Transaction ids derive from the round id alone, so a retry can never invent a new one. */
export function transactionIdsFor(roundId: string): RoundTransactionIds {
  return {
    debit: `${roundId}:debit`,
    credit: `${roundId}:credit`,
    rollback: `${roundId}:rollback`,
    cancel: `${roundId}:cancel`,
  };
}

export type RoundOutcome =
  | { status: 'completed'; winMinor: string; balance: string }
  | { status: 'rejected'; error: string; balance?: string }
  | { status: 'rolled_back'; balance: string }
  | { status: 'cancelled'; balance: string };

/** Families that keep the durable intent and retry without limit (spec, Events, obligation 4). */
export function keepsDurableIntent(family: FamilyId): boolean {
  return family !== 'prov_a';
}
